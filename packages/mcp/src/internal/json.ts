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
  return cutText(escapeInvisible(text), 60);
}

// What JSON leaves as it is but a terminal or a log reader acts on or hides: DEL and the C1
// controls (0x9b opens an escape sequence), invisible format characters (bidi overrides reorder
// the text around them) and the line and paragraph separators.
const INVISIBLE = /[\u007f-\u009f\p{Cf}\u2028\u2029]/gu;

// Controls but line feed and tab, and lone surrogates (with the u flag, a surrogate class
// matches only a half without its pair).
const CONTROLS = /(?![\n\t])\p{Cc}|[\uD800-\uDFFF]/gu;

function escaped(c: string): string {
  const code = c.codePointAt(0) ?? 0;
  return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, "0")}`;
}

function escapeInvisible(text: string): string {
  return text.replace(INVISIBLE, escaped);
}

/**
 * A text a server chose (a key, a tool's name), quoted for an error text or a log line: as a
 * JSON string, with every control, format and separator character escaped, so it cannot move a
 * terminal's cursor, start an escape sequence, fake a line or reorder the text around it.
 */
export function quoted(text: string): string {
  return escapeInvisible(JSON.stringify(text));
}

/**
 * A server's free text (an error's message) for an error text the host may print: at most
 * `max` characters of it, with a note saying how long it was, then every control but line feed
 * and tab, every format and separator character escaped as in {@link quoted}.
 */
export function inertText(text: string, max: number): string {
  return escapeInvisible(cutNoted(text, max).replace(CONTROLS, escaped));
}

/**
 * `text`, cut to `limit` characters with a note saying how long it was, never between the two
 * halves of one character.
 */
export function cutNoted(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const end = /[\uD800-\uDBFF]/.test(text.charAt(limit - 1)) ? limit - 1 : limit;
  return `${text.slice(0, end)}… (cut: ${text.length} characters in all)`;
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
