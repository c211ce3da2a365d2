import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { JsonValue } from "../../src/index.js";
import { decodeOutcome } from "../../src/index.js";
import { canonicalQuestion } from "../../src/internal/canonical-question.js";
import { decodeWith } from "../../src/internal/decode.js";
import { questionSchemas } from "../../src/question.js";

// The fast reading of canonical questions is held to the zod schemas: whatever it accepts, the
// schemas decode to the same question, with the same key order.

const json = fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<JsonValue>;
const options = fc.array(fc.oneof(fc.string(), fc.integer()), { maxLength: 4 });
const answerType = fc.oneof(
  fc.constantFrom("boolean", "text", "secret", "Boolean", "nope").map((type) => ({ type })),
  fc.record({ type: fc.constantFrom("select", "multi_select"), options }),
  fc.record({ type: fc.constant("schema"), schema: fc.dictionary(fc.string(), json) }),
  fc.constantFrom("Text", { Select: { options: ["a"] } }, null),
  fc.record({ type: fc.constant("boolean"), extra: json }),
);

/** Questions near the canonical shape: valid ones, and every way of being a little off. */
const nearQuestion = fc.record(
  {
    id: fc.oneof(fc.constantFrom("go", "a.b", "", "__proto__"), fc.string()),
    text: fc.oneof(fc.string(), fc.constant(null)),
    context: fc.oneof(fc.string(), fc.constant(null)),
    answer_type: answerType,
    default: fc.oneof(json, fc.constant(undefined)),
    exclusive: fc.oneof(fc.boolean(), fc.constant(null)),
    persistence: fc.constantFrom("none", "turn", null, "forever"),
    pre_amble: fc.string(),
    extra: json,
  },
  { requiredKeys: [] },
);

/** Questions as tools build them, mostly canonical. */
const builtQuestion = fc.record(
  {
    id: fc.oneof(fc.constantFrom("go", "q_1", "a.b", ""), fc.string()),
    text: fc.string(),
    context: fc.string(),
    answer_type: answerType,
    default: json,
    exclusive: fc.constantFrom(true, true, false),
    persistence: fc.constantFrom("none", "none", "turn"),
  },
  { requiredKeys: ["id", "text", "answer_type"] },
);

const questions = fc.oneof(builtQuestion, nearQuestion);
const schemas = () => questionSchemas();

describe("canonicalQuestion", () => {
  it.each([
    ["decodeQuestion", true, () => schemas().question],
    ["defineQuestion", false, () => schemas().shape],
  ] as const)("agrees with the schemas used by %s", (_name, checkId, schema) => {
    let read = 0;
    fc.assert(
      fc.property(questions, (input) => {
        const fast = canonicalQuestion(input, checkId);
        if (fast === undefined) return;
        read++;
        const slow = decodeWith(schema(), input, "question");
        expect(slow.isOk()).toBe(true);
        expect(fast).toStrictEqual(slow._unsafeUnwrap());
        expect(JSON.stringify(fast)).toBe(JSON.stringify(slow._unsafeUnwrap()));
      }),
      { numRuns: 2000 },
    );
    // The comparison is only worth something if the fast reading is taken often.
    expect(read).toBeGreaterThan(50);
  });

  it("reads the questions tools build", () => {
    const built = {
      id: "q1",
      text: "Which?",
      context: "Some context",
      answer_type: { type: "select", options: ["a", "b"] },
      default: "a",
      exclusive: true,
      persistence: "none",
    };
    expect(canonicalQuestion(built, true)).toStrictEqual(built);
    expect(
      canonicalQuestion({ id: "q", text: "?", answer_type: { type: "boolean" } }, true),
    ).toEqual({ id: "q", text: "?", answer_type: { type: "boolean" } });
  });

  it.each([
    ["a dotted id", { id: "a.b", text: "?", answer_type: { type: "text" } }],
    ["a legacy answer type", { id: "a", text: "?", answer_type: "Text" }],
    ["pre_amble", { id: "a", text: "?", answer_type: { type: "text" }, pre_amble: "x" }],
    ["a null default", { id: "a", text: "?", answer_type: { type: "text" }, default: null }],
    ["exclusive: false", { id: "a", text: "?", answer_type: { type: "text" }, exclusive: false }],
    ["an unknown field", { id: "a", text: "?", answer_type: { type: "text" }, extra: 1 }],
  ])("leaves %s to the schemas", (_name, input) => {
    expect(canonicalQuestion(input, true)).toBeUndefined();
  });

  it("leaves a value whose getter throws to the schemas, which report it", () => {
    const hostile = {
      id: "a",
      text: "?",
      get answer_type(): never {
        throw new Error("boom");
      },
    };
    expect(canonicalQuestion(hostile, true)).toBeUndefined();
  });
});

describe("decodeOutcome's fast reading", () => {
  const nearOutcome = fc.record(
    {
      type: fc.constantFrom("success", "error", "needs_input", "other"),
      content: fc.oneof(fc.string(), fc.integer()),
      message: fc.oneof(fc.string(), fc.constant(null)),
      trace: fc.oneof(fc.array(fc.string()), fc.array(json)),
      transient: fc.oneof(fc.boolean(), fc.constant("yes")),
      question: questions,
      extra: json,
    },
    { requiredKeys: ["type"] },
  );

  it("decodes exactly as the schema does", async () => {
    const { outcomeSchema } = await import("../../src/index.js");
    fc.assert(
      fc.property(nearOutcome, (input) => {
        const decoded = decodeOutcome(input);
        const slow = decodeWith(outcomeSchema, input, "outcome");
        expect(decoded.isOk()).toBe(slow.isOk());
        if (decoded.isOk()) {
          expect(decoded.value).toStrictEqual(slow._unsafeUnwrap());
          expect(JSON.stringify(decoded.value)).toBe(JSON.stringify(slow._unsafeUnwrap()));
        } else expect(decoded.error).toStrictEqual(slow._unsafeUnwrapErr());
      }),
      { numRuns: 2000 },
    );
  });
});
