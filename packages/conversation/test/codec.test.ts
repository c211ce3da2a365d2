import { describe, expect, it, vi } from "vitest";
import {
  createEvent,
  decodeEvent,
  EPOCH_TIMESTAMP,
  encodeEvent,
  formatPath,
  formatTimestamp,
  isConfigDelta,
  isConversationEvent,
  isKnownCancellationReason,
  type JsonPath,
  type StreamEvent,
} from "../src/index.js";

const T = "2026-03-05 22:12:35.693571";

type Wire = Record<string, unknown>;

function decoded(json: unknown): StreamEvent {
  const result = decodeEvent(json);
  if (result.isErr()) throw new Error(`unexpected decode error: ${result.error.message}`);
  return result.value;
}

function decodeError(json: unknown, path?: JsonPath) {
  const result = decodeEvent(json, path);
  if (result.isOk())
    throw new Error(`expected a decode error, got ${JSON.stringify(result.value)}`);
  return result.error;
}

/** What lands on disk: the JSON text, key order included. */
function canonicalText(event: StreamEvent): string {
  return JSON.stringify(encodeEvent(event, { canonical: true }));
}

// One canonical JP line per event kind, keys in JP's on-disk order.
const kinds: { name: string; wire: Wire }[] = [
  { name: "turn_start", wire: { timestamp: T, type: "turn_start" } },
  { name: "chat_request", wire: { timestamp: T, type: "chat_request", content: "Why no date?" } },
  {
    name: "chat_request with schema and author",
    wire: {
      timestamp: T,
      type: "chat_request",
      content: "Summarize",
      schema: { type: "object", properties: { summary: { type: "string" } } },
      author: "reviewer",
    },
  },
  { name: "chat_response", wire: { timestamp: T, type: "chat_response", message: "Found it." } },
  {
    name: "tool_call_request",
    wire: {
      timestamp: T,
      type: "tool_call_request",
      id: "toolu_01",
      name: "fs_read_file",
      arguments: { path: "crates/jp_cli/build.rs", start_line: 65 },
    },
  },
  {
    name: "tool_call_response",
    wire: {
      timestamp: T,
      type: "tool_call_response",
      id: "toolu_01",
      content: "fn main() {}",
      is_error: false,
    },
  },
  {
    name: "inquiry_request",
    wire: {
      timestamp: T,
      type: "inquiry_request",
      id: "toolu_01.apply_changes.1",
      source: { source: "tool", name: "fs_modify_file" },
      question: { text: "Apply the patch?", answer_type: { type: "boolean" }, default: true },
    },
  },
  {
    name: "inquiry_response",
    wire: {
      timestamp: T,
      type: "inquiry_response",
      outcome: "answered",
      id: "toolu_01.apply_changes.1",
      answer: true,
    },
  },
];

