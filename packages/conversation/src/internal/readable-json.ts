// JSON.stringify writes a lone surrogate (half of a character beyond U+FFFF, as a cut of text by
// UTF-16 index leaves it) as an escape such as `\ud83d`. JavaScript reads that back, but JP's
// reader (serde_json) refuses it ("lone leading surrogate"), and then cannot load the file at all.
// Text about to be saved has each such escape replaced by U+FFFD, the character a lone surrogate
// already becomes in a string stored as base64 (encoded as UTF-8). Escaped pairs (in entries
// written back as they were read) are valid JSON for JP and stay.

// An escaped backslash (so that the `\u` of `\\ud83d`, a backslash then text, is never read as an
// escape), an escaped surrogate pair, or a lone surrogate's escape: matched from the start, every
// backslash is the start of an escape.
const ESCAPES =
  /\\\\|\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}|\\u[dD][89a-fA-F][0-9a-fA-F]{2}/g;

/**
 * JSON text JP can read: `text` with the escape of each lone surrogate replaced by U+FFFD. Text
 * without a surrogate's escape, nearly all, is returned as it is after two substring searches.
 */
export function readableJson(text: string): string {
  // JSON.stringify writes lowercase escapes; text read from disk may hold either case.
  if (!text.includes("\\ud") && !text.includes("\\uD")) return text;
  return text.replace(ESCAPES, (found) => (found.length === 6 ? "\ufffd" : found));
}
