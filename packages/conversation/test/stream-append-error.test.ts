import { describe, expect, it } from "vitest";
import { ConversationStream, StreamAppendError } from "../src/index.js";
import { call, chat, reply, result, turnStart } from "./support/events.js";

function thrownBy(run: () => void): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe("append throws what it refuses; tryAppend returns it", () => {
  it.each([
    {
      name: "before startTurn()",
      events: () => [chat()],
      kind: "no-turn",
      message: "no turn has started: call startTurn() first",
    },
    {
      name: "a response without its request",
      events: () => [result("t9")],
      kind: "orphaned-tool-call-response",
      message: 'tool call response "t9" has no matching request in this turn',
    },
    {
      name: "a turn_start",
      events: () => [turnStart()],
      kind: "turn-start-not-allowed",
      message: "a turn_start cannot be appended within a turn: call startTurn() instead",
    },
  ])("$name", ({ events, kind, message }) => {
    const stream = ConversationStream.empty();
    if (kind !== "no-turn") stream.startTurn("hi");
    const before = stream.length;
    const thrown = thrownBy(() => stream.append(...events()));
    expect(StreamAppendError.isInstance(thrown)).toBe(true);
    expect(thrown).toBeInstanceOf(Error);
    expect((thrown as StreamAppendError).message).toBe(message);
    expect((thrown as StreamAppendError).error.kind).toBe(kind);
    expect(stream.length).toBe(before);
    expect(stream.tryAppend(...events())._unsafeUnwrapErr()).toMatchObject({ kind, message });
  });

  it("appends all of a valid batch and returns nothing to check", () => {
    const stream = ConversationStream.empty();
    stream.startTurn("hi");
    expect(stream.append(call("t1"), result("t1"), reply())).toBeUndefined();
    expect(stream.events.map((e) => e.type)).toEqual([
      "turn_start",
      "chat_request",
      "tool_call_request",
      "tool_call_response",
      "chat_response",
    ]);
  });

  it("names the offending id in the error", () => {
    const stream = ConversationStream.empty();
    stream.startTurn("hi");
    stream.append(call("t1"), result("t1"));
    const thrown = thrownBy(() => stream.append(result("t1"))) as StreamAppendError;
    expect(thrown.error).toMatchObject({ kind: "duplicate-tool-call-response", id: "t1" });
  });
});