describe("the seven event kinds", () => {
  it.each(kinds)("$name decodes to its wire shape", ({ wire }) => {
    const event = decoded(structuredClone(wire));
    expect(event).toStrictEqual(wire);
    expect(isConversationEvent(event)).toBe(true);
  });

  it.each(kinds)("$name encodes canonically as timestamp, type, fields", ({ wire }) => {
    expect(canonicalText(decoded(structuredClone(wire)))).toBe(JSON.stringify(wire));
  });

  it.each(kinds)("$name writes non-empty metadata last", ({ wire }) => {
    const withMetadata = { ...wire, metadata: { cache_breakpoint: true } };
    const event = decoded(structuredClone(withMetadata));
    expect(event).toStrictEqual(withMetadata);
    expect(canonicalText(event)).toBe(JSON.stringify(withMetadata));
  });

  it.each(kinds)("$name leaves out empty metadata when encoding", ({ wire }) => {
    const event = decoded({ ...structuredClone(wire), metadata: {} });
    expect(canonicalText(event)).toBe(JSON.stringify(wire));
  });

  it.each<{ name: string; input: Wire; keys: string[] }>([
    {
      name: "tool_call_response",
      input: {
        metadata: { cache_breakpoint: true },
        is_error: false,
        content: "ok",
        id: "t1",
        type: "tool_call_response",
        timestamp: T,
      },
      keys: ["timestamp", "type", "id", "content", "is_error", "metadata"],
    },
    {
      name: "inquiry_response",
      input: {
        id: "c.q.1",
        answer: "yes",
        type: "inquiry_response",
        timestamp: T,
        outcome: "answered",
      },
      keys: ["timestamp", "type", "outcome", "id", "answer"],
    },
    {
      name: "turn_start",
      input: { type: "turn_start", metadata: { k: "v" }, timestamp: T },
      keys: ["timestamp", "type", "metadata"],
    },
  ])(
    "a $name read with its keys in any order is written timestamp, type, fields, metadata last",
    ({ input, keys }) => {
      expect(Object.keys(encodeEvent(decoded(input), { canonical: true }))).toEqual(keys);
    },
  );

  it("a created event is written timestamp, type, fields, metadata last, whatever order its fields were given in", () => {
    const event = createEvent("tool_call_response", {
      metadata: { rendered: "ok" },
      id: "t1",
      content: "ok",
      is_error: false,
      timestamp: T,
    });
    expect(JSON.stringify(encodeEvent(event))).toBe(
      `{"timestamp":"${T}","type":"tool_call_response","id":"t1","content":"ok","is_error":false,"metadata":{"rendered":"ok"}}`,
    );
  });

  it.each([
    ["with the known ones", { extra: 1, id: "t1", content: "ok", is_error: false }],
    ["with a timestamp and metadata", { extra: 1, id: "t1", timestamp: T, metadata: { m: 1 } }],
    ["alone", { extra: 1 }],
    [
      "beside a timestamp it inherits",
      Object.assign(Object.create({ timestamp: T }), { id: "t1", extra: 1 }),
    ],
  ])("a created event keeps a field of no known place, after the known ones (%s)", (_, fields) => {
    const event = createEvent("tool_call_response", fields as never) as Record<string, unknown>;
    const known = ["timestamp", "type", "id", "content", "is_error"].filter((k) => k in event);
    const last = "metadata" in fields ? ["metadata"] : [];
    expect(Object.keys(event)).toEqual([...known, "extra", ...last]);
    expect(event.extra).toBe(1);
  });

  // JP's order of each kind's fields (the response's `outcome` tag first), and a value for each.
  const ORDER: Record<string, Record<string, unknown>> = {
    tool_call_request: { id: "t1", name: "run", arguments: { a: 1 } },
    tool_call_response: { id: "t1", content: "ok", is_error: false },
    inquiry_request: {
      id: "t1.q.1",
      source: { source: "tool", name: "run" },
      question: { id: "q", text: "Go on?", answer_type: { type: "boolean" } },
    },
    inquiry_response: { outcome: "cancelled", id: "t1.q.1", answer: true, reason: "user" },
    chat_request: { content: "hi", schema: { type: "object" }, author: "me" },
  };
  it.each(Object.keys(ORDER))(
    "a created %s places any subset of its fields, given in any order, in JP's order",
    (type) => {
      const all = Object.entries(ORDER[type] as Record<string, unknown>);
      for (let subset = 0; subset < 1 << all.length; subset++) {
        const chosen = all.filter((_, i) => subset & (1 << i));
        for (const fields of [chosen, [...chosen].reverse()]) {
          const given = Object.fromEntries([["extra", 1], ...fields, ["timestamp", T]]);
          const event = createEvent(type as never, given as never) as Record<string, unknown>;
          expect(Object.entries(event)).toEqual([
            ["timestamp", T],
            ["type", type],
            ...chosen,
            ["extra", 1],
          ]);
        }
      }
    },
  );

  it("a created event keeps a field named __proto__ as its own, without changing its prototype", () => {
    const fields = JSON.parse('{"id":"t1","__proto__":{"polluted":true}}');
    const event = createEvent("tool_call_response", fields) as Record<string, unknown>;
    expect(Object.hasOwn(event, "__proto__")).toBe(true);
    expect(Object.getPrototypeOf(event)).toBe(Object.prototype);
    expect((event as { polluted?: unknown }).polluted).toBeUndefined();
  });
});

