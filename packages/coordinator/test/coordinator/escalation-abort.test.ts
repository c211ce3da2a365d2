import { describe, expect, it } from "vitest";
import {
  HumanUnreachableError,
  type PermissionReply,
  type PromptRequest,
  PromptUnsupportedError,
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

describe("a sub-agent's prompt shown by the parent that ends without the person", () => {
  it.each([
    ["question", subAgentQuestion],
    [
      "permission",
      {
        kind: "permission",
        tool_name: "rm",
        tool_call_id: "child_call_1",
        arguments: { path: "/tmp/x" },
        mode: "ask",
      } as const,
    ],
  ] as const)(
    "a %s whose deadline passes reaches the sub-agent as its backend's timeout, never as the person's cancel",
    async (_kind, request) => {
      let coordinator!: ToolCoordinator;
      let told: unknown;
      const agent = new MockExecutor(async (input) => {
        try {
          const shown: PromptRequest = request;
          const reply = await coordinator.escalate(input.call.id, "researcher", shown, {
            signal: input.signal,
          });
          told = reply;
        } catch (error) {
          told = error;
        }
        return { type: "success", content: "done" };
      });
      const made = coordinatorFor({
        tools: UNATTENDED,
        executors: new MockExecutorSource({ research: agent }),
        prompts: new MockPromptBackend({
          questions: [waitForAbort<QuestionReply>()],
          permissions: [waitForAbort<PermissionReply>()],
        }),
      });
      coordinator = made.coordinator;
      await coordinator.run([call("call_1", "research")], {
        turn: new TurnState(),
        promptTimeoutMs: 30,
      });
      expect(told).toMatchObject({ name: "PromptTimedOutError", ms: 30 });
    },
  );
});

describe("a sub-agent's prompt that the parent's backend cannot put in front of the person", () => {
  it.each([
    ["cannot reach the person", new HumanUnreachableError("the client disconnected")],
    [
      "cannot show this prompt",
      new PromptUnsupportedError("this person can only answer text questions"),
    ],
  ] as const)(
    "a backend that %s: the sub-agent's prompt fails with the same error, so the sub-agent records and tells its model why",
    async (_name, failure) => {
      let coordinator!: ToolCoordinator;
      let told: unknown;
      const agent = new MockExecutor(async (input) => {
        try {
          told = await coordinator.escalate(input.call.id, "researcher", subAgentQuestion, {
            signal: input.signal,
          });
        } catch (error) {
          told = error;
        }
        return { type: "success", content: "done" };
      });
      const made = coordinatorFor({
        tools: UNATTENDED,
        executors: new MockExecutorSource({ research: agent }),
        prompts: new MockPromptBackend({
          questions: [
            () => {
              throw failure;
            },
          ],
        }),
      });
      coordinator = made.coordinator;
      await coordinator.run([call("call_1", "research")], { turn: new TurnState() });

      expect(told).toMatchObject({ name: failure.name, message: failure.message });
      expect(inquiryTrail(made.stream.events)).toEqual([
        { request: "call_1.confirm.1", source: { source: "other", name: "researcher" } },
        { response: "call_1.confirm.1", cancelled: "backend_error" },
      ]);
    },
  );
});
