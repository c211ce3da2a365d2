import { ConversationStream, createEvent } from "@jp/conversation";
import { describe, expect, it } from "vitest";
import {
  MCP_CALL_METADATA_KEY,
  readSuspendedCall,
  type SuspendedMcpCall,
  writeSuspendedCall,
} from "../../src/host/suspended-call.js";

const expected = { server: "github", tool: "login" };
const record: SuspendedMcpCall = {
  v: 1,
  server: "github",
  tool: "login",
  prompted: ["respond"],
  gates: { respond: 'form ["name"]' },
  spent: ["open_url", "page_done"],
  page_rounds: 1,
  round: {
    legs: 2,
    ids: ["respond", "name"],
    input_requests: { confirm: { method: "elicitation/create", params: { message: "Go?" } } },
    request_state: "opaque",
    responses: {
      earlier: {
        action: "accept",
        content: { name: "ada", age: 36, ok: true, tags: ["a"] },
        _meta: { "jp.inquiry/decision": { by: "person" } },
      },
      later: {
        action: "cancel",
        _meta: { "jp.inquiry/decision": { by: "host", reason: "timeout" } },
      },
    },
  },
};

function streamWithCall(): ConversationStream {
  const stream = ConversationStream.empty();
  stream.startTurn("Go.");
  stream.append(
    createEvent("tool_call_request", {
      id: "c1",
      name: "login",
      arguments: {},
      metadata: { other: true },
    }),
  );
  return stream;
}

// Where streamWithCall's request is: after the turn's start and the user's message.
const REQUEST = 2;

const metadataOf = (stream: ConversationStream) =>
  (stream.events.find((e) => e.type === "tool_call_request") as { metadata?: object }).metadata;

describe("the record of a suspended MCP call", () => {
  it("is written on the call's request beside other metadata, read back, and removed", () => {
    const stream = streamWithCall();
    writeSuspendedCall(stream, "c1", record);
    expect(metadataOf(stream)).toEqual({ other: true, [MCP_CALL_METADATA_KEY]: record });
    expect(readSuspendedCall(stream, "c1", expected)).toEqual(record);
    writeSuspendedCall(stream, "c1", undefined);
    expect(metadataOf(stream)).toEqual({ other: true });
    expect(readSuspendedCall(stream, "c1", expected)).toBeUndefined();
  });

  it("without a round (a pushed elicitation) keeps who answered at a prompt", () => {
    const stream = streamWithCall();
    const { round: _, ...pushed } = record;
    writeSuspendedCall(stream, "c1", pushed);
    expect(readSuspendedCall(stream, "c1", expected)).toEqual(pushed);
  });

  it.each([
    ["a newer version", { ...record, v: 2 }],
    ["another server", { ...record, server: "gitlab" }],
    ["another tool", { ...record, tool: "logout" }],
    ["prompted not a list of ids", { ...record, prompted: "respond" }],
    ["a round without legs", { ...record, round: { ...record.round, legs: 0 } }],
    ["ids that are not strings", { ...record, round: { ...record.round, ids: [1] } }],
    ["input requests not an object", { ...record, round: { ...record.round, input_requests: [] } }],
    ["a requestState not a string", { ...record, round: { ...record.round, request_state: 7 } }],
    ["gates that are not strings", { ...record, gates: { respond: 1 } }],
    ["gates that are a list", { ...record, gates: ["respond"] }],
    ["spent ids that are not strings", { ...record, spent: [1] }],
    ["a negative count of page rounds", { ...record, page_rounds: -1 }],
    ["a count of page rounds that is not whole", { ...record, page_rounds: 1.5 }],
    ["not an object", "jp"],
    ["null", null],
  ])("reads as none when it holds %s (the call then starts again)", (_, value) => {
    const stream = streamWithCall();
    stream.setMetadata(REQUEST, MCP_CALL_METADATA_KEY, value as never);
    expect(readSuspendedCall(stream, "c1", expected)).toBeUndefined();
  });

  it.each([
    ["an unknown action", { f: { action: "maybe" } }],
    ["content that is not an object", { f: { action: "accept", content: "ada" } }],
    ["_meta that is not an object", { f: { action: "decline", _meta: [] } }],
    ["a response that is not an object", { f: "accept" }],
    ["a list", [{ action: "accept" }]],
    ["content with a decline", { f: { action: "decline", content: { name: "ada" } } }],
    ["content nested deeper than a form", { f: { action: "accept", content: { n: { deep: 1 } } } }],
    ["a list of numbers in content", { f: { action: "accept", content: { n: [1, 2] } } }],
    ["_meta without who decided", { f: { action: "accept", _meta: { other: 1 } } }],
    [
      "a decision by someone unknown",
      { f: { action: "decline", _meta: { "jp.inquiry/decision": { by: "server" } } } },
    ],
    [
      "a decision with more than who and why",
      { f: { action: "decline", _meta: { "jp.inquiry/decision": { by: "person", extra: 1 } } } },
    ],
  ])(
    "keeps its round but none of its responses when they hold %s (the round then closes with the host's cancel)",
    (_, responses) => {
      const stream = streamWithCall();
      stream.setMetadata(REQUEST, MCP_CALL_METADATA_KEY, {
        ...record,
        round: { ...record.round, responses },
      } as never);
      const { responses: __, ...round } = record.round ?? ({} as never);
      expect(readSuspendedCall(stream, "c1", expected)).toEqual({ ...record, round });
    },
  );

  it("copies a response field by field: nothing else a record holds reaches the server", () => {
    const stream = streamWithCall();
    stream.setMetadata(REQUEST, MCP_CALL_METADATA_KEY, {
      ...record,
      round: {
        ...record.round,
        responses: { f: { action: "accept", content: { name: "ada" }, extra: "zzz" } },
      },
    } as never);
    expect(readSuspendedCall(stream, "c1", expected)?.round?.responses).toEqual({
      f: { action: "accept", content: { name: "ada" } },
    });
  });

  it('keeps a response under the request key "__proto__" as a key', () => {
    const stream = streamWithCall();
    stream.setMetadata(
      REQUEST,
      MCP_CALL_METADATA_KEY,
      JSON.parse(
        JSON.stringify({ ...record, round: { ...record.round, responses: {} } }).replace(
          '"responses":{}',
          '"responses":{"__proto__":{"action":"decline"}}',
        ),
      ),
    );
    const read = readSuspendedCall(stream, "c1", expected)?.round?.responses ?? {};
    expect(Object.keys(read)).toEqual(["__proto__"]);
    expect(Object.getPrototypeOf(read)).toBe(Object.prototype);
  });

  it("is looked for in the last turn only, where a suspended call is", () => {
    const stream = streamWithCall();
    writeSuspendedCall(stream, "c1", record);
    stream.append(
      createEvent("tool_call_response", { id: "c1", content: "done", is_error: false }),
    );
    stream.startTurn("Again.");
    expect(readSuspendedCall(stream, "c1", expected)).toBeUndefined();
  });
});