describe("inquiry_response read rules (RFD 082)", () => {
  it.each<{ name: string; input: Wire; expected: Wire }>([
    {
      name: "legacy flat {id, answer} reads as answered (backward-compat round-trip)",
      input: { timestamp: T, type: "inquiry_response", id: "call_1.answer", answer: true },
      expected: {
        timestamp: T,
        type: "inquiry_response",
        outcome: "answered",
        id: "call_1.answer",
        answer: true,
      },
    },
    {
      name: "legacy answer: null is still answered",
      input: { timestamp: T, type: "inquiry_response", id: "call_1.answer", answer: null },
      expected: {
        timestamp: T,
        type: "inquiry_response",
        outcome: "answered",
        id: "call_1.answer",
        answer: null,
      },
    },
    {
      name: "legacy multi-select answer",
      input: { timestamp: T, type: "inquiry_response", id: "call_1.pick", answer: ["a", "b"] },
      expected: {
        timestamp: T,
        type: "inquiry_response",
        outcome: "answered",
        id: "call_1.pick",
        answer: ["a", "b"],
      },
    },
    {
      name: "cancelled without a reason reads as reason user",
      input: {
        timestamp: T,
        type: "inquiry_response",
        outcome: "cancelled",
        id: "call_1.confirm.1",
      },
      expected: {
        timestamp: T,
        type: "inquiry_response",
        outcome: "cancelled",
        id: "call_1.confirm.1",
        reason: "user",
      },
    },
    {
      name: "an unknown reason is kept verbatim",
      input: {
        timestamp: T,
        type: "inquiry_response",
        outcome: "cancelled",
        id: "call_1.confirm.1",
        reason: "some_future_variant",
      },
      expected: {
        timestamp: T,
        type: "inquiry_response",
        outcome: "cancelled",
        id: "call_1.confirm.1",
        reason: "some_future_variant",
      },
    },
    {
      name: "redacted carries no answer even when the input had one",
      input: {
        timestamp: T,
        type: "inquiry_response",
        outcome: "redacted",
        id: "call_1.passphrase.1",
        answer: "hunter2",
      },
      expected: {
        timestamp: T,
        type: "inquiry_response",
        outcome: "redacted",
        id: "call_1.passphrase.1",
      },
    },
  ])("$name", ({ input, expected }) => {
    const event = decoded(input);
    expect(event).toStrictEqual(expected);
    expect(JSON.stringify(encodeEvent(event, { canonical: true }))).toBe(JSON.stringify(expected));
  });

  it.each([
    "user",
    "backend_error",
    "no_prompt_backend",
    "assistant_routing_denied",
    "invalid_static_answer",
  ])("the known reason %s is read and written as is", (reason) => {
    const wire = {
      timestamp: T,
      type: "inquiry_response",
      outcome: "cancelled",
      id: "c.q.1",
      reason,
    };
    expect(canonicalText(decoded(structuredClone(wire)))).toBe(JSON.stringify(wire));
    expect(isKnownCancellationReason(reason)).toBe(true);
  });

  it("an unknown reason round-trips: the re-encoded shape is identical to the input", () => {
    const text =
      '{"timestamp":"2026-03-05 22:13:24.147869","type":"inquiry_response","outcome":"cancelled","id":"call_1.confirm.1","reason":"some_future_variant"}';
    const event = decoded(JSON.parse(text));
    expect(event).toMatchObject({ outcome: "cancelled", reason: "some_future_variant" });
    expect(isKnownCancellationReason("some_future_variant")).toBe(false);
    expect(canonicalText(event)).toBe(text);
    expect(JSON.stringify(encodeEvent(event))).toBe(text);
  });

  it.each<{ name: string; input: Wire; path: JsonPath; message: RegExp }>([
    {
      name: "no outcome and no answer",
      input: { timestamp: T, type: "inquiry_response", id: "call_1.answer" },
      path: [],
      message: /^\(root\): inquiry_response: no `outcome` and no `answer`/,
    },
    {
      name: "an unknown outcome (names the field and the value)",
      input: { timestamp: T, type: "inquiry_response", outcome: "postponed", id: "c.q.1" },
      path: ["outcome"],
      message: /^outcome: inquiry_response: unknown outcome "postponed"/,
    },
    {
      name: "answered without an answer",
      input: { timestamp: T, type: "inquiry_response", outcome: "answered", id: "c.q.1" },
      path: ["answer"],
      message: /^answer: inquiry_response: /,
    },
    {
      name: "an id that is not a string",
      input: { timestamp: T, type: "inquiry_response", outcome: "redacted", id: 7 },
      path: ["id"],
      message: /^id: inquiry_response: /,
    },
  ])("$name is an Err", ({ input, path, message }) => {
    const error = decodeError(input);
    expect(error.kind).toBe("decode");
    expect(error.path).toEqual(path);
    expect(error.message).toMatch(message);
  });

  it("an outcome that is not JSON (a bigint) is an Err, not an exception", () => {
    const input = { timestamp: T, type: "inquiry_response", outcome: 10n, id: "c.q.1" };
    expect(() => decodeEvent(input)).not.toThrow();
    expect(decodeEvent(input).isErr()).toBe(true);
  });

  // RFD 082 "Tagged serialization": each outcome has its own shape, the tag first.
  it.each([
    {
      event: createEvent("inquiry_response", {
        timestamp: T,
        outcome: "answered",
        id: "call_1.confirm.1",
        answer: true,
      }),
      json: `{"timestamp":"${T}","type":"inquiry_response","outcome":"answered","id":"call_1.confirm.1","answer":true}`,
    },
    {
      event: createEvent("inquiry_response", {
        timestamp: T,
        outcome: "cancelled",
        id: "call_1.confirm.1",
        reason: "user",
      }),
      json: `{"timestamp":"${T}","type":"inquiry_response","outcome":"cancelled","id":"call_1.confirm.1","reason":"user"}`,
    },
    {
      event: createEvent("inquiry_response", {
        timestamp: T,
        outcome: "cancelled",
        id: "call_1.confirm.1",
        reason: "backend_error",
      }),
      json: `{"timestamp":"${T}","type":"inquiry_response","outcome":"cancelled","id":"call_1.confirm.1","reason":"backend_error"}`,
    },
    {
      event: createEvent("inquiry_response", {
        timestamp: T,
        outcome: "redacted",
        id: "call_1.passphrase.1",
      }),
      json: `{"timestamp":"${T}","type":"inquiry_response","outcome":"redacted","id":"call_1.passphrase.1"}`,
    },
  ])("tagged serialization: $json", ({ event, json }) => {
    expect(JSON.stringify(encodeEvent(event))).toBe(json);
    expect(decoded(JSON.parse(json))).toStrictEqual(event);
  });

  it("a redacted response is written without an answer field", () => {
    const event = createEvent("inquiry_response", {
      timestamp: T,
      outcome: "redacted",
      id: "c.secret.1",
    });
    expect(encodeEvent(event)).not.toHaveProperty("answer");
    expect(decoded(encodeEvent(event))).not.toHaveProperty("answer");
  });
});

