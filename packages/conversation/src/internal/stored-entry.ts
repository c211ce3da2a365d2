import { decodedOrUndefined, decodeEvent, encodeEvent } from "../codec.js";
import { isConfigDelta, isConversationEvent, type StreamEvent } from "../events.js";
import { isJsonValue, isPlainObject } from "../json.js";
import type { AtRestReader } from "./at-rest.js";
import { isAnswerType, isSource } from "./canonical.js";
import {
  holdsInexactNumber,
  noteNumber,
  uncheckedFieldsHoldInexactNumber,
} from "./numbers-seen.js";

// One pass over an entry of `events.json` as `JSON.parse` made it, for the entries this package
// and current JP write: a known event, valid, its keys in JP's order and nothing else, every
// string at rest in the base64 this package writes. Such an entry is its own in-memory event once
// its strings at rest are decoded, and saving it again writes it as it was read.
//
// The general path does the same in several passes (at-rest decoding into a copy, the canonical
// check, the layout check, a walk for numbers JSON.parse may have rounded), each cheap, together
// most of a load's time. Whatever this pass takes, the general path reads to a deep-equal event
// with nothing to keep for write-back; a property test holds it to that. Anything else (legacy
// shapes, unknown types or fields, keys out of order, text that is not base64, nesting deeper
// than {@link MAX_DEPTH}) is left to the general path, which has the error messages.

type Obj = Record<string, unknown>;

// Each known type's keys in the order JP writes them (see FIELD_ORDER in codec.ts).
const KEYS: Readonly<Record<string, readonly string[]>> = {
  turn_start: ["timestamp", "type", "metadata"],
  chat_request: ["timestamp", "type", "content", "schema", "author", "metadata"],
  chat_response: ["timestamp", "type", "message", "reasoning", "data", "metadata"],
  tool_call_request: ["timestamp", "type", "id", "name", "arguments", "metadata"],
  tool_call_response: ["timestamp", "type", "id", "content", "is_error", "metadata"],
  inquiry_request: ["timestamp", "type", "id", "source", "question", "metadata"],
  inquiry_response: ["timestamp", "type", "outcome", "id", "answer", "reason", "metadata"],
  config_delta: ["timestamp", "type", "delta", "metadata"],
};

const QUESTION_KEYS: readonly string[] = [
  "text",
  "answer_type",
  "default",
  "context",
  "exclusive",
  "persistence",
];

// Deeper values take the general path, which walks them without recursion.
const MAX_DEPTH = 64;

/**
 * The in-memory event of one entry of `events.json`, decoded in one pass, or `undefined`: the
 * entry takes the general path. `entry` must be `JSON.parse` output (no `undefined`, no class
 * instances, no cycles; a number past a double's range, such as `1e400`, is read as infinite and
 * left to the general path, which refuses it). Its strings at rest are decoded in place; an
 * entry left to the general path is given back as it was. Numbers `JSON.parse` may have rounded
 * are noted in `numbersSeen`, as the general path notes them.
 */
export function decodeStoredEntry(entry: unknown, reader: AtRestReader): StreamEvent | undefined {
  if (typeof entry !== "object" || entry === null || Array.isArray(entry)) return undefined;
  const event = entry as Obj;
  const { type } = event;
  if (typeof type !== "string" || typeof event.timestamp !== "string") return undefined;
  const keys = Object.hasOwn(KEYS, type) ? KEYS[type] : undefined;
  if (keys === undefined || !inOrder(event, keys)) return undefined;
  reader.exact = true;
  const decoded = valid(event, type, reader);
  if (decoded === undefined || !reader.exact) {
    restore();
    return undefined;
  }
  replaced.length = 0;
  return decoded;
}

// The event (`entry` itself, its strings at rest decoded in place) if it is valid, else undefined.
function valid(event: Obj, type: string, reader: AtRestReader): StreamEvent | undefined {
  if (event.metadata !== undefined) {
    const { metadata } = event;
    if (!isObject(metadata) || isEmpty(metadata) || !decodedInPlace(metadata, reader, 1))
      return undefined;
  }
  switch (type) {
    case "turn_start":
      break;
    case "chat_request":
      if (typeof event.content !== "string") return undefined;
      if (event.schema !== undefined && !(isObject(event.schema) && isJsonValue(event.schema)))
        return undefined;
      if (event.author !== undefined && typeof event.author !== "string") return undefined;
      break;
    case "chat_response":
      if (!isChatResponse(event)) return undefined;
      break;
    case "tool_call_request":
      if (typeof event.id !== "string" || typeof event.name !== "string") return undefined;
      if (!isObject(event.arguments) || !decodedInPlace(event.arguments, reader, 1))
        return undefined;
      break;
    case "tool_call_response": {
      const { content } = event;
      if (typeof event.id !== "string" || typeof content !== "string") return undefined;
      if (typeof event.is_error !== "boolean") return undefined;
      replaced.push(event, "content", content);
      event.content = reader.decode(content);
      break;
    }
    case "inquiry_request":
      if (typeof event.id !== "string" || !isSource(event.source)) return undefined;
      if (!isQuestion(event.question)) return undefined;
      break;
    case "inquiry_response":
      if (!isInquiryResponse(event)) return undefined;
      break;
    default:
      // config_delta
      if (!isObject(event.delta) || !isJsonValue(event.delta)) return undefined;
  }
  return event as StreamEvent;
}

// Whether the keys of `event` are among `keys`, in that order.
function inOrder(event: Obj, keys: readonly string[]): boolean {
  let at = 0;
  for (const key in event) {
    while (at < keys.length && keys[at] !== key) at++;
    if (at === keys.length) return false;
    at++;
  }
  return true;
}

