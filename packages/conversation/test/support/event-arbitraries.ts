import fc from "fast-check";
import { KNOWN_CANCELLATION_REASONS } from "../../src/index.js";

// Valid events for property tests, shaped as JP writes them.

// JSON-text-stable values: what JSON.parse(JSON.stringify(v)) gives back unchanged (no -0).
export const json = fc
  .jsonValue({ maxDepth: 2 })
  .map((v) => JSON.parse(JSON.stringify(v)) as unknown);
export const str = fc.string({ maxLength: 12 });
const object = fc.dictionary(str, json, { maxKeys: 3, noNullPrototype: true });
const nonEmptyObject = fc.dictionary(str, json, { minKeys: 1, maxKeys: 3, noNullPrototype: true });
// Unknown fields a newer version might write; prefixed so they never collide with known ones.
const extras = fc.dictionary(
  str.map((s) => `x_${s}`),
  json,
  { maxKeys: 2, noNullPrototype: true },
);

/** An event's fields, as the arbitraries build them. */
export type Fields = Record<string, unknown>;

function kind(type: string, fields: fc.Arbitrary<Fields>): fc.Arbitrary<Fields> {
  return fc
    .tuple(str, fields, extras, fc.option(nonEmptyObject, { nil: undefined }))
    .map(([timestamp, f, x, metadata]) => {
      const event: Fields = { timestamp, type, ...f, ...x };
      if (metadata !== undefined) event.metadata = metadata;
      return event;
    });
}

const option = fc.record(
  { value: json, description: str },
  { requiredKeys: ["value"], noNullPrototype: true },
);
const answerType: fc.Arbitrary<Fields> = fc.oneof(
  fc.constantFrom("boolean", "text", "secret").map((type) => ({ type })),
  fc.record(
    {
      type: fc.constantFrom("select", "multi_select"),
      options: fc.array(option, { maxLength: 3 }),
    },
    { noNullPrototype: true },
  ),
  fc.record({ type: fc.constant("schema"), schema: object }, { noNullPrototype: true }),
);
const question = fc.record(
  {
    text: str,
    answer_type: answerType,
    default: json.filter((v) => v !== null),
    context: str,
    exclusive: fc.constant(true),
    persistence: fc.constant("none"),
    x_hint: str,
  },
  { requiredKeys: ["text", "answer_type"], noNullPrototype: true },
);
const source: fc.Arbitrary<Fields> = fc.oneof(
  fc.record({ source: fc.constantFrom("tool", "other"), name: str }, { noNullPrototype: true }),
  fc.constantFrom("assistant", "user").map((s) => ({ source: s })),
);
const reason = fc.oneof(fc.constantFrom(...KNOWN_CANCELLATION_REASONS), str);

/** Valid events of each conversation type, in canonical form, some with unknown `x_` fields. */
export const arbitraries: Record<string, fc.Arbitrary<Fields>> = {
  turn_start: kind("turn_start", fc.constant({})),
  chat_request: kind(
    "chat_request",
    fc.record(
      { content: str, schema: object, author: str },
      { requiredKeys: ["content"], noNullPrototype: true },
    ),
  ),
  chat_response: kind(
    "chat_response",
    fc.oneof(
      str.map((message) => ({ message })),
      str.map((reasoning) => ({ reasoning })),
      json.map((data) => ({ data })),
    ),
  ),
  tool_call_request: kind(
    "tool_call_request",
    fc.record({ id: str, name: str, arguments: object }, { noNullPrototype: true }),
  ),
  tool_call_response: kind(
    "tool_call_response",
    fc.record({ id: str, content: str, is_error: fc.boolean() }, { noNullPrototype: true }),
  ),
  inquiry_request: kind(
    "inquiry_request",
    fc.record({ id: str, source, question }, { noNullPrototype: true }),
  ),
  inquiry_response: kind(
    "inquiry_response",
    fc.oneof(
      fc.record(
        { outcome: fc.constant("answered"), id: str, answer: json },
        { noNullPrototype: true },
      ),
      fc.record({ outcome: fc.constant("cancelled"), id: str, reason }, { noNullPrototype: true }),
      fc.record({ outcome: fc.constant("redacted"), id: str }, { noNullPrototype: true }),
    ),
  ),
};
