import type { JsonObject } from "@jp/conversation";

/** Whether `value` is a plain JSON object (not an array, not null, not a class instance). */
export function isPlainObject(value: unknown): value is JsonObject {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** A short rendering of foreign input for error texts: JSON cut to 60 characters. */
export function describeValue(value: unknown): string {
  if (value === undefined) return "nothing";
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    text = undefined;
  }
  if (text === undefined) return typeof value;
  return text.length <= 60 ? text : `${text.slice(0, 59)}…`;
}