describe("inquiry_request: source and question", () => {
  const request = (
    source: unknown,
    question: unknown = { text: "Go?", answer_type: { type: "boolean" } },
  ) => ({
    timestamp: T,
    type: "inquiry_request",
    id: "call_1.q.1",
    source,
    question,
  });

  it.each([
    {
      source: { source: "tool", name: "fs_modify_file" },
      json: '"source":{"source":"tool","name":"fs_modify_file"}',
    },
    { source: { source: "assistant" }, json: '"source":{"source":"assistant"}' },
    { source: { source: "user" }, json: '"source":{"source":"user"}' },
    {
      source: { source: "other", name: "sub_agent" },
      json: '"source":{"source":"other","name":"sub_agent"}',
    },
  ])("source $json decodes and encodes nested under source", ({ source, json }) => {
    const event = decoded(request(structuredClone(source)));
    expect(event).toMatchObject({ source });
    expect((event as { source: unknown }).source).toStrictEqual(source);
    expect(canonicalText(event)).toContain(`,${json},"question":`);
  });

  it.each([
    { source: { source: "robot" }, path: ["source", "source"] },
    { source: { source: "tool" }, path: ["source", "name"] },
    { source: { source: "other" }, path: ["source", "name"] },
  ])("source $source is an Err at $path", ({ source, path }) => {
    const error = decodeError(request(source), [5]);
    expect(error.path).toEqual([5, ...path]);
    expect(error.message.startsWith(`${formatPath([5, ...path])}: inquiry_request: `)).toBe(true);
  });

  const base = { text: "Apply?", answer_type: { type: "boolean" } };
  it.each<{ name: string; question: Wire; expected: Wire }>([
    {
      name: "a legacy question gets the defaults (absent)",
      question: { ...base, default: true },
      expected: { ...base, default: true },
    },
    {
      name: "exclusive: false is dropped",
      question: { ...base, exclusive: false },
      expected: base,
    },
    {
      name: 'persistence: "turn" is dropped',
      question: { ...base, persistence: "turn" },
      expected: base,
    },
    {
      name: "both defaults spelled out are dropped",
      question: { ...base, exclusive: false, persistence: "turn" },
      expected: base,
    },
    {
      name: "exclusive: true is kept",
      question: { ...base, exclusive: true },
      expected: { ...base, exclusive: true },
    },
    {
      name: 'persistence: "none" is kept',
      question: { ...base, persistence: "none" },
      expected: { ...base, persistence: "none" },
    },
    {
      name: 'exclusive: true with persistence: "turn" keeps only exclusive',
      question: { ...base, exclusive: true, persistence: "turn" },
      expected: { ...base, exclusive: true },
    },
    {
      name: 'exclusive: false with persistence: "none" keeps only persistence',
      question: { ...base, exclusive: false, persistence: "none" },
      expected: { ...base, persistence: "none" },
    },
    { name: "default: null reads as absent", question: { ...base, default: null }, expected: base },
    { name: "context: null reads as absent", question: { ...base, context: null }, expected: base },
    {
      name: "a context is kept",
      question: { ...base, context: "<diff>" },
      expected: { ...base, context: "<diff>" },
    },
    {
      name: "an unknown question field is kept",
      question: { ...base, hint: "y/n" },
      expected: { ...base, hint: "y/n" },
    },
  ])("question: $name", ({ question, expected }) => {
    const event = decoded(request({ source: "user" }, question));
    expect((event as { question: unknown }).question).toStrictEqual(expected);
    expect(encodeEvent(event, { canonical: true })).toHaveProperty("question", expected);
  });

  it.each<{ name: string; answerType: Wire }>([
    { name: "boolean", answerType: { type: "boolean" } },
    {
      name: "select",
      answerType: {
        type: "select",
        options: [{ value: "y", description: "Run tool" }, { value: "n" }],
      },
    },
    {
      name: "multi_select",
      answerType: {
        type: "multi_select",
        options: [{ value: 1 }, { value: { k: "v" }, description: "obj" }],
      },
    },
    { name: "text", answerType: { type: "text" } },
    { name: "secret", answerType: { type: "secret" } },
    { name: "schema", answerType: { type: "schema", schema: { type: "object", required: ["n"] } } },
    {
      name: "select with an unknown option field",
      answerType: { type: "select", options: [{ value: "y", color: "green" }] },
    },
  ])("answer type $name decodes and encodes unchanged", ({ answerType }) => {
    const wire = request({ source: "user" }, { text: "Pick", answer_type: answerType });
    const event = decoded(structuredClone(wire));
    expect(event).toStrictEqual(wire);
    expect(canonicalText(event)).toBe(JSON.stringify(wire));
  });

  it.each<{ name: string; answerType: unknown; path: JsonPath }>([
    {
      name: "select without options",
      answerType: { type: "select" },
      path: ["question", "answer_type", "options"],
    },
    {
      name: "an unknown answer type",
      answerType: { type: "color" },
      path: ["question", "answer_type", "type"],
    },
    {
      name: "an option without a description string",
      answerType: { type: "select", options: [{ value: 1, description: 2 }] },
      path: ["question", "answer_type", "options", 0, "description"],
    },
    {
      name: "schema that is not an object",
      answerType: { type: "schema", schema: "x" },
      path: ["question", "answer_type", "schema"],
    },
  ])("$name is an Err naming the path", ({ answerType, path }) => {
    const error = decodeError(
      request({ source: "user" }, { text: "Pick", answer_type: answerType }),
      [2],
    );
    expect(error.path).toEqual([2, ...path]);
    expect(error.message.startsWith(`${formatPath([2, ...path])}: inquiry_request: `)).toBe(true);
  });
});

