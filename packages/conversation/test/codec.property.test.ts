import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  CONVERSATION_EVENT_TYPES,
  decodeEvent,
  encodeEvent,
  formatPath,
  type StreamEvent,
} from "../src/index.js";
import { arbitraries, type Fields } from "./support/event-arbitraries.js";

const RUNS = { numRuns: 400 };
const KNOWN_TYPES = [...CONVERSATION_EVENT_TYPES, "config_delta"];
const FIELD_NAMES = [
  "id",
  "name",
  "arguments",
  "content",
  "is_error",
  "message",
  "reasoning",
  "data",
  "schema",
  "author",
  "source",
  "question",
  "outcome",
  "answer",
  "reason",
  "delta",
  "metadata",
];

/** decodeEvent's contract: a Result, never an exception; an Err's message starts with its path. */
function decodesWithoutThrowing(input: unknown): void {
  const result = decodeEvent(input, [7]);
  if (result.isErr()) {
    expect(result.error.kind).toBe("decode");
    expect(result.error.path[0]).toBe(7);
    expect(result.error.message.startsWith(`${formatPath(result.error.path)}: `)).toBe(true);
  }
}

// ---- anything at all -------------------------------------------------------------------------

const richAnything = fc.anything({
  maxDepth: 3,
  withBigInt: true,
  withBoxedValues: true,
  withDate: true,
  withMap: true,
  withSet: true,
  withNullPrototype: true,
  withObjectString: true,
  withSparseArray: true,
  withTypedArray: true,
});

const eventLike = fc
  .tuple(
    fc.constantFrom(...KNOWN_TYPES),
    fc.oneof(fc.string(), richAnything),
    fc.dictionary(
      fc.constantFrom(...FIELD_NAMES),
      fc.oneof(fc.jsonValue({ maxDepth: 2 }), richAnything),
      {
        maxKeys: 6,
      },
    ),
    fc.record(
      {
        source: fc.record(
          {
            source: fc.constantFrom("tool", "assistant", "user", "other", "x"),
            name: richAnything,
          },
          { requiredKeys: [] },
        ),
        question: fc.record(
          {
            text: fc.oneof(fc.string(), richAnything),
            answer_type: fc.record(
              {
                type: fc.constantFrom(
                  "boolean",
                  "select",
                  "multi_select",
                  "text",
                  "secret",
                  "schema",
                  "x",
                ),
                options: fc.array(
                  fc.oneof(
                    fc.record(
                      { value: richAnything, description: richAnything },
                      { requiredKeys: [] },
                    ),
                    richAnything,
                  ),
                  { maxLength: 3 },
                ),
                schema: richAnything,
              },
              { requiredKeys: [] },
            ),
            default: richAnything,
            context: richAnything,
            exclusive: richAnything,
            persistence: fc.oneof(fc.constantFrom("none", "turn"), richAnything),
          },
          { requiredKeys: [] },
        ),
        outcome: fc.oneof(fc.constantFrom("answered", "cancelled", "redacted"), richAnything),
      },
      { requiredKeys: [] },
    ),
  )
  .map(([type, timestamp, fields, structured]) => ({ timestamp, type, ...fields, ...structured }));

describe("decodeEvent never throws", () => {
  it("on any JSON value", () => {
    fc.assert(fc.property(fc.jsonValue(), decodesWithoutThrowing), RUNS);
  });

  it("on anything (default fc.anything)", () => {
    fc.assert(fc.property(fc.anything(), decodesWithoutThrowing), RUNS);
  });

  it("on anything, including bigints, boxed values, maps, sets and null prototypes", () => {
    fc.assert(fc.property(richAnything, decodesWithoutThrowing), RUNS);
  });

  it("on objects with a known type and random field values", () => {
    fc.assert(fc.property(eventLike, decodesWithoutThrowing), { numRuns: 500 });
  });

  describe("on 100 000-deep nesting (no stack overflow)", () => {
    const DEPTH = 100_000;
    let deepArray: unknown = [];
    let deepObject: unknown = {};
    for (let i = 0; i < DEPTH; i++) {
      deepArray = [deepArray];
      deepObject = { a: deepObject };
    }
    const T = "2026-03-05 22:12:35.693571";

    it.each<{ name: string; input: unknown }>([
      {
        name: "tool arguments (array)",
        input: {
          timestamp: T,
          type: "tool_call_request",
          id: "a",
          name: "x",
          arguments: { a: deepArray },
        },
      },
      {
        name: "tool arguments (object)",
        input: {
          timestamp: T,
          type: "tool_call_request",
          id: "a",
          name: "x",
          arguments: deepObject,
        },
      },
      {
        name: "structured chat data",
        input: { timestamp: T, type: "chat_response", data: deepArray },
      },
      {
        name: "an answer",
        input: {
          timestamp: T,
          type: "inquiry_response",
          outcome: "answered",
          id: "q",
          answer: deepArray,
        },
      },
      {
        name: "a legacy answer",
        input: { timestamp: T, type: "inquiry_response", id: "q", answer: deepObject },
      },
      { name: "a config delta", input: { timestamp: T, type: "config_delta", delta: deepObject } },
      { name: "metadata", input: { timestamp: T, type: "turn_start", metadata: { a: deepArray } } },
      {
        name: "a question default",
        input: {
          timestamp: T,
          type: "inquiry_request",
          id: "q",
          source: { source: "user" },
          question: { text: "?", answer_type: { type: "text" }, default: deepArray },
        },
      },
      { name: "an unknown event", input: { timestamp: T, type: "future", payload: deepArray } },
    ])("in $name", ({ input }) => {
      const result = decodeEvent(input);
      expect(result.isOk()).toBe(true);
      expect(() => encodeEvent(result._unsafeUnwrap(), { canonical: true })).not.toThrow();
    });

    it("as the event itself", () => {
      expect(decodeEvent(deepArray).isErr()).toBe(true);
    });

    it("with a wrong type deep inside", () => {
      let bad: unknown = [undefined];
      for (let i = 0; i < DEPTH; i++) bad = [bad];
      const result = decodeEvent({ timestamp: T, type: "chat_response", data: bad }, [1]);
      expect(result.isErr()).toBe(true);
      expect(result._unsafeUnwrapErr().message.startsWith("[1].data: chat_response: ")).toBe(true);
    });
  });
});

