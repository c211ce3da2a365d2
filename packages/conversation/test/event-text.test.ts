import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  ConversationStream,
  createEvent,
  encodeEvent,
  encodeEventText,
  type StreamEvent,
} from "../src/index.js";
import { arbitraries } from "./support/event-arbitraries.js";

// Events kept as JSON text elsewhere (a database column): an event holding a number JSON.parse
// does not read exactly (an integer past 2^53, a -0.0) is written back as its text.

const BIG = "12345678901234567891";

const TURN = '{"timestamp":"2026-04-10 17:04:24.0","type":"turn_start"}';
const CALL =
  '{"timestamp":"2026-04-10 17:04:25.0","type":"tool_call_request","id":"call_1",' +
  `"name":"lookup","arguments":{"user":"ada","n":${BIG},"z":-0.0,"ids":[${BIG},-0.0],` +
  '"plain":[1,-2,0.5,-0.25,3e10,12345]}}';
const CALL_WITH_METADATA = `${CALL.slice(0, -1)},"metadata":{"kept":${BIG},"other":"x"}}`;
const REPLY =
  '{"timestamp":"2026-04-10 17:04:26.0","type":"tool_call_response","id":"call_1",' +
  '"content":"found","is_error":false}';

const decodeText = (text: string) => ConversationStream.decodeText(text)._unsafeUnwrap();
const plain = (event: StreamEvent) => JSON.stringify(encodeEvent(event));

describe("ConversationStream.decodeText", () => {
  it("decodes as decode does, and each event's text round trips, exact numbers included", () => {
    const text = `[${TURN}, ${CALL},\n ${REPLY}]`;
    const stream = decodeText(text);
    expect(stream.toJSON()).toEqual(
      ConversationStream.decode(JSON.parse(text))._unsafeUnwrap().toJSON(),
    );
    expect(stream.events.map(encodeEventText)).toEqual([TURN, CALL, REPLY]);
    expect(`[${stream.events.map(encodeEventText).join(",")}]`).toContain(BIG);
    // Decoded from the text written, the same text comes out.
    const again = decodeText(`[${stream.events.map(encodeEventText).join(",")}]`);
    expect(again.events.map(encodeEventText)).toEqual([TURN, CALL, REPLY]);
  });

  it("an empty array is an empty stream", () => {
    expect(decodeText("[]").length).toBe(0);
    expect(decodeText(" [ ] ").length).toBe(0);
  });

  it.each([
    ["invalid JSON", "[{", "invalid JSON"],
    ["an empty text", "", "invalid JSON"],
    ["text after the array", `[${TURN}] x`, "invalid JSON"],
    ["an object", TURN, "expected an array of events"],
    ["a number", BIG, "expected an array of events"],
    ["null", "null", "expected an array of events"],
    ["an entry that is not an event", "[1]", "expected an event object"],
    ["an event without a type", '[{"timestamp":"x"}]', "type"],
  ])("%s is an error, never an exception", (_, text, says) => {
    const decoded = ConversationStream.decodeText(text);
    expect(decoded.isErr()).toBe(true);
    expect(decoded._unsafeUnwrapErr().message).toContain(says);
  });

  it("a value that is not a string is an error, never an exception", () => {
    const decoded = ConversationStream.decodeText(42 as unknown as string);
    expect(decoded._unsafeUnwrapErr().message).toContain("expected the text");
  });
});

describe("encodeEventText", () => {
  it("splices the metadata setMetadata changed into the text, exact numbers kept", () => {
    const stream = decodeText(`[${TURN},${CALL}]`);
    stream.setMetadata(1, "pending", { v: 1, at: "now" })._unsafeUnwrap();
    const set = encodeEventText(stream.events[1] as StreamEvent);
    expect(set).toBe(`${CALL.slice(0, -1)},"metadata":{"pending":{"v":1,"at":"now"}}}`);
    expect(JSON.parse(set)).toEqual(encodeEvent(stream.events[1] as StreamEvent));

    stream.setMetadata(1, "pending", undefined)._unsafeUnwrap();
    expect(encodeEventText(stream.events[1] as StreamEvent)).toBe(CALL);
  });

  it("keeps the text of metadata members not changed, and removes the one removed", () => {
    const stream = decodeText(`[${CALL_WITH_METADATA}]`);
    stream.setMetadata(0, "other", "y")._unsafeUnwrap();
    expect(encodeEventText(stream.events[0] as StreamEvent)).toBe(
      `${CALL.slice(0, -1)},"metadata":{"kept":${BIG},"other":"y"}}`,
    );
    stream.setMetadata(0, "other", undefined)._unsafeUnwrap();
    stream.setMetadata(0, "kept", undefined)._unsafeUnwrap();
    expect(encodeEventText(stream.events[0] as StreamEvent)).toBe(CALL);
  });

  it("an event replaced otherwise than by setMetadata is encoded as usual", () => {
    const stream = decodeText(`[${TURN},${CALL}]`);
    const call = stream.events[1] as StreamEvent;
    const copy = { ...call } as StreamEvent;
    expect(encodeEventText(copy)).toBe(plain(copy));
    expect(encodeEventText(copy)).not.toContain(BIG);
  });

  it("a redacted response read with an answer is written without it", () => {
    const text =
      '[{"timestamp":"2026-04-10 17:04:27.0","type":"inquiry_response","outcome":"redacted",' +
      `"id":"q1","answer":${BIG}}]`;
    const event = decodeText(text).events[0] as StreamEvent;
    expect(encodeEventText(event)).toBe(plain(event));
    expect(encodeEventText(event)).not.toContain("answer");
  });

  it.each([
    ["a created event", createEvent("chat_request", { content: "hi" })],
    ["a created event with metadata", createEvent("turn_start", { metadata: { a: [1, "b"] } })],
    ["an event of an unknown type", { timestamp: "t", type: "future", x: -1 } as StreamEvent],
    [
      "a legacy shape",
      ConversationStream.decode([
        { timestamp: "t", type: "inquiry_response", id: "q", answer: true },
      ])._unsafeUnwrap().events[0] as StreamEvent,
    ],
  ])("%s is JSON.stringify(encodeEvent(event))", (_, event) => {
    expect(encodeEventText(event)).toBe(plain(event));
  });

  it("gives JSON.stringify(encodeEvent(event)) for every event holding no such number", () => {
    const events = fc.oneof(...Object.values(arbitraries));
    fc.assert(
      fc.property(
        fc.array(events, { maxLength: 4 }),
        fc.string(),
        fc.jsonValue(),
        (json, key, value) => {
          const text = JSON.stringify(json);
          const decoded = ConversationStream.decode(JSON.parse(text));
          if (decoded.isErr()) return;
          for (const event of decoded.value.events)
            expect(encodeEventText(event)).toBe(plain(event));
          const stream = decodeText(text);
          for (const event of stream.events) expect(encodeEventText(event)).toBe(plain(event));
          if (stream.length === 0) return;
          const safe = JSON.parse(JSON.stringify(value)) as never;
          stream.setMetadata(0, key, safe)._unsafeUnwrap();
          const edited = stream.events[0] as StreamEvent;
          expect(encodeEventText(edited)).toBe(plain(edited));
        },
      ),
      { numRuns: 300 },
    );
  });
});
