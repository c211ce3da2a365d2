import { Buffer } from "node:buffer";

/** What the splitter found in the input: a complete line, or a line that grew too long. */
export type LineEvent =
  | { readonly type: "line"; readonly text: string }
  | { readonly type: "oversize"; readonly bytes: number };

const NEWLINE = 0x0a;

/**
 * Splits a byte stream into newline-delimited lines. Chunks may end anywhere (even inside a
 * UTF-8 sequence: a newline byte never occurs inside one, so splitting on bytes is safe), a
 * trailing `\r` is dropped, blank lines are skipped. A line longer than `maxBytes` is reported
 * once, as soon as it passes the limit, and then discarded up to its newline, so memory stays
 * bounded whatever the peer sends.
 */
export class LineSplitter {
  readonly #maxBytes: number;
  #chunks: Buffer[] = [];
  #size = 0;
  // Inside an oversize line: bytes are dropped until the next newline.
  #discarding = false;

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
    if (part.length === 0 || this.#discarding) return;
    if (this.#size + part.length > this.#maxBytes) {
      events.push({ type: "oversize", bytes: this.#size + part.length });
      this.#chunks = [];
      this.#size = 0;
      this.#discarding = true;
      return;
    }
    this.#chunks.push(part);
    this.#size += part.length;
  }

  #finishLine(events: LineEvent[]): void {
    if (this.#discarding) {
      this.#discarding = false;
      return;
    }
    if (this.#size === 0) return;
    let text = Buffer.concat(this.#chunks, this.#size).toString("utf8");
    this.#chunks = [];
    this.#size = 0;
    if (text.endsWith("\r")) text = text.slice(0, -1);
    if (text.trim() !== "") events.push({ type: "line", text });
  }
}

// Views a chunk as a Buffer without copying it (`Buffer.from(buffer)` would copy).
function toBuffer(chunk: Buffer | Uint8Array | string): Buffer {
  if (typeof chunk === "string") return Buffer.from(chunk, "utf8");
  if (Buffer.isBuffer(chunk)) return chunk;
  return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}
