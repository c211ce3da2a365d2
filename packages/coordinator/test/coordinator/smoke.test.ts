import { describe, expect, it } from "vitest";
import { TurnState } from "../../src/index.js";
import { MockExecutor, MockExecutorSource, MockPromptBackend } from "../../src/testing/index.js";
import { coordinatorFor, inquiryTrail } from "../helpers.js";

const confirm = () =>
  new MockExecutor((input) =>
    input.answers.confirm === undefined
      ? {
          type: "needs_input",
          question: { id: "confirm", text: "Go?", answer_type: { type: "boolean" } },
        }
      : { type: "success", content: `confirmed: ${String(input.answers.confirm)}` },
  );

describe("ToolCoordinator", () => {
  it("asks a human, records the pair, re-runs the tool with the answer", async () => {
    const human = new MockPromptBackend({ questions: [{ type: "answer", value: true }] });
    const { stream, coordinator } = coordinatorFor({
      tools: { confirm: { run: "unattended" } },
      executors: new MockExecutorSource({ confirm: confirm() }),
      prompts: human,
    });
    const result = await coordinator.run([{ id: "call_1", name: "confirm", arguments: {} }], {
      turn: new TurnState(),
    });
    expect(result.responses.map((r) => [r.content, r.is_error])).toEqual([
      ["confirmed: true", false],
    ]);
    expect(inquiryTrail(stream.events)).toEqual([
      { request: "call_1.confirm.1", source: { source: "tool", name: "confirm" } },
      { response: "call_1.confirm.1", answered: true },
    ]);
    expect(stream.events.map((e) => e.type)).toEqual([
      "turn_start",
      "chat_request",
      "tool_call_request",
      "inquiry_request",
      "inquiry_response",
      "tool_call_response",
    ]);
  });
});

describe("recording the tool calls", () => {
  it("does not record a request again when the host already did, even as a copy", async () => {
    const human = new MockPromptBackend({ questions: [{ type: "answer", value: true }] });
    const { stream, coordinator } = coordinatorFor({
      tools: { confirm: { run: "unattended" } },
      executors: new MockExecutorSource({ confirm: confirm() }),
      prompts: human,
    });
    const request = {
      timestamp: "2026-05-12 09:14:06.009871",
      type: "tool_call_request",
      id: "call_1",
      name: "confirm",
      arguments: {},
    } as const;
    stream.append(request);
    await coordinator.run([{ ...request }], { turn: new TurnState() });
    expect(stream.events.filter((e) => e.type === "tool_call_request")).toHaveLength(1);
    expect(stream.events.filter((e) => e.type === "tool_call_response")).toHaveLength(1);
  });
});
