import { describe, expect, it } from "vitest";
import {
  type QuestionPromptRequest,
  type QuestionReply,
  type ToolCoordinator,
  TurnState,
} from "../../src/index.js";
import {
  MockExecutor,
  MockExecutorSource,
  MockPromptBackend,
  waitForAbort,
} from "../../src/testing/index.js";
import { coordinatorFor, inquiryTrail } from "../helpers.js";
import { booleanQuestion, call, macrotasks, UNATTENDED } from "../support.js";

/** A sub-agent's question, as its coordinator hands it to the parent through `escalate`. */
const subAgentQuestion: QuestionPromptRequest = {
  kind: "question",
  tool_name: "ask_user",
  tool_call_id: "child_call_1",
  inquiry_id: "child_call_1.confirm.1",
  question: booleanQuestion(),
  controls: { remember: false, back: false, reply: false, end_turn: false },
};

describe("a sub-agent's question shown by the parent, when the parent's run stops", () => {
  it.each<[string, (c: AbortController) => void, string]>([
    ["a shutdown", (c) => c.abort(new Error("shutting down")), "interrupted"],
    ["a deadline", (c) => c.abort(new DOMException("late", "TimeoutError")), "timeout"],
  ])(
    "%s is recorded in the parent's conversation as what happened",
    async (_name, stop, reason) => {
      const controller = new AbortController();
      let coordinator!: ToolCoordinator;
      const agent = new MockExecutor(async (input) => {
        const reply = await coordinator.escalate(input.call.id, "researcher", subAgentQuestion, {
          signal: input.signal,
        });
        return { type: "success", content: `sub-agent got ${reply.type}` };
      });
      const made = coordinatorFor({
        tools: UNATTENDED,
        executors: new MockExecutorSource({ research: agent }),
        prompts: new MockPromptBackend({ questions: [waitForAbort<QuestionReply>()] }),
      });
      coordinator = made.coordinator;
      coordinator.once("prompt-shown", () => void macrotasks(1).then(() => stop(controller)));

      await coordinator.run([call("call_1", "research")], {
        turn: new TurnState(),
        signal: controller.signal,
      });

      expect(inquiryTrail(made.stream.events)).toEqual([
        { request: "call_1.confirm.1", source: { source: "other", name: "researcher" } },
        { response: "call_1.confirm.1", cancelled: reason },
      ]);
    },
  );
});
