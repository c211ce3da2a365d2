import type { ExecutorResult } from "@jp/coordinator";
import { cutText, isPlainObject } from "../internal/json.js";
import { MAX_LABEL_LENGTH } from "./form-questions.js";
import { MAX_URL_LENGTH } from "./url-check.js";

/**
 * The longest text of a tool's result the model is given (and the conversation records), in
 * characters, unless the connection sets another: a longer one is cut, saying how long it was.
 */
export const DEFAULT_MAX_RESULT_LENGTH = 100_000;

/**
 * A `tools/call` result as the coordinator's `completed` result: text blocks joined by blank
 * lines; other blocks (images, audio, resources) named with their type so the model knows they
 * were there; `structuredContent` as JSON when there is no text. At most `maxLength` characters
 * of it are kept, never cut inside a character; a longer text ends in a note giving its whole
 * length. Never throws.
 */
export function completedFromToolResult(
  result: unknown,
  maxLength = DEFAULT_MAX_RESULT_LENGTH,
): ExecutorResult {
  const record = isPlainObject(result) ? result : {};
  const blocks = Array.isArray(record.content) ? record.content : [];
  const text = new BoundedText(maxLength);
  for (const block of blocks) {
    if (!isPlainObject(block)) continue;
    if (block.type === "text" && typeof block.text === "string") text.add(block.text);
    else if (block.type === "resource_link" && typeof block.uri === "string")
      text.add(`[resource link: ${cutText(block.uri, MAX_URL_LENGTH)}]`);
    else if (typeof block.type === "string") {
      const mime =
        typeof block.mimeType === "string" ? ` ${cutText(block.mimeType, MAX_LABEL_LENGTH)}` : "";
      text.add(`[${cutText(block.type, MAX_LABEL_LENGTH)}${mime}]`);
    }
  }
  if (text.empty && record.structuredContent !== undefined) {
    text.add(jsonText(record.structuredContent));
  }
  return { type: "completed", content: text.content(), is_error: record.isError === true };
}

/**
 * Parts joined by blank lines, holding no more than the first `max` characters (and one more,
 * to tell a cut from a fit) while counting the whole length.
 */
class BoundedText {
  #text = "";
  #length = 0;
  #parts = 0;

  constructor(readonly max: number) {}

  get empty(): boolean {
    return this.#parts === 0;
  }

  add(part: string): void {
    const separator = this.#parts === 0 ? "" : "\n\n";
    this.#parts += 1;
    this.#length += separator.length + part.length;
    const room = this.max + 1 - this.#text.length;
    // Only what may be kept is copied: a part may be far longer than the limit.
    if (room > 0) this.#text += `${separator}${part.slice(0, room)}`.slice(0, room);
  }

  content(): string {
    if (this.#length <= this.max) return this.#text;
    // A pair of UTF-16 code units is one character: never cut between them.
    const end = /[\uD800-\uDBFF]/.test(this.#text.charAt(this.max - 1)) ? this.max - 1 : this.max;
    return `${this.#text.slice(0, end)}… (cut: ${this.#length} characters in all)`;
  }
}

// A value as JSON; one nested deeper than this process can write (JSON.parse reads any depth,
// JSON.stringify recurses) is named instead of throwing.
function jsonText(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "";
  } catch {
    return "[structured content nested too deeply to show]";
  }
}
