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

  it("tells the questions of suspended calls whose ids hold dots from those of other calls", () => {
    const call = (id: string, suspended: boolean) => ({
      timestamp: T,
      type: "tool_call_request",
      id,
      name: "deploy",
      arguments: {},
      ...(suspended ? { metadata: { pending_prompt: { v: 1, prompt_id: `${id}.q.1` } } } : {}),
    });
    const question = (id: string) => ({
      timestamp: T,
      type: "inquiry_request",
      id,
      source: { source: "tool", name: "deploy" },
      question: { text: "Go?", answer_type: { type: "boolean" } },
    });
    const stream = decode([
      { timestamp: T, type: "turn_start" },
      { timestamp: T, type: "chat_request", content: "Deploy it." },
      call("a.b", true),
      call("a.b.c.d", true),
      call("a", false),
      call("x.y", false),
      question("a.b.q.1"),
      question("a.b.c.d.q.1"),
      question("a.q.1"),
      question("a.bq.1"),
      question("x.y.q.1"),
      question("a.b"),
    ]);
    const report = stream.sanitize();
    expect(report.removed.map((c) => (c.event as { id?: string }).id)).toEqual([
      "a.q.1",
      "a.bq.1",
      "x.y.q.1",
      "a.b",
    ]);
    expect(report.inserted.map((c) => (c.event as { id?: string }).id)).toEqual(["a", "x.y"]);
  });

  it("keeps every pending question of a turn with many suspended calls", () => {
    const json: unknown[] = [
      { timestamp: T, type: "turn_start" },
      { timestamp: T, type: "chat_request", content: "Deploy all." },
    ];
    for (let i = 0; i < 500; i++) {
      json.push({
        timestamp: T,
        type: "tool_call_request",
        id: `call_${i}`,
        name: "deploy",
        arguments: {},
        metadata: { pending_prompt: { v: 1, prompt_id: `call_${i}.confirm.1` } },
      });
    }
    for (let i = 0; i < 500; i++) {
      json.push({
        timestamp: T,
        type: "inquiry_request",
        id: `call_${i}.confirm.1`,
        source: { source: "tool", name: "deploy" },
        question: { text: "Deploy?", answer_type: { type: "boolean" } },
      });
    }
    json.push({
      timestamp: T,
      type: "inquiry_request",
      id: "call_500.confirm.1",
      source: { source: "tool", name: "deploy" },
      question: { text: "Deploy?", answer_type: { type: "boolean" } },
    });
    const stream = decode(json);
    const report = stream.sanitize();
    expect(report.removed.map((c) => (c.event as { id?: string }).id)).toEqual([
      "call_500.confirm.1",
    ]);
    expect(report.inserted).toEqual([]);
  });
});