describe("forward compatibility", () => {
  it.each<{ name: string; wire: Wire }>([
    {
      name: "timestamp first",
      wire: { timestamp: T, type: "compaction", from: 3, to: 40, summary: "Earlier turns" },
    },
    { name: "type first", wire: { type: "compaction", timestamp: T, summary: "Earlier turns" } },
    {
      name: "with empty metadata",
      wire: { timestamp: T, type: "compaction", summary: "s", metadata: {} },
    },
  ])("an unknown event type ($name) is returned verbatim and encoded unchanged", ({ wire }) => {
    const input = structuredClone(wire);
    const event = decoded(input);
    expect(event).toBe(input);
    expect(isConversationEvent(event)).toBe(false);
    expect(JSON.stringify(encodeEvent(event))).toBe(JSON.stringify(wire));
  });

  it.each<{ name: string; wire: Wire; field: string }>([
    {
      name: "turn_start",
      wire: { timestamp: T, type: "turn_start", turn_id: "t-1" },
      field: "turn_id",
    },
    {
      name: "chat_response",
      wire: {
        timestamp: T,
        type: "chat_response",
        message: "hi",
        model: "claude",
        metadata: { k: "v" },
      },
      field: "model",
    },
    {
      name: "tool_call_response",
      wire: {
        timestamp: T,
        type: "tool_call_response",
        id: "t",
        content: "c",
        is_error: true,
        duration_ms: 12,
      },
      field: "duration_ms",
    },
    {
      name: "inquiry_response (answered)",
      wire: {
        timestamp: T,
        type: "inquiry_response",
        outcome: "answered",
        id: "c.q.1",
        answer: 1,
        answered_by: "user",
      },
      field: "answered_by",
    },
    {
      name: "inquiry_response (redacted)",
      wire: {
        timestamp: T,
        type: "inquiry_response",
        outcome: "redacted",
        id: "c.q.1",
        audit: { by: "x" },
      },
      field: "audit",
    },
    {
      name: "config_delta",
      wire: { timestamp: T, type: "config_delta", delta: { assistant: {} }, origin: "cli" },
      field: "origin",
    },
  ])("an unknown field on $name survives decode and canonical encode", ({ wire, field }) => {
    const event = decoded(structuredClone(wire));
    expect(event).toHaveProperty(field, wire[field]);
    expect(canonicalText(event)).toBe(JSON.stringify(wire));
  });

  // Read through the full decoder (no is_error, metadata before the unknown field), so the
  // canonical encoding has to rebuild the event.
  it.each(["constructor", "toString", "hasOwnProperty"])(
    "an unknown field named %s (an Object.prototype member) survives canonical encode",
    (field) => {
      const input = {
        timestamp: T,
        type: "tool_call_response",
        id: "t",
        content: "c",
        metadata: { k: "v" },
        [field]: "v2",
      };
      const event = decoded(input);
      expect(Object.hasOwn(event, field)).toBe(true);
      expect(canonicalText(event)).toBe(
        JSON.stringify({
          timestamp: T,
          type: "tool_call_response",
          id: "t",
          content: "c",
          is_error: false,
          [field]: "v2",
          metadata: { k: "v" },
        }),
      );
    },
  );

  it("a config_delta is neither a conversation event nor an Err", () => {
    const event = decoded({
      timestamp: T,
      type: "config_delta",
      delta: { conversation: { title: "x" } },
    });
    expect(isConfigDelta(event)).toBe(true);
    expect(isConversationEvent(event)).toBe(false);
    expect(decodeError({ timestamp: T, type: "config_delta", delta: "x" }).path).toEqual(["delta"]);
  });
});

