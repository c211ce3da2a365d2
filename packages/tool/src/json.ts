import type { z } from "zod";
import { typeName } from "./internal/describe.js";
import { findNonJson, isPlainObject } from "./internal/json-check.js";
import { lazy, lazySchema, zod } from "./internal/lazy.js";

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

// Built on first use (see internal/lazy.ts): importing the package does not load zod.
export const jsonSchemas = lazy(() => {
  const value = zod()
    .custom<JsonValue>()
    .check((ctx) => {
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
  const object = zod()
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
  return { value: value as z.ZodType<JsonValue>, object: object as z.ZodType<JsonObject> };
});

/** A JSON object, such as a JSON Schema. */
type JsonObject = { [key: string]: JsonValue };

/**
 * The zod schema of a {@link JsonValue}. It accepts the input as is (no copy), so keys such
 * as `"__proto__"` are kept and very deep values are checked without recursion.
 */
// Why not `z.json()`: it rebuilds every object through `z.record`, which silently drops an own
// `"__proto__"` key, and it recurses, so a deeply nested array throws a RangeError. Declaring the
// type once above and checking it iteratively keeps decoding total and lossless.
export const jsonValueSchema: z.ZodType<JsonValue> = lazySchema(() => jsonSchemas().value);
