import { Buffer, isUtf8 } from "node:buffer";
import { MemberScanner } from "./member-scanner.js";
import type { RpcId } from "./message.js";

/**
 * What the splitter found in the input: a complete line, a line that is not valid UTF-8 (its
 * text decoded with U+FFFD in place of the bad bytes, to read only what it answers), or a line
 * that grew too long.
 */
export type LineEvent =
  | { readonly type: "line"; readonly text: string }
  | { readonly type: "invalid_utf8"; readonly text: string; readonly bytes: number }
  | { readonly type: "oversize"; readonly bytes: number }
  /**
   * The newline of an oversize line arrived after its `bytes` (a `\r` before it not counted).
   * `answering` is the id of the response it was, `request` the id of the request it was, when
   * that could be read from its bytes as they went by.
   */
  | {
      readonly type: "oversize_end";
      readonly bytes: number;
      readonly answering: RpcId | undefined;
      readonly request: RpcId | undefined;
    };

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/**
 * Splits a byte stream into newline-delimited lines. Chunks may end anywhere (even inside a
 * UTF-8 sequence: a newline byte never occurs inside one, so splitting on bytes is safe), a
 * trailing `\r` is dropped, blank lines are skipped. A line longer than `maxBytes` is reported
 * once, as soon as it passes the limit, and then discarded up to its newline, so memory stays
 * bounded whatever the peer sends; on the way, its top-level members are scanned for the id of
 * the response or request it may be, so that neither side waits for ever for an answer.
 */
export class LineSplitter {
  readonly #maxBytes: number;
  #chunks: Buffer[] = [];
  #size = 0;
  // Inside an oversize line: bytes are scanned and dropped until the next newline.
  #discarding: MemberScanner | undefined;
  // The length of the oversize line so far, and whether its last byte was a `\r`.
  #discarded = 0;
  #lastWasReturn = false;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  /** Feeds one chunk; returns the events it completes, in order. */
  push(chunk: Buffer | Uint8Array | string): LineEvent[] {
    const bytes = toBuffer(chunk);
    const events: LineEvent[] = [];
    let start = 0;
    for (;;) {
      const end = bytes.indexOf(NEWLINE, start);
      if (end === -1) {
        this.#append(bytes.subarray(start), events);
        return events;
      }
      this.#append(bytes.subarray(start, end), events);
      this.#finishLine(events);
      start = end + 1;
    }
  }

  /** The input ended: a last line without a newline still counts. */
  end(): LineEvent[] {
    const events: LineEvent[] = [];
    this.#finishLine(events);
    return events;
  }

  #append(part: Buffer, events: LineEvent[]): void {
    if (part.length === 0) return;
    if (this.#discarding !== undefined) {
      this.#discarding.push(part);
      this.#discarded += part.length;
      this.#lastWasReturn = part[part.length - 1] === CARRIAGE_RETURN;
      return;
    }
    // One byte past the limit may be the `\r` of a CRLF, which is not part of the line: known
    // only once the line ends (see #finishLine).
    if (this.#size + part.length > this.#maxBytes + 1) {
      events.push({ type: "oversize", bytes: this.#size + part.length });
      const scanner = new MemberScanner();
      for (const chunk of this.#chunks) scanner.push(chunk);
      scanner.push(part);
      this.#discarded = this.#size + part.length;
      this.#lastWasReturn = part[part.length - 1] === CARRIAGE_RETURN;
      this.#chunks = [];
      this.#size = 0;
      this.#discarding = scanner;
      return;
    }
    this.#chunks.push(part);
    this.#size += part.length;
  }

  #finishLine(events: LineEvent[]): void {
    if (this.#discarding !== undefined) {
      events.push(oversizeEnd(this.#discarding, this.#discarded - (this.#lastWasReturn ? 1 : 0)));
      this.#discarding = undefined;
      return;
    }
    if (this.#size === 0) return;
    const bytes = Buffer.concat(this.#chunks, this.#size);
    this.#chunks = [];
    this.#size = 0;
    if (bytes.length > this.#maxBytes && bytes[bytes.length - 1] !== CARRIAGE_RETURN) {
      // One byte too long, and not for a CRLF's `\r`: oversize after all.
      events.push({ type: "oversize", bytes: bytes.length });
      const scanner = new MemberScanner();
      scanner.push(bytes);
      events.push(oversizeEnd(scanner, bytes.length));
      return;
    }
    let text = bytes.toString("utf8");
    if (text.endsWith("\r")) text = text.slice(0, -1);
    if (text.trim() === "") return;
    // Decoding replaces bad bytes with U+FFFD without a word: an answer read so would not be the
    // one the peer sent.
    if (isUtf8(bytes)) events.push({ type: "line", text });
    else events.push({ type: "invalid_utf8", text, bytes: bytes.length });
  }
}

function oversizeEnd(scanner: MemberScanner, bytes: number): LineEvent {
  return {
    type: "oversize_end",
    bytes,
    answering: scanner.responseId(),
    request: scanner.requestId(),
  };
}

// Views a chunk as a Buffer without copying it (`Buffer.from(buffer)` would copy).
function toBuffer(chunk: Buffer | Uint8Array | string): Buffer {
  if (typeof chunk === "string") return Buffer.from(chunk, "utf8");
  if (Buffer.isBuffer(chunk)) return chunk;
  return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}
