import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type AnswerType,
  decodeAnswerType,
  decodeOutcome,
  decodeQuestion,
  encodeQuestion,
  isExclusive,
  type JsonValue,
  type Question,
  reusePolicy,
} from "../src/index.js";

const decoders = { decodeAnswerType, decodeQuestion, decodeOutcome };

// fast-check types its JSON objects with optional members; ours are exact, hence the casts.
const json = fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<JsonValue>;
const jsonObject = fc.dictionary(fc.string(), json, { maxKeys: 4 });
const options = fc.array(fc.string(), { maxLength: 5 });

const answerType: fc.Arbitrary<AnswerType> = fc.oneof(
  fc.constant({ type: "boolean" as const }),
  fc.record({ type: fc.constant("select" as const), options }),
  fc.record({ type: fc.constant("multi_select" as const), options }),
  fc.constant({ type: "text" as const }),
  fc.constant({ type: "secret" as const }),
  fc.record({ type: fc.constant("schema" as const), schema: jsonObject }),
);

/** A question the way decoding outputs it: defaults omitted, no top-level null default. */
const canonicalQuestion: fc.Arbitrary<Question> = fc.record(
  {
    id: fc.string({ minLength: 1 }).filter((id) => !id.includes(".")),
    text: fc.string(),
    context: fc.string(),
    answer_type: answerType,
    default: json.filter((value) => value !== null),
    exclusive: fc.constant(true),
    persistence: fc.constant("none" as const),
  },
  { requiredKeys: ["id", "text", "answer_type"] },
);

/** Any valid question, including fields spelled out at their defaults. */
const anyQuestion: fc.Arbitrary<Question> = fc
  .tuple(
    canonicalQuestion,
    fc.option(fc.boolean()),
    fc.option(fc.constantFrom("none", "turn") as fc.Arbitrary<"none" | "turn">),
  )
  .map(([question, exclusive, persistence]) => ({
    ...question,
    ...(exclusive === null ? {} : { exclusive }),
    ...(persistence === null ? {} : { persistence }),
  }));

describe.each(Object.entries(decoders))("%s never throws", (_name, decode) => {
  it("on any JSON value", () => {
    fc.assert(fc.property(fc.jsonValue(), (json) => void decode(json)));
  });

  it("on anything at all", () => {
    fc.assert(
      fc.property(
        fc.anything({ withMap: true, withSet: true, withDate: true }),
        (value) => void decode(value),
      ),
    );
  });

  it("on values shaped almost like the real thing", () => {
    const nearMiss = fc.record({
      type: fc.constantFrom("success", "error", "needs_input", "boolean", "select", "Select"),
      id: fc.anything(),
      text: fc.anything(),
      answer_type: fc.oneof(answerType, fc.anything()),
      question: fc.anything(),
      options: fc.anything(),
      Select: fc.anything(),
    });
    fc.assert(fc.property(nearMiss, (value) => void decode(value)));
  });
});

describe("question round trip", () => {
  it("decodeQuestion(encodeQuestion(q)) deep-equals q for canonical questions", () => {
    fc.assert(
      fc.property(canonicalQuestion, (question) => {
        const decoded = decodeQuestion(encodeQuestion(question));
        expect(decoded.isOk() && decoded.value).toEqual(question);
      }),
    );
  });

  it("survives JSON text and keeps the meaning of default-valued fields", () => {
    fc.assert(
      fc.property(anyQuestion, (question) => {
        // Compared with the JSON text read back, since JSON itself turns -0 into 0.
        const wire: unknown = JSON.parse(JSON.stringify(encodeQuestion(question)));
        const decoded = decodeQuestion(wire);
        expect(decoded.isOk() && decoded.value).toEqual(wire);
        if (decoded.isOk()) {
          expect(isExclusive(decoded.value)).toBe(isExclusive(question));
          expect(reusePolicy(decoded.value)).toBe(reusePolicy(question));
        }
      }),
    );
  });
});

describe("deep input", () => {
  it("a 100 000-deep default decodes without a stack overflow", () => {
    let deep: JsonValue = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const decoded = decodeQuestion({ id: "q", text: "t", answer_type: "Text", default: deep });
    expect(decoded.isOk()).toBe(true);
  });
});
