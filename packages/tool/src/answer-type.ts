import type { Result } from "neverthrow";
import type { z } from "zod";
import type { DecodeError } from "./errors.js";
import { decodeWith } from "./internal/decode.js";
import { describeJson } from "./internal/describe.js";
import { isPlainObject } from "./internal/json-check.js";
import { lazy, lazySchema, zod } from "./internal/lazy.js";
import { jsonSchemas } from "./json.js";

/** JP's old externally-tagged unit variants, e.g. `"Boolean"`, and their tagged `type`. */
const LEGACY_UNIT_VARIANTS = new Map([
  ["Boolean", "boolean"],
  ["Text", "text"],
  ["Secret", "secret"],
]);

/** JP's old externally-tagged struct variants, e.g. `{"Select":{"options":[…]}}`. */
const LEGACY_STRUCT_VARIANTS = new Map([
  ["Select", "select"],
  ["MultiSelect", "multi_select"],
  ["Schema", "schema"],
]);

/**
 * Rewrites JP's older serde form into the tagged form; anything else passes through unchanged so
 * that zod reports it. A `Map` (not an object literal) keeps `"toString"` from matching.
 */
function upgradeLegacyAnswerType(input: unknown): unknown {
  if (typeof input === "string") {
    const type = LEGACY_UNIT_VARIANTS.get(input);
    return type === undefined ? input : { type };
  }
  if (!isPlainObject(input) || Object.hasOwn(input, "type")) return input;
  const keys = Object.keys(input);
  const [key] = keys;
  const type = key === undefined ? undefined : LEGACY_STRUCT_VARIANTS.get(key);
  if (keys.length !== 1 || key === undefined || type === undefined) return input;
  const body = input[key];
  return isPlainObject(body) ? { ...body, type } : input;
}

// Built on first use (see internal/lazy.ts): importing the package does not load zod.
export const answerTypeSchemas = lazy(() => {
  const z = zod();
  const optionsSchema = z.array(z.string());
  const tagged = z.discriminatedUnion(
    "type",
    [
      z.object({ type: z.literal("boolean") }),
      z.object({ type: z.literal("select"), options: optionsSchema }),
      z.object({ type: z.literal("multi_select"), options: optionsSchema }),
      z.object({ type: z.literal("text") }),
      z.object({ type: z.literal("secret") }),
      z.object({ type: z.literal("schema"), schema: jsonSchemas().object }),
    ],
    {
      // A bare string that is not a legacy name deserves a hint at both accepted spellings. zod's
      // typing only admits union issues here, but a non-object input arrives as `invalid_type`.
      error: (issue) =>
        (issue.code as string) === "invalid_type"
          ? `expected an answer type such as {"type":"text"} or "Text", got ${describeJson(issue.input)}`
          : undefined,
    },
  );
  return { answerType: z.preprocess(upgradeLegacyAnswerType, tagged) };
});

/**
 * The zod schema of an {@link AnswerType}. It decodes both the tagged form and JP's older
 * externally-tagged form (`"Boolean"`, `{"Select":{"options":[…]}}`), and outputs the tagged form.
 */
export const answerTypeSchema = lazySchema(() => answerTypeSchemas().answerType);

/**
 * What kind of answer a question expects, tagged on `type`: `boolean`, `select` / `multi_select`
 * (with `options`), `text`, `secret`, or `schema` (a JSON Schema object the answer must satisfy).
 */
export type AnswerType = z.infer<typeof answerTypeSchema>;

/**
 * Decodes an answer type from foreign JSON, accepting the legacy serde form too. Never throws;
 * error paths refer to the tagged form.
 */
export function decodeAnswerType(json: unknown): Result<AnswerType, DecodeError> {
  return decodeWith(answerTypeSchemas().answerType, json, "answer_type");
}
