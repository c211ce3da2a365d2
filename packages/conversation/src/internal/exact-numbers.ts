// JSON.parse reads every number as a double: an integer past 2^53 (an id the model passed to a
// tool, a u64 in a config delta) comes back rounded, and a negative zero (`-0`, or `-0.0` as JP
// writes a negative zero float, or a negative number too small for a double) is written back as
// `0`. JP reads such numbers exactly, so writing the double back would change what was recorded.
// The entries of `events.json` holding such a number are found here, by their text, to be
// written back as they were read.

// What the text of every such number matches (a file matching nothing, nearly every file, is not
// scanned):
// - an integer a double can round has 16 or more digits;
// - a negative number whose digits are all zero (`-0`, `-0.0`, `-0.000`, `-0e0`, `-0E+3`);
// - a negative number JSON.parse rounds to zero, its magnitude at most 2^-1075 (about 2.5e-324):
//   with a digit other than 0 before the point, its exponent is -324 or less, so of 3 or more
//   digits (`-1e-400`); with `0.` before it, either that or more than 200 zeros after the point
//   (an exponent of 2 digits at most needs 224).
// Positive numbers, and negative ones such as `-0.5`, `-10` or `-1e-5`, match none of these.
const MAYBE_INEXACT = /[0-9]{16}|-0(?:\.0*)?(?![.0-9])|-[0-9.]+[eE]-[0-9]{3}|-0\.0{200}/;
const NUMBER = /-?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?/y;

/** The index after the JSON string whose opening quote is at `i` (escapes skipped), or -1. */
export function stringEnd(text: string, i: number): number {
  for (i++; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 92 /* \ */) i++;
    else if (c === 34 /* " */) return i + 1;
  }
  return -1;
}

/** The exact text of an entry, written back in place of the value JSON.parse made of it. */
export class RawEntry {
  readonly text: string;

  constructor(text: string) {
    // A copy: a slice of a file's text would keep all of the text alive as long as the entry.
    this.text = structuredClone(text);
  }
}

/**
 * The text of each top-level entry of the JSON array `text` (valid JSON, already parsed) holding
 * a number that JSON.parse does not give back exactly (an integer it rounds, or a negative zero
 * however spelled), by index. Empty for nearly every file.
 */
export function inexactEntries(text: string): Map<number, RawEntry> {
  const found = new Map<number, RawEntry>();
  if (!MAYBE_INEXACT.test(text)) return found;
  let depth = 0;
  let index = -1;
  let start = 0;
  let inexact = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      const end = stringEnd(text, i);
      if (end < 0) break;
      i = end - 1;
      continue;
    }
    if (c === 91 /* [ */ || c === 123 /* { */) {
      if (depth === 1) {
        index++;
        start = i;
        inexact = false;
      }
      depth++;
      continue;
    }
    if (c === 93 /* ] */ || c === 125 /* } */) {
      depth--;
      if (depth === 1 && inexact) found.set(index, new RawEntry(text.slice(start, i + 1)));
      continue;
    }
    if (c === 45 /* - */ || (c >= 48 && c <= 57)) {
      NUMBER.lastIndex = i;
      const match = NUMBER.exec(text);
      if (match === null) continue;
      const token = match[0];
      // A scalar entry (depth 1) is not an event: the decoder refuses the file.
      if (depth > 1 && !inexact) {
        if (match[1] === undefined && match[2] === undefined) {
          // An integer: `-0`, or one JSON.stringify does not write back as it was read.
          if (String(Number(token)) !== token) inexact = true;
        } else if (c === 45 && Number(token) === 0) {
          // A fraction or an exponent, negative, that JSON.parse reads as zero: it reads -0.
          inexact = true;
        }
      }
      i += token.length - 1;
    }
  }
  return found;
}

/**
 * Whether the JSON text `text` holds a number that JSON.parse does not give back exactly: an
 * integer it rounds, or a negative zero however spelled.
 */
export function hasInexactInteger(text: string): boolean {
  return MAYBE_INEXACT.test(text) && inexactEntries(`[[${text}]]`).size > 0;
}

/**
 * `JSON.stringify(entries, null, 2)` plus a newline, with each {@link RawEntry} written as its
 * text.
 */
export function entriesText(entries: readonly unknown[]): string {
  if (entries.length === 0) return "[]\n";
  const parts = entries.map((entry) =>
    entry instanceof RawEntry
      ? entry.text
      : // JSON text holds no raw newline inside a string: every line break is layout.
        JSON.stringify(entry, null, 2).replaceAll("\n", "\n  "),
  );
  return `[\n  ${parts.join(",\n  ")}\n]\n`;
}