describe("field rules", () => {
  it.each([
    "2026-03-05 22:12:35.693571",
    "2020-01-01 00:00:00.0",
    "2026-03-18 12:31:42.23566",
    "2026-03-05T22:12:35.693571Z",
  ])("timestamp %s keeps its exact text", (timestamp) => {
    const event = decoded({ timestamp, type: "chat_request", content: "x" });
    expect(event).toHaveProperty("timestamp", timestamp);
    expect(encodeEvent(event, { canonical: true })).toHaveProperty("timestamp", timestamp);
  });

  it.each<{ variant: string; value: unknown }>([
    { variant: "message", value: "The date comes from build.rs." },
    { variant: "reasoning", value: "Look at LONG_VERSION first." },
    { variant: "data", value: { summary: "ok", items: [1, 2] } },
    { variant: "data", value: null },
  ])("chat_response variant $variant ($value)", ({ variant, value }) => {
    const wire = { timestamp: T, type: "chat_response", [variant]: value };
    const event = decoded(structuredClone(wire));
    expect(event).toStrictEqual(wire);
    expect(canonicalText(event)).toBe(JSON.stringify(wire));
  });

  it("tool_call_request without arguments reads as {} and is written with them", () => {
    const event = decoded({
      timestamp: T,
      type: "tool_call_request",
      id: "t1",
      name: "cargo_check",
    });
    expect(event).toStrictEqual({
      timestamp: T,
      type: "tool_call_request",
      id: "t1",
      name: "cargo_check",
      arguments: {},
    });
    expect(canonicalText(event)).toBe(
      `{"timestamp":"${T}","type":"tool_call_request","id":"t1","name":"cargo_check","arguments":{}}`,
    );
  });

  it("tool_call_response without is_error reads as a success", () => {
    const event = decoded({ timestamp: T, type: "tool_call_response", id: "t1", content: "ok" });
    expect(event).toStrictEqual({
      timestamp: T,
      type: "tool_call_response",
      id: "t1",
      content: "ok",
      is_error: false,
    });
  });
});

