import { ConversationStream, createEvent } from "@jp/conversation";
import { describe, expect, it } from "vitest";
import { ToolCoordinator, TurnState } from "../../src/index.js";
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

// A tool `echo` that succeeds at once, run without asking.
const echoing = () => ({
  tools: { echo: { run: "unattended" as const } },
  executors: new MockExecutorSource({
    echo: new MockExecutor(() => ({ type: "success", content: "ok" })),
  }),
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

  it("takes each request the host recorded once: a second call of the same id gets its own", async () => {
    const { stream, coordinator } = coordinatorFor(echoing());
    stream.append(createEvent("tool_call_request", { id: "dup", name: "echo", arguments: {} }));
    await coordinator.run(
      [
        { id: "dup", name: "echo", arguments: {} },
        { id: "dup", name: "echo", arguments: {} },
      ],
      { turn: new TurnState() },
    );
    expect(stream.events.map((e) => e.type).slice(2)).toEqual([
      "tool_call_request",
      "tool_call_request",
      "tool_call_response",
      "tool_call_response",
    ]);
  });

  it("records a new request for an id whose earlier call this turn was already answered", async () => {
    const { stream, coordinator } = coordinatorFor(echoing());
    for (let i = 0; i < 3; i++) {
      await coordinator.run([{ id: "same", name: "echo", arguments: {} }], {
        turn: new TurnState(),
      });
    }
    expect(stream.events.filter((e) => e.type === "tool_call_request")).toHaveLength(3);
    expect(stream.events.filter((e) => e.type === "tool_call_response")).toHaveLength(3);
  });

  it("does not take a request left open in an earlier turn", async () => {
    const { stream, coordinator } = coordinatorFor(echoing());
    stream.append(createEvent("tool_call_request", { id: "c1", name: "echo", arguments: {} }));
    stream.startTurn("next");
    await coordinator.run([{ id: "c1", name: "echo", arguments: {} }], { turn: new TurnState() });
    const turn = stream.events.slice(stream.events.findLastIndex((e) => e.type === "turn_start"));
    expect(turn.map((e) => e.type)).toEqual([
      "turn_start",
      "chat_request",
      "tool_call_request",
      "tool_call_response",
    ]);
  });

  it("takes a request recorded in a conversation loaded from its JSON", async () => {
    const json = [
      { timestamp: "2026-05-12 09:14:06.0", type: "turn_start" },
      { timestamp: "2026-05-12 09:14:06.1", type: "chat_request", content: "go" },
      {
        timestamp: "2026-05-12 09:14:06.2",
        type: "tool_call_request",
        id: "call_1",
        name: "echo",
        arguments: {},
      },
    ];
    const stream = ConversationStream.decode(json)._unsafeUnwrap();
    const coordinator = new ToolCoordinator({ stream, ...echoing() });
    await coordinator.run([{ id: "call_1", name: "echo", arguments: {} }], {
      turn: new TurnState(),
    });
    expect(stream.events.map((e) => e.type)).toEqual([
      "turn_start",
      "chat_request",
      "tool_call_request",
      "tool_call_response",
    ]);
  });
});
