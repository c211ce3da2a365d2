import { err } from "neverthrow";
import { describe, expect, it } from "vitest";
import {
  type PermissionReply,
  type QuestionPromptRequest,
  type QuestionReply,
  type ToolCoordinator,
  TurnState,
} from "../../src/index.js";
import {
  MockExecutor,
  MockExecutorSource,
  MockInquiryBackend,
  MockPromptBackend,
  waitForAbort,
} from "../../src/testing/index.js";
import { coordinatorFor, inquiryTrail } from "../helpers.js";
import {
  asking,
  booleanQuestion,
  call,
  macrotasks,
  toolResponses,
  UNATTENDED,
} from "../support.js";

/** A sub-agent's question, as its coordinator hands it to the parent through `escalate`. */
const subAgentQuestion: QuestionPromptRequest = {
  kind: "question",
  tool_name: "ask_user",
  tool_call_id: "child_call_1",
  inquiry_id: "child_call_1.confirm.1",
  question: booleanQuestion(),
  controls: { remember: false, back: false, reply: false, end_turn: false },
};

// Failures of the system (a backend, a sub-agent, a deadline) are recorded as what they were:
// never as the person's cancel, and never told to the model as the user's decision.

describe("an LLM inquiry whose backend reports `cancelled` while the run goes on", () => {
  it("is recorded as a backend error, and the model is told the user did not cancel", async () => {
    // The backend's own client gave up (say, its HTTP request was aborted by a proxy); the run's
    // signal never aborted and no person was asked anything.
    const llm = new MockInquiryBackend(async () =>
      err({ kind: "cancelled", message: "the request was aborted" }),
    );
    const tool = asking([booleanQuestion()]);
    const { stream, coordinator } = coordinatorFor({
      tools: { deploy: { run: "unattended", questions: { confirm: { target: "assistant" } } } },
      executors: new MockExecutorSource({ deploy: tool }),
      inquiries: llm,
    });

    await coordinator.run([call("call_1", "deploy")], { turn: new TurnState() });

    expect(inquiryTrail(stream.events)).toEqual([
      { request: "call_1.confirm.1", source: { source: "tool", name: "deploy" } },
      { response: "call_1.confirm.1", cancelled: "backend_error" },
    ]);
    const [response] = toolResponses(stream);
    expect(response?.is_error).toBe(true);
    expect(response?.content).toContain("the request was aborted");
    expect(response?.content).toContain("the user did not cancel or decline anything");
    expect(response?.content).not.toContain("cancelled by user");
  });

  it("is still the person's cancel when the person stopped the run", async () => {
    const controller = new AbortController();
    const llm = new MockInquiryBackend(async () => {
      controller.abort();
      return err({ kind: "cancelled", message: "the inquiry was cancelled" });
    });
    const { stream, coordinator } = coordinatorFor({
      tools: { deploy: { run: "unattended", questions: { confirm: { target: "assistant" } } } },
      executors: new MockExecutorSource({ deploy: asking([booleanQuestion()]) }),
      inquiries: llm,
    });

    await coordinator.run([call("call_1", "deploy")], {
      turn: new TurnState(),
      signal: controller.signal,
    });

    expect(inquiryTrail(stream.events).filter((e) => "response" in e)).toEqual([
      { response: "call_1.confirm.1", cancelled: "user" },
    ]);
  });
});