describe("decode errors", () => {
  it.each<{ name: string; input: unknown; message: string }>([
    { name: "null", input: null, message: "(root): expected an event object, got null" },
    { name: "an array", input: [], message: "(root): expected an event object, got an array" },
    {
      name: "a string",
      input: "turn_start",
      message: "(root): expected an event object, got a string",
    },
    { name: "a number", input: 42, message: "(root): expected an event object, got a number" },
    {
      name: "a Date",
      input: new Date(0),
      message: "(root): expected an event object, got an object",
    },
  ])("$name is not an event", ({ input, message }) => {
    const error = decodeError(input);
    expect(error).toStrictEqual({ kind: "decode", path: [], message });
  });

  it.each<{ name: string; input: Wire; message: string }>([
    {
      name: "a missing type",
      input: { timestamp: T },
      message: "[3].type: expected the event type as a string, got nothing",
    },
    {
      name: "a numeric type",
      input: { timestamp: T, type: 7 },
      message: "[3].type: expected the event type as a string, got a number",
    },
    {
      name: "a null type",
      input: { timestamp: T, type: null },
      message: "[3].type: expected the event type as a string, got null",
    },
  ])("$name is an Err at [3].type", ({ input, message }) => {
    expect(decodeError(input, [3])).toStrictEqual({ kind: "decode", path: [3, "type"], message });
  });

  it.each<{ name: string; input: Wire; path: JsonPath }>([
    {
      name: "id is a number",
      input: { timestamp: T, type: "tool_call_request", id: 5, name: "x" },
      path: ["id"],
    },
    {
      name: "timestamp is a number",
      input: { timestamp: 1, type: "chat_request", content: "x" },
      path: ["timestamp"],
    },
    { name: "timestamp is missing", input: { type: "turn_start" }, path: ["timestamp"] },
    {
      name: "content is missing",
      input: { timestamp: T, type: "chat_request" },
      path: ["content"],
    },
    {
      name: "arguments is a string",
      input: { timestamp: T, type: "tool_call_request", id: "a", name: "x", arguments: "{}" },
      path: ["arguments"],
    },
    {
      name: "is_error is a string",
      input: { timestamp: T, type: "tool_call_response", id: "a", content: "c", is_error: "no" },
      path: ["is_error"],
    },
    {
      name: "a chat_response with no variant",
      input: { timestamp: T, type: "chat_response" },
      path: ["message"],
    },
    {
      name: "metadata is an array",
      input: { timestamp: T, type: "turn_start", metadata: [] },
      path: ["metadata"],
    },
    {
      name: "question text is a number",
      input: {
        timestamp: T,
        type: "inquiry_request",
        id: "a",
        source: { source: "user" },
        question: { text: 5, answer_type: { type: "text" } },
      },
      path: ["question", "text"],
    },
  ])("$name: the message starts with the path", ({ input, path }) => {
    const error = decodeError(input, [3]);
    expect(error.kind).toBe("decode");
    expect(error.path).toEqual([3, ...path]);
    expect(error.message.startsWith(`${formatPath([3, ...path])}: ${String(input.type)}: `)).toBe(
      true,
    );
  });

  it.each<{ path: JsonPath; text: string }>([
    { path: [], text: "(root)" },
    { path: [3], text: "[3]" },
    { path: [3, "id"], text: "[3].id" },
    { path: [0, 1], text: "[0][1]" },
    { path: ["events", 3, "question", "text"], text: "events[3].question.text" },
    {
      path: [3, "question", "answer_type", "options", 0, "value"],
      text: "[3].question.answer_type.options[0].value",
    },
  ])("formatPath($path) is $text", ({ path, text }) => {
    expect(formatPath(path)).toBe(text);
  });
});

describe("write new, read both", () => {
  const legacy = { timestamp: T, type: "inquiry_response", id: "call_1.answer", answer: "yes" };

  it("encodeEvent returns the original JSON for a decoded, unchanged event (legacy stays legacy)", () => {
    const input = structuredClone(legacy);
    const event = decoded(input);
    expect(encodeEvent(event)).toBe(input);
    expect(JSON.stringify(encodeEvent(event))).toBe(JSON.stringify(legacy));
  });

  it("canonical encoding writes the legacy event in the current tagged shape", () => {
    const event = decoded(structuredClone(legacy));
    expect(canonicalText(event)).toBe(
      `{"timestamp":"${T}","type":"inquiry_response","outcome":"answered","id":"call_1.answer","answer":"yes"}`,
    );
  });

  it("a replaced event is written in the current shape", () => {
    const replaced = { ...decoded(structuredClone(legacy)) };
    expect(encodeEvent(replaced)).toStrictEqual({
      timestamp: T,
      type: "inquiry_response",
      outcome: "answered",
      id: "call_1.answer",
      answer: "yes",
    });
  });

  it("a decoded tool_call_response without is_error is written back without it", () => {
    const input = { timestamp: T, type: "tool_call_response", id: "t", content: "c" };
    expect(encodeEvent(decoded(input))).toStrictEqual({
      timestamp: T,
      type: "tool_call_response",
      id: "t",
      content: "c",
    });
  });
});

describe("createEvent", () => {
  it("stamps a JP-format UTC timestamp when none is given", () => {
    const before = Date.now();
    const event = createEvent("chat_request", { content: "hello" });
    expect(event.timestamp).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+$/);
    const stamped = Date.parse(`${event.timestamp.replace(" ", "T")}Z`);
    expect(stamped).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
    expect(stamped).toBeLessThanOrEqual(Date.now());
    expect(event).toStrictEqual({
      timestamp: event.timestamp,
      type: "chat_request",
      content: "hello",
    });
  });

  it("keeps a given timestamp", () => {
    const event = createEvent("tool_call_response", {
      timestamp: T,
      id: "t1",
      content: "ok",
      is_error: false,
    });
    expect(event).toStrictEqual({
      timestamp: T,
      type: "tool_call_response",
      id: "t1",
      content: "ok",
      is_error: false,
    });
  });

  it("lays fields out as JP does: known ones in order, unknown ones as given, metadata last", () => {
    const fields = JSON.parse(
      '{"metadata":{"k":1},"extra":true,"answer":1,"__proto__":"own","id":"i","outcome":"answered"}',
    );
    const event = createEvent("inquiry_response", { ...fields, timestamp: T });
    expect(JSON.stringify(event)).toBe(
      `{"timestamp":"${T}","type":"inquiry_response","outcome":"answered","id":"i","answer":1,"extra":true,"__proto__":"own","metadata":{"k":1}}`,
    );
    const bare = createEvent("chat_request", { content: "x", metadata: {}, timestamp: T });
    expect(Object.keys(bare)).toEqual(["timestamp", "type", "content"]);
  });

  it("creates an event that decodes back to itself", () => {
    const event = createEvent("inquiry_request", {
      timestamp: T,
      id: "call_1.confirm.1",
      source: { source: "assistant" },
      question: { text: "Proceed?", answer_type: { type: "boolean" }, exclusive: true },
    });
    expect(decoded(JSON.parse(JSON.stringify(encodeEvent(event))))).toStrictEqual(event);
  });
});

