import { z } from "zod";
import { typeName } from "./internal/describe.js";
import { findNonJson, isPlainObject } from "./internal/json-check.js";

/**
 * Any value that survives a round trip through `JSON.stringify` / `JSON.parse` unchanged:
 * answers, question defaults and JSON Schemas are all of this shape.
 */
export type JsonValue =
  | string
  | number
  | boolean
  | null
  | JsonValue[]
  | { [key: string]: JsonValue };

/**
 * The zod schema of a {@link JsonValue}. It accepts the input as is (no copy), so keys such
 * as `"__proto__"` are kept and very deep values are checked without recursion.
 */
// Why not `z.json()`: it rebuilds every object through `z.record`, which silently drops an own
// `"__proto__"` key, and it recurses, so a deeply nested array throws a RangeError. Declaring the
// type once above and checking it iteratively keeps decoding total and lossless.
export const jsonValueSchema: z.ZodType<JsonValue> = z.custom<JsonValue>().check((ctx) => {
  const problem = findNonJson(ctx.value);
  if (problem !== undefined) {
    ctx.issues.push({
      code: "custom",
      input: problem.value,
      path: problem.path,
      message: problem.reason,
    });
  }
});

/**
 * The zod schema of a JSON object (`{ [key: string]: JsonValue }`), such as a JSON Schema.
 * Like {@link jsonValueSchema} it keeps the input object itself rather than a copy.
 */
export const jsonObjectSchema: z.ZodType<{ [key: string]: JsonValue }> = z
  .custom<{ [key: string]: JsonValue }>()
  .check((ctx) => {
    if (!isPlainObject(ctx.value)) {
      ctx.issues.push({
        code: "invalid_type",
        expected: "object",
        input: ctx.value,
        message: `expected an object, got ${typeName(ctx.value)}`,
      });
      return;
    }
    const problem = findNonJson(ctx.value);
    if (problem !== undefined) {
      ctx.issues.push({
        code: "custom",
        input: problem.value,
        path: problem.path,
        message: problem.reason,
      });
    }
  });