function isObject(value: unknown): value is Obj {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isEmpty(value: Obj): boolean {
  for (const _ in value) return false;
  return true;
}

// Exactly one of `message`, `reasoning` (text) and `data` (JSON).
function isChatResponse(event: Obj): boolean {
  const { message, reasoning, data } = event;
  if (message !== undefined) {
    return typeof message === "string" && reasoning === undefined && data === undefined;
  }
  if (reasoning !== undefined) return typeof reasoning === "string" && data === undefined;
  return data !== undefined && isJsonValue(data);
}

// The answer, the reason or neither, as the outcome says; nothing else.
function isInquiryResponse(event: Obj): boolean {
  if (typeof event.id !== "string") return false;
  const { answer, reason } = event;
  switch (event.outcome) {
    case "answered":
      return answer !== undefined && reason === undefined && isJsonValue(answer);
    case "cancelled":
      return answer === undefined && typeof reason === "string";
    case "redacted":
      return answer === undefined && reason === undefined;
    default:
      return false;
  }
}

// A question with its known fields only, options with `value` and `description` only: every
// number in it then passes through `isJsonValue`, which notes those JSON.parse may have rounded.
function isQuestion(value: unknown): boolean {
  if (!isObject(value) || !keysAmong(value, QUESTION_KEYS)) return false;
  if (typeof value.text !== "string" || !isAnswerType(value.answer_type)) return false;
  const options = (value.answer_type as Obj).options;
  if (Array.isArray(options)) {
    for (const option of options) {
      for (const key in option as Obj) if (key !== "value" && key !== "description") return false;
    }
  }
  if (value.default !== undefined && (value.default === null || !isJsonValue(value.default)))
    return false;
  if (value.context !== undefined && typeof value.context !== "string") return false;
  if (value.exclusive !== undefined && value.exclusive !== true) return false;
  return value.persistence === undefined || value.persistence === "none";
}

// Whether every key of `value` is among `keys`, in any order.
function keysAmong(value: Obj, keys: readonly string[]): boolean {
  for (const key in value) if (!keys.includes(key)) return false;
  return true;
}

// The strings replaced in the entry being read, as (container, key, text at rest) triples, put
// back if the entry is left to the general path: decoding in place allocates nothing but the
// decoded strings.
const replaced: unknown[] = [];

// Decodes every string of a JSON container in place from base64 (numbers noted); false for one
// nested deeper than MAX_DEPTH or holding a number JSON.parse read as infinite (`1e400`), which
// is not JSON data.
function decodedInPlace(value: Obj | unknown[], reader: AtRestReader, depth: number): boolean {
  if (depth > MAX_DEPTH) return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      if (!decodedItem(value as unknown as Obj, i, reader, depth)) return false;
    }
  } else {
    for (const key in value) if (!decodedItem(value, key, reader, depth)) return false;
  }
  return true;
}

// decodedInPlace for the item of `container` at `key`.
function decodedItem(
  container: Obj,
  key: string | number,
  reader: AtRestReader,
  depth: number,
): boolean {
  const item = container[key];
  if (typeof item === "string") {
    replaced.push(container, key, item);
    container[key] = reader.decode(item);
    return true;
  }
  if (typeof item === "number") {
    noteNumber(item);
    return Number.isFinite(item);
  }
  if (typeof item === "object" && item !== null) {
    return decodedInPlace(item as Obj | unknown[], reader, depth + 1);
  }
  return true;
}

// Puts back what decodedInPlace replaced. Every key replaced is an own data property (a key
// named `__proto__` included), so plain assignment sets it and never a prototype.
function restore(): void {
  for (let i = 0; i < replaced.length; i += 3) {
    (replaced[i] as Obj)[replaced[i + 1] as string] = replaced[i + 2];
  }
  replaced.length = 0;
}

/** What the general path reads from one entry of `events.json`. */
export interface StoredEntry {
  /** The in-memory event. */
  readonly event: StreamEvent;
  /** Whether a save must write the entry as it was read: saving `event` would write it otherwise. */
  readonly keep: boolean;
  /** A redacted response read with an answer: never written back as read, so the answer goes. */
  readonly stray: boolean;
  /**
   * Whether the entry may hold a number JSON.parse rounded that `numbersSeen` did not note (the
   * loader then looks at the text of the file).
   */
  readonly inexact: boolean;
}

/**
 * The general path for an entry {@link decodeStoredEntry} leaves: at-rest decoding into a copy,
 * then {@link decodeEvent}'s rules. The entry as read, or an error message naming `[index]`.
 */
export function readStoredEntry(
  entry: unknown,
  index: number,
  reader: AtRestReader,
): StoredEntry | string {
  let plain: unknown;
  try {
    plain = reader.fromDisk(entry);
  } catch {
    // Only a pathologically nested entry can overflow the stack while decoding base64.
    return `[${index}]: too deeply nested`;
  }
  const event = decodedOrUndefined(plain);
  // Decoded again for the message, so that a good event costs no path and no Result.
  if (event === undefined) return decodeEvent(plain, [index])._unsafeUnwrapErr().message;
  // A redacted response found with an answer is written back without it. Any other entry is
  // written back as read: kept aside only when encoding it again would not give it back.
  const stray = isPlainObject(plain) && plain.outcome === "redacted" && "answer" in plain;
  const keep = !stray && (!reader.exact || encodeEvent(event) !== plain);
  const known = event === plain && (isConversationEvent(event) || isConfigDelta(event));
  const inexact = known
    ? uncheckedFieldsHoldInexactNumber(event as unknown as Record<string, unknown>)
    : holdsInexactNumber(entry);
  return { event, keep, stray, inexact };
}