describe("formatTimestamp", () => {
  it.each<{ ms: number; text: string }>([
    { ms: Date.UTC(2026, 2, 5, 22, 12, 35, 690), text: "2026-03-05 22:12:35.69" },
    { ms: Date.UTC(2026, 2, 5, 22, 12, 35, 693), text: "2026-03-05 22:12:35.693" },
    { ms: Date.UTC(2020, 0, 1, 0, 0, 0, 0), text: "2020-01-01 00:00:00.0" },
    { ms: Date.UTC(2020, 0, 1, 0, 0, 0, 100), text: "2020-01-01 00:00:00.1" },
    { ms: Date.UTC(2020, 0, 1, 0, 0, 0, 50), text: "2020-01-01 00:00:00.05" },
    { ms: Date.UTC(2020, 0, 1, 0, 0, 0, 5), text: "2020-01-01 00:00:00.005" },
    { ms: Date.UTC(1999, 11, 31, 23, 59, 59, 999), text: "1999-12-31 23:59:59.999" },
    { ms: 0, text: EPOCH_TIMESTAMP },
  ])("$ms → $text", ({ ms, text }) => {
    expect(formatTimestamp(new Date(ms))).toBe(text);
  });

  it("formats now as it formats the same moment given as a date, across a second's turn", () => {
    const moments = [
      Date.UTC(2026, 10, 27, 8, 59, 59, 998),
      Date.UTC(2026, 10, 27, 8, 59, 59, 999),
      Date.UTC(2026, 10, 27, 9, 0, 0, 0),
      Date.UTC(2026, 10, 27, 9, 0, 0, 10),
      Date.UTC(2026, 10, 27, 9, 0, 0, 100),
      Date.UTC(2026, 10, 27, 9, 0, 0, 101),
      Date.UTC(2026, 10, 27, 9, 0, 0, 101),
      Date.UTC(2026, 10, 27, 9, 0, 1, 5),
    ];
    vi.useFakeTimers();
    try {
      for (const ms of moments) {
        vi.setSystemTime(ms);
        expect(formatTimestamp()).toBe(formatTimestamp(new Date(ms)));
      }
    } finally {
      vi.useRealTimers();
    }
  });

  it("defaults to now, in milliseconds at most", () => {
    expect(formatTimestamp()).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{1,3}$/);
    expect(EPOCH_TIMESTAMP).toBe("1970-01-01 00:00:00.0");
  });
});

describe("foreign input that names Object.prototype members", () => {
  it.each(["toString", "constructor", "valueOf", "hasOwnProperty", "__proto__"])(
    "an entry of type %j is an unknown event, kept verbatim",
    (type) => {
      const input = JSON.parse(`{"timestamp":"${T}","type":${JSON.stringify(type)},"metadata":{}}`);
      const decoded = decodeEvent(input);
      expect(decoded.isOk()).toBe(true);
      expect(encodeEvent(decoded._unsafeUnwrap())).toBe(input);
    },
  );

  it.each([
    ["null reads as user", null, "user"],
    ["a number lands on unspecified", 7, "unspecified"],
  ])("a cancelled response whose reason is not a string: %s", (_name, reason, expected) => {
    const input = {
      timestamp: T,
      type: "inquiry_response",
      outcome: "cancelled",
      id: "c.q.1",
      reason,
    };
    const decoded = decodeEvent(input)._unsafeUnwrap() as { reason: string };
    expect(decoded.reason).toBe(expected);
    // What was read is what is written back.
    expect(encodeEvent(decoded as never)).toBe(input);
  });

  it("a redacted response read with an answer is written back without it", () => {
    const input = {
      timestamp: T,
      type: "inquiry_response",
      outcome: "redacted",
      id: "c.q.1",
      answer: "leak",
    };
    const written = JSON.stringify(encodeEvent(decodeEvent(input)._unsafeUnwrap()));
    expect(written).not.toContain("leak");
  });
});
