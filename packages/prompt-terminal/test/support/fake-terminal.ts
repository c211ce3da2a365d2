import { PassThrough, Writable } from "node:stream";
import { stripVTControlCharacters } from "node:util";

/** Keys as a terminal sends them. */
export const KEYS = {
  enter: "\r",
  escape: "\x1b",
  up: "\x1b[A",
  down: "\x1b[B",
  space: " ",
  ctrlC: "\x03",
  backspace: "\x7f",
} as const;

/** An in-memory terminal: type into `input`, read what the backend drew from `output`. */
export interface FakeTerminal {
  readonly input: PassThrough;
  readonly output: Writable;
  /** Everything written so far, raw (escape codes included). */
  raw(): string;
  /** Everything written so far, with escape codes removed. */
  plain(): string;
  /** Waits until `text` shows up in the output written after the previous match. */
  waitFor(text: string, timeoutMs?: number): Promise<void>;
  /** Sends keys, e.g. `press("y")`, `press(KEYS.down, KEYS.enter)`. */
  press(...keys: string[]): void;
}

/** Creates a {@link FakeTerminal} 160 columns wide. */
export function fakeTerminal(): FakeTerminal {
  const input = new PassThrough();
  let written = "";
  let mark = 0;
  const output = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      written += chunk.toString();
      callback();
    },
  });
  Object.assign(output, { columns: 160, rows: 40 });
  return {
    input,
    output,
    raw: () => written,
    plain: () => stripVTControlCharacters(written),
    async waitFor(text, timeoutMs = 4000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const fresh = written.slice(mark);
        if (stripVTControlCharacters(fresh).includes(text)) {
          mark += matchEnd(fresh, text);
          return;
        }
        if (Date.now() > deadline) {
          throw new Error(
            `timed out waiting for ${JSON.stringify(text)}; output since the last match:\n${stripVTControlCharacters(fresh)}`,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    },
    press(...keys) {
      for (const key of keys) input.write(key);
    },
  };
}

/** The shortest raw prefix of `raw` whose visible text contains `text` (escape codes skipped). */
function matchEnd(raw: string, text: string): number {
  let low = 0;
  let high = raw.length;
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    if (stripVTControlCharacters(raw.slice(0, middle)).includes(text)) high = middle;
    else low = middle + 1;
  }
  return low;
}
