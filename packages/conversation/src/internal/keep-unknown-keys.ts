import type { z } from "zod";
import { setOwn } from "../json.js";
import { zod } from "./lazy.js";

/**
 * Wraps an object schema so that fields it does not declare survive decoding, while the
 * inferred type stays exact (no `[key: string]: unknown` index signature that would hide typos).
 * Keys listed in `drop` are removed on purpose (a redacted response never carries an answer).
 */
export function keepUnknownKeys<S extends z.ZodObject>(schema: S, drop: readonly string[] = []) {
  const skip = new Set([...Object.keys(schema.shape), ...drop]);
  return zod()
    .unknown()
    .transform((input, ctx): z.output<S> => {
      const parsed = schema.safeParse(input);
      if (!parsed.success) {
        for (const issue of parsed.error.issues) {
          ctx.addIssue({ code: "custom", message: issue.message, path: issue.path });
        }
        return zod().NEVER;
      }
      const out = parsed.data as Record<string, unknown>;
      const source = input as Record<string, unknown>;
      for (const key in source) if (!skip.has(key)) setOwn(out, key, source[key]);
      return out as z.output<S>;
    });
}