describe("a sub-agent's question that the sub-agent's side withdraws while the parent's run goes on", () => {
  it.each([
    ["", {}],
    [" (prompts with a time limit)", { promptTimeoutMs: 600_000 }],
  ])(
    "is recorded in the parent's conversation as interrupted, never as the person's cancel%s",
    async (_name, limit) => {
      // The hosting tool stops its sub-agent (a plain `abort()` of the sub-agent's own signal, as a
      // tool racing several sub-agents does); the parent's run is not stopped and the person, who
      // sees the question, does nothing.
      const withdrawn = new AbortController();
      let coordinator!: ToolCoordinator;
      let told: unknown;
      const agent = new MockExecutor(async (input) => {
        try {
          told = await coordinator.escalate(input.call.id, "researcher", subAgentQuestion, {
            signal: withdrawn.signal,
          });
        } catch (error) {
          told = error;
        }
        return { type: "success", content: "sub-agent stopped" };
      });
      const made = coordinatorFor({
        tools: UNATTENDED,
        executors: new MockExecutorSource({ research: agent }),
        prompts: new MockPromptBackend({ questions: [waitForAbort<QuestionReply>()] }),
      });
      coordinator = made.coordinator;
      const outcomes: string[] = [];
      coordinator.on("prompt-answered", ({ outcome }) => outcomes.push(outcome));
      coordinator.once("prompt-shown", () => void macrotasks(1).then(() => withdrawn.abort()));

      const { responses } = await coordinator.run([call("call_1", "research")], {
        turn: new TurnState(),
        ...limit,
      });

      expect(inquiryTrail(made.stream.events)).toEqual([
        { request: "call_1.confirm.1", source: { source: "other", name: "researcher" } },
        { response: "call_1.confirm.1", cancelled: "interrupted" },
      ]);
      expect(outcomes).toEqual(["interrupted"]);
      // The sub-agent is not told that the person cancelled either.
      expect(told).not.toEqual({ type: "cancelled" });
      expect(responses[0]?.content).toBe("sub-agent stopped");
    },
  );

  it("is still the person's cancel when the person stopped the parent's run", async () => {
    const controller = new AbortController();
    let coordinator!: ToolCoordinator;
    const agent = new MockExecutor(async (input) => {
      // The sub-agent follows the hosting tool's signal, as `subAgentPrompts` asks.
      await coordinator
        .escalate(input.call.id, "researcher", subAgentQuestion, { signal: input.signal })
        .catch(() => undefined);
      return { type: "success", content: "done" };
    });
    const made = coordinatorFor({
      tools: UNATTENDED,
      executors: new MockExecutorSource({ research: agent }),
      prompts: new MockPromptBackend({ questions: [waitForAbort<QuestionReply>()] }),
    });
    coordinator = made.coordinator;
    coordinator.once("prompt-shown", () => void macrotasks(1).then(() => controller.abort()));

    await coordinator.run([call("call_1", "research")], {
      turn: new TurnState(),
      signal: controller.signal,
    });

    expect(inquiryTrail(made.stream.events).filter((e) => "response" in e)).toEqual([
      { response: "call_1.confirm.1", cancelled: "user" },
    ]);
  });
});

describe("a sub-agent's permission prompt that the sub-agent's side withdraws", () => {
  it.each([
    ["", {}],
    [" (prompts with a time limit)", { promptTimeoutMs: 600_000 }],
  ])("is not kept or reported as the person's cancel%s", async (_name, limit) => {
    const withdrawn = new AbortController();
    let coordinator!: ToolCoordinator;
    let told: unknown;
    const agent = new MockExecutor(async (input) => {
      try {
        told = await coordinator.escalate(
          input.call.id,
          "researcher",
          {
            kind: "permission",
            tool_name: "rm",
            tool_call_id: "child_call_1",
            arguments: { path: "/tmp/x" },
            mode: "ask",
          },
          { signal: withdrawn.signal },
        );
      } catch (error) {
        told = error;
      }
      return { type: "success", content: "sub-agent stopped" };
    });
    const made = coordinatorFor({
      tools: UNATTENDED,
      executors: new MockExecutorSource({ research: agent }),
      prompts: new MockPromptBackend({ permissions: [waitForAbort<PermissionReply>()] }),
    });
    coordinator = made.coordinator;
    const outcomes: string[] = [];
    coordinator.on("prompt-answered", ({ outcome }) => outcomes.push(outcome));
    coordinator.once("prompt-shown", () => void macrotasks(1).then(() => withdrawn.abort()));

    await coordinator.run([call("call_1", "research")], { turn: new TurnState(), ...limit });

    expect(outcomes).toEqual(["interrupted"]);
    expect(told).not.toEqual({ type: "cancelled" });
  });
});
