import { encodeEvent } from "./codec.js";
import type { StreamEvent } from "./events.js";
import { inexactEntries, type RawEntry } from "./internal/exact-numbers.js";
import { editedText } from "./internal/metadata-edit.js";
import { isPlainObject } from "./json.js";

// JSON.parse reads an integer past 2^53 rounded and `-0.0` as 0. An event decoded from JSON text
// holding such a number keeps that text here, so that it is written back as it was read.
const texts = new WeakMap<object, RawEntry>();

/**
 * Notes the text of each entry of the JSON array `text` (parsed as `json`, each entry decoded as
 * `events[i]`) that holds a number JSON.parse does not read exactly. Not public API.
 */
export function rememberEventTexts(
  text: string,
  json: readonly unknown[],
  events: readonly StreamEvent[],
): void {
  for (const [i, raw] of inexactEntries(text)) {
    const entry = json[i];
    const event = events[i];
    // A redacted response found with an answer is decoded without it: never written as read.
    const stray = isPlainObject(entry) && entry.outcome === "redacted" && "answer" in entry;
    if (event !== undefined && !stray) texts.set(event, raw);
  }
}

/**
 * The JSON text of one event, for hosts that keep events as JSON text: for an event
 * decoded by `ConversationStream.decodeText` from text holding a number JSON.parse does
 * not read exactly (an integer past 2^53, a `-0.0`), that text; for an event made from such an
 * event by `setMetadata`, that text with its `metadata` member alone replaced; for any other
 * event `JSON.stringify(encodeEvent(event))` (compact).
 *
 * @example
 * const stream = ConversationStream.decodeText(text)._unsafeUnwrap();
 * const rows = stream.events.map(encodeEventText); // `12345678901234567891` stays as it is
 */
export function encodeEventText(event: StreamEvent): string {
  const kept = texts.get(event);
  if (kept !== undefined) return kept.text;
  const encoded = encodeEvent(event);
  const edited = editedText(
    event,
    (origin) => texts.get(origin)?.text,
    () => (encoded as { metadata?: unknown }).metadata,
  );
  return edited ?? JSON.stringify(encoded);
}
