import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeWithSchemas } from "../src/codec.js";
import { isCanonicalEvent } from "../src/internal/canonical.js";

// The fast path must never accept what the schemas would read differently: whatever it takes
// as canonical, the full decoder turns into a deep-equal event.
const types = [
  "turn_start",
  "chat_request",
  "chat_response",
  "tool_call_request",
  "tool_call_response",
  "inquiry_request",
  "inquiry_response",
  "config_delta",
];
const value = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom("tool", "assistant", "user", "other", "answered", "cancelled", "redacted"),
);
const answerType = fc.oneof(
  fc.record({ type: fc.constantFrom("boolean", "text", "secret", "select", "schema", "x") }),
  fc.record({
    type: fc.constantFrom("select", "multi_select"),
    options: fc.array(
      fc.record(
        { value, description: fc.option(fc.string(), { nil: undefined }) },
        { requiredKeys: ["value"] },
      ),
    ),
  }),
  fc.record({ type: fc.constant("schema"), schema: fc.dictionary(fc.string(), value) }),
);
const candidate = fc.record(
  {
    timestamp: fc.oneof(fc.string(), fc.integer()),
    type: fc.constantFrom(...types),
    id: fc.oneof(fc.string(), fc.integer()),
    name: fc.string(),
    content: fc.oneof(fc.string(), fc.constant(null)),
    message: fc.string(),
    reasoning: fc.string(),
    data: value,
    arguments: fc.oneof(fc.dictionary(fc.string(), value), value),
    is_error: fc.oneof(fc.boolean(), fc.constant("no")),
    outcome: fc.constantFrom("answered", "cancelled", "redacted", "other"),
    answer: value,
    reason: fc.oneof(fc.string(), fc.integer()),
    delta: fc.oneof(fc.dictionary(fc.string(), value), value),
    metadata: fc.oneof(fc.dictionary(fc.string(), value), fc.constant({})),
    source: fc.oneof(
      fc.record({ source: fc.constantFrom("tool", "other"), name: fc.string() }),
      fc.record({ source: fc.constantFrom("assistant", "user", "robot") }),
      fc.record({ source: fc.constant("tool"), name: fc.string(), extra: value }),
    ),
    question: fc.record(
      {
        text: fc.oneof(fc.string(), fc.integer()),
        answer_type: answerType,
        default: value,
        context: fc.oneof(fc.string(), fc.constant(null)),
        exclusive: fc.boolean(),
        persistence: fc.constantFrom("none", "turn", "always"),
      },
      { requiredKeys: ["text", "answer_type"] },
    ),
    extra: value,
  },
  { requiredKeys: ["timestamp", "type"] },
);

describe("the canonical fast path", () => {
  it("accepts only what the schemas decode to the same event", () => {
    let accepted = 0;
    fc.assert(
      fc.property(candidate, (input) => {
        if (!isCanonicalEvent(input)) return;
        accepted++;
        const decoded = decodeWithSchemas(input, input.type);
        expect(decoded.isOk()).toBe(true);
        // toEqual rather than toStrictEqual: fast-check builds null-prototype records.
        expect(decoded._unsafeUnwrap()).toEqual(input);
        expect(Object.keys(decoded._unsafeUnwrap()).sort()).toEqual(Object.keys(input).sort());
      }),
      { numRuns: 3000 },
    );
    // The generator must reach the fast path often enough for the property to mean something.
    expect(accepted).toBeGreaterThan(100);
  });
});
