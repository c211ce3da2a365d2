import { lazy, zod } from "./internal/lazy.js";
import { noteNumber } from "./internal/numbers-seen.js";

/** Any JSON value, as `JSON.parse` produces it. */
export type JsonValue =
  | string
  | number
  | boolean
  | null
  | JsonValue[]
  | { [key: string]: JsonValue };

/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue };

/**
 * Whether `value` is plain JSON data (no `undefined`, functions, class instances, non-finite
 * numbers). Iterative, so a deeply nested document cannot overflow the call stack.
 */
export function isJsonValue(value: unknown): value is JsonValue {
  return checkShallow(value, 0);
}

// Recursion is fast for the shallow data events carry; past a modest depth the check switches to
// an explicit stack so hostile nesting cannot overflow the call stack.
const MAX_RECURSION = 64;

function checkShallow(value: unknown, depth: number): boolean {
  switch (typeof value) {
    case "string":
    case "boolean":
      return true;
    case "number":
      noteNumber(value);
      return Number.isFinite(value);
    case "object":
      break;
    default:
      return false;
  }
  if (value === null) return true;
  if (depth >= MAX_RECURSION) return checkDeep(value);
  if (Array.isArray(value)) {
    for (const item of value) if (!checkShallow(item, depth + 1)) return false;
    return true;
  }
  if (!isPlainObject(value)) return false;
  for (const key in value) if (!checkShallow(value[key], depth + 1)) return false;
  return true;
}

function checkDeep(value: unknown): boolean {
  const pending: unknown[] = [value];
  // Objects built in code can be cyclic (JSON.parse output never is); a cycle is not JSON.
  const seen = new Set<object>();
  while (pending.length > 0) {
    const next = pending.pop();
    if (typeof next === "object" && next !== null) {
      if (seen.has(next)) return false;
      seen.add(next);
    }
    if (next === null || typeof next === "string" || typeof next === "boolean") continue;
    if (typeof next === "number") {
      noteNumber(next);
      if (!Number.isFinite(next)) return false;
      continue;
    }
    if (Array.isArray(next)) {
      for (const item of next) pending.push(item);
      continue;
    }
    if (!isPlainObject(next)) return false;
    for (const key in next) pending.push(next[key]);
  }
  return true;
}

/** Whether `value` is a plain object (`{}` literal or `JSON.parse` output), not an array. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Whether `value` is a JSON object: a plain object holding only JSON data. */
export function isJsonObject(value: unknown): value is JsonObject {
  return isPlainObject(value) && isJsonValue(value);
}

// Checked without cloning: event payloads (tool arguments, config deltas) can be large, and a
// cloning schema would double both the time and the memory of a decode. Built on first use (see
// internal/lazy.ts).
export const jsonSchemas = lazy(() => ({
  value: zod().custom<JsonValue>(isJsonValue, { message: "expected JSON data" }),
  object: zod().custom<JsonObject>(isJsonObject, { message: "expected a JSON object" }),
}));

/**
 * Sets an own property, also for a key named `__proto__` (plain assignment would change the
 * object's prototype instead and lose the data).
 */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") {
    Object.defineProperty(target, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  } else {
    target[key] = value;
  }
}
