// A tool call's id is unique only within its conversation: an executor shared by several
// coordinators tells their calls apart by the coordinator its input names.
import { expect, it } from "vitest";
import { type ExecuteInput, type PromptBackend, TurnState } from "../../src/index.js";
import { MockExecutor, MockExecutorSource } from "../../src/testing/index.js";
import { coordinatorFor } from "../helpers.js";
import { booleanQuestion, call, UNATTENDED } from "../support.js";

it("each pass names its coordinator and so its conversation: two conversations' calls of one id stay apart", async () => {
  const seen: ExecuteInput["coordinator"][] = [];
  const tool = new MockExecutor(async (input) => {
    seen.push(input.coordinator);
    if (input.answers.ok === undefined) {
      return { type: "needs_input", question: booleanQuestion("ok") };
    }
    return { type: "success", content: "done" };
  });
  const executors = new MockExecutorSource({ work: tool });
  const yes: PromptBackend = {
    isHumanReachable: () => true,
    ask: async () => ({ type: "answer", value: true }) as never,
  };
  const one = coordinatorFor({ tools: UNATTENDED, executors, prompts: yes });
  const two = coordinatorFor({ tools: UNATTENDED, executors, prompts: yes });
  await Promise.all([
    one.coordinator.run([call("call_1", "work")], { turn: new TurnState() }),
    two.coordinator.run([call("call_1", "work")], { turn: new TurnState() }),
  ]);
  expect(seen).toHaveLength(4);
  expect(seen.filter((c) => c === one.coordinator)).toHaveLength(2);
  expect(seen.filter((c) => c === two.coordinator)).toHaveLength(2);
  expect(one.coordinator.stream).toBe(one.stream);
  expect(two.coordinator.stream).toBe(two.stream);
});
