import { describe, expect, it } from "vitest";
import { TurnState } from "../../src/index.js";
import { MockExecutor, MockExecutorSource, MockInquiryBackend } from "../../src/testing/index.js";
import { coordinatorFor } from "../helpers.js";

const asker = () =>
  new MockExecutor((input) =>
    input.answers.scope === undefined
      ? {
          type: "needs_input",
          question: { id: "scope", text: "Which scope?", answer_type: { type: "text" } },
        }
      : { type: "success", content: `scope: ${String(input.answers.scope)}` },
  );

describe("per-question assistant overrides (a `target` map)", () => {
  it("reach the inquiry backend with the question", async () => {
    const llm = new MockInquiryBackend({ "call_1.scope.1": "workspace" });
    const { coordinator } = coordinatorFor({
      tools: {
        lint: {
          run: "unattended",
          questions: { scope: { target: { model: { id: "anthropic/claude-haiku-4-5" } } } },
        },
      },
      executors: new MockExecutorSource({ lint: asker() }),
      inquiries: llm,
    });
    const { responses } = await coordinator.run([{ id: "call_1", name: "lint", arguments: {} }], {
      turn: new TurnState(),
    });
    expect(responses[0]?.content).toBe("scope: workspace");
    expect(llm.requests[0]?.assistantOverrides).toEqual({
      model: { id: "anthropic/claude-haiku-4-5" },
    });
  });

  it("are absent when the target is the plain string", async () => {
    const llm = new MockInquiryBackend({ "call_1.scope.1": "workspace" });
    const { coordinator } = coordinatorFor({
      tools: { lint: { run: "unattended", questions: { scope: { target: "assistant" } } } },
      executors: new MockExecutorSource({ lint: asker() }),
      inquiries: llm,
    });
    await coordinator.run([{ id: "call_1", name: "lint", arguments: {} }], {
      turn: new TurnState(),
    });
    expect(llm.requests[0]).not.toHaveProperty("assistantOverrides");
  });
});
