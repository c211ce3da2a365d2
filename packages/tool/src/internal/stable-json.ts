import type { JsonValue } from "../json.js";

/**
 * JSON text with object keys sorted, so that two structurally equal values give the same string
 * whatever their key order. Used as the cache key of compiled schemas.
 */
// Recursive: it only ever sees JSON Schemas written by tool authors, and a RangeError on an
// absurdly deep one is caught by the caller and reported as an invalid schema.
export function stableStringify(value: JsonValue): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(",")}]`;
  const entries = Object.keys(value)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${stableStringify(value[key] as JsonValue)}`);
  return `{${entries.join(",")}}`;
}
