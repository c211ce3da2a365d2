import { Buffer } from "node:buffer";
import type { RpcId } from "./message.js";

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/** The bytes that matter inside a nested value: a string's start, and brackets. */
const STRUCTURAL = new Uint8Array(256);
for (const byte of [QUOTE, OPEN_BRACE, CLOSE_BRACE, OPEN_BRACKET, CLOSE_BRACKET])
  STRUCTURAL[byte] = 1;

/** Keys and ids longer than this are not ids this side ever sends; they are not kept. */
const MAX_TOKEN_BYTES = 64;

/**
 * Reads the top-level members of one JSON object as its bytes go by, in constant memory, for a
 * line too long to keep or that does not parse: whether it has a `"method"` and the value of its
 * `"id"`. Only what is needed to tell which of our requests a broken response meant to answer, or
 * which request of the peer a broken call was; anything that is not an object yields no id.
 */
export class MemberScanner {
  #depth = 0;
  #inString = false;
  #escaped = false;
  #object = false;
  // At depth 1, the next string is a member's name.
  #expectKey = false;
  #key: number[] | undefined;
  #lastKey: unknown = "";
  // The raw bytes of the top-level "id" value while it is read.
  #value: number[] | undefined;
  #id: unknown;
  #method = false;
  // The first top-level value closed: anything after it (a second message run on, garbage) is
  // not read, so that its members are never mistaken for the first one's.
  #ended = false;

  push(bytes: Buffer): void {
    let index = 0;
    // The next backslash at or after `index` (-1: none left), found once per stretch, so that
    // many short strings do not each search the rest of the chunk.
    let backslash = -2;
    while (index < bytes.length && !this.#ended) {
      // The bulk of an oversize line is one long string; its bytes matter only at a quote or a
      // backslash, so the rest is skipped natively.
      if (this.#inString && !this.#escaped && this.#token() === undefined) {
        if (backslash !== -1 && backslash < index) backslash = bytes.indexOf(BACKSLASH, index);
        const quote = bytes.indexOf(QUOTE, index);
        const next =
          quote === -1 ? backslash : backslash === -1 ? quote : Math.min(quote, backslash);
        if (next === -1) return;
        index = next;
      } else if (!this.#inString && this.#depth !== 1) {
        // Outside the object's own members only strings and brackets matter (no key or id is
        // read there).
        while (index < bytes.length && !STRUCTURAL[bytes[index] as number]) index += 1;
        if (index === bytes.length) return;
      }
      this.#byte(bytes[index] as number);
      index += 1;
    }
  }

  /** The id of the response this object is, if it reads as one (an object with no method). */
  responseId(): RpcId | undefined {
    this.#finishValue();
    return this.#object && !this.#method ? readableId(this.#id) : undefined;
  }

  /**
   * The id of the request this object is, if it reads as one (an object with a method and an
   * id), so that a call that cannot be served still gets an answer its sender can match.
   */
  requestId(): RpcId | undefined {
    this.#finishValue();
    return this.#object && this.#method ? readableId(this.#id) : undefined;
  }

  #byte(byte: number): void {
    if (this.#inString) {
      this.#keep(byte);
      if (this.#escaped) this.#escaped = false;
      else if (byte === BACKSLASH) this.#escaped = true;
      else if (byte === QUOTE) {
        this.#inString = false;
        if (this.#key !== undefined) {
          this.#lastKey = parseToken(this.#key);
          this.#key = undefined;
        }
      }
      return;
    }
    switch (byte) {
      case QUOTE:
        this.#inString = true;
        if (this.#depth === 1 && this.#expectKey) {
          this.#expectKey = false;
          this.#lastKey = "";
          this.#key = [];
        }
        this.#keep(byte);
        return;
      case OPEN_BRACE:
      case OPEN_BRACKET:
        if (this.#depth === 0) this.#object = byte === OPEN_BRACE;
        this.#depth += 1;
        if (this.#depth === 1) this.#expectKey = true;
        // An id is never a structure.
        else if (this.#depth === 2) this.#value = undefined;
        return;
      case CLOSE_BRACE:
      case CLOSE_BRACKET:
        if (this.#depth === 1) this.#finishValue();
        this.#depth -= 1;
        if (this.#depth <= 0) this.#ended = true;
        return;
      case COLON:
        if (this.#depth === 1) {
          if (this.#lastKey === "method") this.#method = true;
          if (this.#lastKey === "id") this.#value = [];
        }
        return;
      case COMMA:
        if (this.#depth === 1) {
          this.#finishValue();
          this.#expectKey = true;
        }
        return;
      default:
        // Whitespace between tokens is not part of a value.
        if (byte > 0x20) this.#keep(byte);
    }
  }

  /** The key or id being read, if any. */
  #token(): number[] | undefined {
    return this.#key ?? (this.#depth === 1 ? this.#value : undefined);
  }

  #keep(byte: number): void {
    const token = this.#token();
    if (token === undefined) return;
    if (token.length < MAX_TOKEN_BYTES) token.push(byte);
    // Too long to be "id" or "method", or an id this side sent: no longer read.
    else if (token === this.#key) this.#key = undefined;
    else this.#value = undefined;
  }

  #finishValue(): void {
    if (this.#value === undefined) return;
    this.#id = parseToken(this.#value);
    this.#value = undefined;
  }
}

/** A JSON-RPC id as it can be echoed back: a string or a finite number. */
function readableId(id: unknown): RpcId | undefined {
  return typeof id === "string" || (typeof id === "number" && Number.isFinite(id)) ? id : undefined;
}

/** A token's JSON value (a key's name, an id), or `undefined` when it is not JSON. */
function parseToken(bytes: readonly number[]): unknown {
  try {
    return JSON.parse(Buffer.from(bytes).toString("utf8"));
  } catch {
    return undefined;
  }
}