// ---- valid events in canonical form ----------------------------------------------------------

/** What `events.json` holds after a save: the canonical JSON text, parsed back. */
function throughDisk(event: Fields): unknown {
  return JSON.parse(JSON.stringify(encodeEvent(event as StreamEvent, { canonical: true })));
}

// The same event as older or looser writers spell it: defaults written out, nulls for absent
// optionals, legacy flat answers, a cancelled response without a reason, empty metadata.
function looseSpelling(event: Fields): Fields {
  const out: Fields = { ...event };
  if (out.metadata === undefined) out.metadata = {};
  switch (out.type) {
    case "tool_call_request":
      if (Object.keys(out.arguments as object).length === 0) delete out.arguments;
      break;
    case "tool_call_response":
      if (out.is_error === false) delete out.is_error;
      break;
    case "inquiry_request": {
      const q: Fields = { ...(out.question as Fields) };
      q.exclusive ??= false;
      q.persistence ??= "turn";
      q.default ??= null;
      q.context ??= null;
      out.question = q;
      break;
    }
    case "inquiry_response":
      if (out.outcome === "answered") delete out.outcome;
      else if (out.outcome === "cancelled" && out.reason === "user") delete out.reason;
      break;
  }
  return out;
}

describe.each(Object.entries(arbitraries))("a valid %s", (type, arbitrary) => {
  it("decodes from its canonical encoding to a deep-equal event", () => {
    fc.assert(
      fc.property(arbitrary, (event) => {
        const decoded = decodeEvent(throughDisk(event));
        expect(decoded.isOk() ? decoded.value : decoded.error).toStrictEqual(event);
      }),
      RUNS,
    );
  });

  it("is encoded timestamp, type, fields, metadata last, whatever order its keys are in", () => {
    const shuffled = arbitrary.chain((event) => {
      const keys = Object.keys(event);
      return fc
        .shuffledSubarray(keys, { minLength: keys.length, maxLength: keys.length })
        .map((order) => ({ event, order }));
    });
    fc.assert(
      fc.property(shuffled, ({ event, order }) => {
        const reordered: Fields = {};
        for (const key of order) reordered[key] = event[key];
        const known = Object.keys(event).filter((k) => !k.startsWith("x_") && k !== "metadata");
        const extra = order.filter((k) => k.startsWith("x_"));
        const expected = [
          ...known,
          ...extra,
          ...(event.metadata === undefined ? [] : ["metadata"]),
        ];
        const decoded = decodeEvent(reordered)._unsafeUnwrap();
        expect(Object.keys(encodeEvent(decoded, { canonical: true }))).toEqual(expected);
        if (type === "inquiry_response") expect(expected[2]).toBe("outcome");
      }),
      RUNS,
    );
  });

  it("decodes from older and looser spellings to the same canonical encoding", () => {
    fc.assert(
      fc.property(arbitrary, (event) => {
        const decoded = decodeEvent(JSON.parse(JSON.stringify(looseSpelling(event))));
        expect(decoded.isOk(), decoded.isErr() ? decoded.error.message : "").toBe(true);
        // Key order is the previous property's concern; this one is about the values.
        expect(encodeEvent(decoded._unsafeUnwrap(), { canonical: true })).toStrictEqual(
          encodeEvent(event as StreamEvent, { canonical: true }),
        );
      }),
      RUNS,
    );
  });
});
