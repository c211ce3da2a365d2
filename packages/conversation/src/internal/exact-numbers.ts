// JSON.parse reads every number as a double: an integer past 2^53 (an id the model passed to a
// tool, a u64 in a config delta) comes back rounded, and `-0` is written back as `0`. JP reads
// such integers exactly, so writing the double back would change what was recorded. The entries
// of `events.json` holding such a number are found here, by their text, to be written back as
// they were read.

// An integer of 16 or more digits is the only kind a double can round; `-0` loses its sign. A
// file without either (nearly every file) is not scanned.
const MAYBE_INEXACT = /[0-9]{16}|-0(?![.eE0-9])/;
const NUMBER = /-?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?/y;

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
 * an integer that JSON.parse does not give back exactly, by index. Empty for nearly every file.
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
      // Skip the string, escapes included.
      for (i++; i < text.length; i++) {
        const s = text.charCodeAt(i);
        if (s === 92 /* \ */) i++;
        else if (s === 34) break;
      }
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
      if (depth > 1 && match[1] === undefined && match[2] === undefined) {
        if (String(Number(token)) !== token) inexact = true;
      }
      i += token.length - 1;
    }
  }
  return found;
}

/** Whether the JSON text `text` holds an integer that JSON.parse does not give back exactly. */
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
