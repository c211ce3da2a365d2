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
  return cutText(text, 60);
}

/**
 * `text` in at most `max` UTF-16 units: longer text keeps its start and ends in "…", never cut
 * between the two halves of a character beyond U+FFFF (a lone half is invalid in the JSON of a
 * model's request and in a saved conversation).
 */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = /[\uD800-\uDBFF]/.test(text.charAt(max - 2)) ? max - 2 : max - 1;
  return `${text.slice(0, end)}…`;
}
