import { isPlainObject, setOwn } from "../json.js";

// JP stores some strings base64-encoded at rest: every string leaf of an event's `metadata`,
// every string leaf of a tool call's `arguments` (keys, numbers and booleans untouched) and a
// tool response's `content`. Inquiry, chat and turn events are stored as they are.

// Any base64 (also with non-zero bits in its last character), for strings that did not come
// back unchanged from decoding and encoding again: rare, so the usual string needs no regex pass.
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * Reads entries of `events.json` into their in-memory form, decoding each string at rest once.
 * A string that is not base64 of UTF-8 is read as it is. After each entry, `exact` tells whether
 * {@link toDisk} gives the entry back as it was read (every string was base64 as this package
 * writes it), so a writer need not keep the entry it read.
 */
export class AtRestReader {
  /** Whether the last entry read is what {@link toDisk} writes for its in-memory form. */
  exact = true;

  /** The in-memory form of one `events.json` entry: the entry itself if nothing is at rest. */
  fromDisk(entry: unknown): unknown {
    this.exact = true;
    if (!isPlainObject(entry)) return entry;
    const { type, metadata } = entry;
    const args = type === "tool_call_request" && isPlainObject(entry.arguments);
    const content = type === "tool_call_response" && typeof entry.content === "string";
    if (!args && !content && !isPlainObject(metadata)) return entry;
    const out: Record<string, unknown> = { ...entry };
    if (isPlainObject(metadata)) out.metadata = this.#strings(metadata);
    if (args) out.arguments = this.#strings(entry.arguments);
    else if (content) out.content = this.decode(entry.content as string);
    return out;
  }

  /**
   * Decodes base64 of UTF-8 once; anything else is returned as it is (and the entry is inexact).
   * Short strings, most of what JP writes, are decoded here without a call into Node.js per
   * string; longer ones by `Buffer`.
   */
  decode(text: string): string {
    if (text.length <= SHORT && text.length % 4 === 0) {
      const decoded = decodeShort(text);
      if (decoded !== undefined) return decoded;
    }
    const bytes = Buffer.from(text, "base64");
    // Node.js reads any text as base64, skipping what does not belong: written back the same is
    // what makes it base64, and exactly what encoding the decoded text gives.
    if (bytes.toString("base64") !== text) {
      this.exact = false;
      if (!BASE64.test(text)) return text;
    }
    if (isUtf8(bytes)) return bytes.toString("utf8");
    this.exact = false;
    return text;
  }

  #strings(value: unknown): unknown {
    if (typeof value === "string") return this.decode(value);
    if (Array.isArray(value)) return value.map((item) => this.#strings(item));
    if (isPlainObject(value)) {
      const out: Record<string, unknown> = {};
      for (const key in value) setOwn(out, key, this.#strings(value[key]));
      return out;
    }
    return value;
  }
}

// From the module object, not an import: importing `node:buffer` as a module loads parts of Node.js
// (its `File`) that nothing here needs, at every program's start.
const { isUtf8 } = process.getBuiltinModule("node:buffer");

// Strings of up to this many characters are decoded by decodeShort.
const SHORT = 256;
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
let sextets: Int8Array | undefined;
let scratch: Buffer | undefined;

/**
 * Canonical base64 of UTF-8 (what `Buffer#toString("base64")` writes) of at most {@link SHORT}
 * characters, decoded; `undefined` for anything else, which takes the general path.
 */
function decodeShort(text: string): string | undefined {
  if (sextets === undefined) {
    sextets = new Int8Array(65536).fill(-1);
    for (let i = 0; i < ALPHABET.length; i++) sextets[ALPHABET.charCodeAt(i)] = i;
  }
  const of = sextets;
  scratch ??= Buffer.allocUnsafe((SHORT / 4) * 3);
  const bytes = scratch;
  const length = text.length;
  const padding =
    length === 0 || text.charCodeAt(length - 1) !== 61
      ? 0
      : text.charCodeAt(length - 2) === 61
        ? 2
        : 1;
  const full = padding === 0 ? length : length - 4;
  let n = 0;
  let high = 0;
  for (let i = 0; i < full; i += 4) {
    const a = of[text.charCodeAt(i)] as number;
    const b = of[text.charCodeAt(i + 1)] as number;
    const c = of[text.charCodeAt(i + 2)] as number;
    const d = of[text.charCodeAt(i + 3)] as number;
    if ((a | b | c | d) < 0) return undefined;
    const group = (a << 18) | (b << 12) | (c << 6) | d;
    high |= group;
    bytes[n++] = group >> 16;
    bytes[n++] = (group >> 8) & 255;
    bytes[n++] = group & 255;
  }
  if (padding > 0) {
    const a = of[text.charCodeAt(full)] as number;
    const b = of[text.charCodeAt(full + 1)] as number;
    const c = padding === 1 ? (of[text.charCodeAt(full + 2)] as number) : 0;
    // The bits past the last byte must be zero, or encoding would not give the text back.
    if ((a | b | c) < 0 || (padding === 2 ? b & 15 : c & 3) !== 0) return undefined;
    const group = (a << 18) | (b << 12) | (c << 6);
    high |= group;
    bytes[n++] = group >> 16;
    if (padding === 1) bytes[n++] = (group >> 8) & 255;
  }
  // ASCII, the usual case, is its own UTF-8.
  if ((high & 0x808080) === 0) return bytes.toString("latin1", 0, n);
  return isUtf8(bytes.subarray(0, n)) ? bytes.toString("utf8", 0, n) : undefined;
}

function encodeBase64(text: string): string {
  return Buffer.from(text, "utf-8").toString("base64");
}

function encodeStrings(value: unknown): unknown {
  if (typeof value === "string") return encodeBase64(value);
  if (Array.isArray(value)) return value.map(encodeStrings);
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const key in value) setOwn(out, key, encodeStrings(value[key]));
    return out;
  }
  return value;
}

/** The on-disk form of one encoded event. */
export function toDisk(entry: unknown): unknown {
  if (!isPlainObject(entry)) return entry;
  const out: Record<string, unknown> = { ...entry };
  if (isPlainObject(out.metadata)) out.metadata = encodeStrings(out.metadata);
  if (out.type === "tool_call_request" && isPlainObject(out.arguments)) {
    out.arguments = encodeStrings(out.arguments);
  } else if (out.type === "tool_call_response" && typeof out.content === "string") {
    out.content = encodeBase64(out.content);
  }
  return out;
}
