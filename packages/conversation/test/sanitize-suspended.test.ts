import { describe, expect, it } from "vitest";
import { ConversationStream, INTERRUPTED_TOOL_CALL_CONTENT } from "../src/index.js";

const T = "2026-11-23 10:00:00.000000";
const marker = { v: 1, prompt_id: "call_1.confirm.1" };

function suspendedTurn(withMarker: boolean) {
  return [
    { timestamp: T, type: "turn_start" },
    { timestamp: T, type: "chat_request", content: "Deploy it." },
    {
      timestamp: T,
      type: "tool_call_request",
      id: "call_1",
      name: "deploy",
      arguments: {},
      ...(withMarker ? { metadata: { pending_prompt: marker } } : {}),
    },
    {
      timestamp: T,
      type: "inquiry_request",
      id: "call_1.confirm.1",
      source: { source: "tool", name: "deploy" },
      question: { text: "Deploy?", answer_type: { type: "boolean" } },
    },
  ];
}

const decode = (json: unknown[]) => ConversationStream.decode(json)._unsafeUnwrap();

describe("sanitize() and a deliberately suspended turn", () => {
  it("leaves the last turn's suspended call and its pending question alone", () => {
    const stream = decode(suspendedTurn(true));
    const report = stream.sanitize();
    expect(report.changed).toBe(false);
    expect(stream.toJSON()).toEqual(decode(suspendedTurn(true)).toJSON());
  });

  it("repairs the same turn without the marker as JP does: an interrupted call, the question dropped", () => {
    const stream = decode(suspendedTurn(false));
    const report = stream.sanitize();
    expect(report.inserted.map((c) => c.reason)).toEqual(["interrupted-tool-call"]);
    expect(report.removed.map((c) => c.reason)).toEqual(["orphaned-inquiry-request"]);
    expect(stream.events.at(-1)).toMatchObject({
      type: "tool_call_response",
      id: "call_1",
      content: INTERRUPTED_TOOL_CALL_CONTENT,
    });
  });

  it("repairs a suspended call whose turn was abandoned for a new one", () => {
    const stream = decode([
      ...suspendedTurn(true),
      { timestamp: T, type: "turn_start" },
      { timestamp: T, type: "chat_request", content: "Never mind." },
    ]);
    const report = stream.sanitize();
    expect(report.inserted.map((c) => c.reason)).toEqual(["interrupted-tool-call"]);
    expect(report.removed.map((c) => c.reason)).toEqual(["orphaned-inquiry-request"]);
  });

  it("still drops an open question of another, unsuspended call in the suspended turn", () => {
    const json = suspendedTurn(true);
    json.push({
      timestamp: T,
      type: "inquiry_request",
      id: "call_10.other.1",
      source: { source: "tool", name: "x" },
      question: { text: "Other?", answer_type: { type: "boolean" } },
    });
    const stream = decode(json);
    const report = stream.sanitize();
    expect(report.removed.map((c) => (c.event as { id?: string }).id)).toEqual(["call_10.other.1"]);
  });
});
