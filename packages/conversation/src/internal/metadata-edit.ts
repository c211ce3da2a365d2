import { isPlainObject, setOwn } from "../json.js";
import { stringEnd } from "./exact-numbers.js";

// An event whose `metadata` alone was changed (by `ConversationStream.setMetadata`) is a new
// object: it is traced back here to the event it was made from, so that an entry written back
// as its text (it holds numbers JSON.parse does not read exactly) can be written with its
// `metadata` member alone replaced.

/** The event a metadata edit started from, and the metadata keys set or removed since. */
interface MetadataEdit {
  readonly origin: object;
  readonly keys: ReadonlySet<string>;
}

// Each edited event points straight at the first event of its chain of edits: a long chain
// keeps none of the events between alive.
const edits = new WeakMap<object, MetadataEdit>();

/** Notes that `next` is `previous` with the metadata key `key` set or removed. */
export function noteMetadataEdit(next: object, previous: object, key: string): void {
  const earlier = edits.get(previous);
  const keys = new Set(earlier?.keys);
  keys.add(key);
  edits.set(next, { origin: earlier?.origin ?? previous, keys });
}

/**
 * The text of `event` when it was made by metadata edits from an event whose text `textOf`
 * gives: that text with the event's metadata (`metadataOf()`, in the form the text is written
 * in) in place of the old. `undefined` for any other event, or when the text cannot be edited so.
 */
export function editedText(
  event: object,
  textOf: (origin: object) => string | undefined,
  metadataOf: () => unknown,
): string | undefined {
  const edit = edits.get(event);
  if (edit === undefined) return undefined;
  const text = textOf(edit.origin);
  if (text === undefined) return undefined;
  const metadata = metadataOf();
  if (metadata !== undefined && !isPlainObject(metadata)) return undefined;
  return withMetadataText(text, metadata, edit.keys);
}

/** One member of a JSON object text: where its key and its value are. */
interface Member {
  readonly key: string;
  readonly keyStart: number;
  readonly keyEnd: number;
  readonly valueStart: number;
  readonly valueEnd: number;
}

/** The members of the JSON object text starting at `start`, and the index after its `}`. */
interface ObjectText {
  readonly members: readonly Member[];
  readonly end: number;
}

const isSpace = (c: number) => c === 32 || c === 10 || c === 13 || c === 9;

function skipSpace(text: string, i: number): number {
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  return i;
}

// The index after the value starting at `i`: a string, an array or object (strings within
// skipped, nesting counted), or a literal or number (up to the next separator). -1 if unclosed.
function valueEnd(text: string, i: number): number {
  const first = text.charCodeAt(i);
  if (first === 34) return stringEnd(text, i);
  if (first === 91 /* [ */ || first === 123 /* { */) {
    let depth = 0;
    for (; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 34) {
        i = stringEnd(text, i);
        if (i < 0) return -1;
        i--;
      } else if (c === 91 || c === 123) depth++;
      else if (c === 93 /* ] */ || c === 125 /* } */) {
        depth--;
        if (depth === 0) return i + 1;
      }
    }
    return -1;
  }
  let j = i;
  while (j < text.length) {
    const c = text.charCodeAt(j);
    if (c === 44 /* , */ || c === 93 || c === 125 || isSpace(c)) break;
    j++;
  }
  return j === i ? -1 : j;
}

// The top-level members of the JSON object text at `start`, or `undefined` if the text is not
// laid out as one.
function objectText(text: string, start: number): ObjectText | undefined {
  if (text.charCodeAt(start) !== 123) return undefined;
  const members: Member[] = [];
  let i = skipSpace(text, start + 1);
  if (text.charCodeAt(i) === 125) return { members, end: i + 1 };
  for (;;) {
    if (text.charCodeAt(i) !== 34) return undefined;
    const keyEnd = stringEnd(text, i);
    if (keyEnd < 0) return undefined;
    let key: unknown;
    try {
      key = JSON.parse(text.slice(i, keyEnd));
    } catch {
      return undefined;
    }
    if (typeof key !== "string") return undefined;
    let j = skipSpace(text, keyEnd);
    if (text.charCodeAt(j) !== 58 /* : */) return undefined;
    j = skipSpace(text, j + 1);
    const end = valueEnd(text, j);
    if (end < 0) return undefined;
    members.push({ key, keyStart: i, keyEnd, valueStart: j, valueEnd: end });
    i = skipSpace(text, end);
    const c = text.charCodeAt(i);
    if (c === 125) return { members, end: i + 1 };
    if (c !== 44) return undefined;
    i = skipSpace(text, i + 1);
  }
}

// The one member named `key`, `null` if there is none, `undefined` if there are several.
function only(members: readonly Member[], key: string): Member | null | undefined {
  let found: Member | null = null;
  for (const member of members) {
    if (member.key !== key) continue;
    if (found !== null) return undefined;
    found = member;
  }
  return found;
}

// The entry without its `metadata`, for comparing everything else.
function withoutMetadata(value: Record<string, unknown>): string {
  const { metadata: _, ...rest } = value;
  return JSON.stringify(rest);
}

/**
 * The JSON object text `text` (an `events.json` entry) with the value of its top-level
 * `metadata` member replaced by `metadata` (its at-rest form), added as the last member, or
 * removed when `metadata` is `undefined`; every other byte stays as it is. Members of the old
 * metadata whose key is not in `changed` keep their text. Laid out like the entry's members.
 * `undefined` when the text is not an object as expected, or the result would not read back as
 * the entry with that metadata.
 */
export function withMetadataText(
  text: string,
  metadata: Record<string, unknown> | undefined,
  changed: ReadonlySet<string>,
): string | undefined {
  const entry = objectText(text, 0);
  if (entry === undefined || entry.end !== text.length) return undefined;
  const { members } = entry;
  const first = members[0];
  const last = members.at(-1);
  if (first === undefined || last === undefined) return undefined;
  const current = only(members, "metadata");
  if (current === undefined) return undefined;

  // The layout of the entry's members: what comes before each key, and between key and value.
  const before = text.slice(1, first.keyStart);
  const colon = text.slice(first.keyEnd, first.valueStart);
  const newline = before.lastIndexOf("\n");
  const indent = newline < 0 ? undefined : before.slice(newline + 1);

  let result: string;
  let expected: Record<string, unknown> | undefined;
  if (metadata === undefined) {
    if (current === null) return text;
    const index = members.indexOf(current);
    const next = members[index + 1];
    const previous = members[index - 1];
    if (next !== undefined) {
      result = text.slice(0, current.keyStart) + text.slice(next.keyStart);
    } else if (previous !== undefined) {
      result = text.slice(0, previous.valueEnd) + text.slice(current.valueEnd);
    } else {
      return undefined;
    }
  } else {
    // The old metadata's members, kept as their text where their key was not changed.
    const old = current === null ? undefined : objectText(text, current.valueStart);
    expected = {};
    const parts: string[] = [];
    const inner = indent === undefined ? undefined : `${indent}  `;
    for (const key of Object.keys(metadata)) {
      const kept = changed.has(key) || old === undefined ? null : only(old.members, key);
      let part: string;
      if (kept) {
        const valueText = text.slice(kept.valueStart, kept.valueEnd);
        setOwn(expected, key, JSON.parse(valueText));
        part = `${text.slice(kept.keyStart, kept.keyEnd)}${colon}${valueText}`;
      } else {
        const value = metadata[key];
        setOwn(expected, key, value);
        const valueText =
          inner === undefined
            ? JSON.stringify(value)
            : JSON.stringify(value, null, 2).replaceAll("\n", `\n${inner}`);
        part = `${JSON.stringify(key)}${colon}${valueText}`;
      }
      parts.push(inner === undefined ? part : `\n${inner}${part}`);
    }
    const value =
      parts.length === 0
        ? "{}"
        : inner === undefined
          ? `{${parts.join(",")}}`
          : `{${parts.join(",")}\n${indent}}`;
    if (current === null) {
      const separator = indent === undefined ? before : `\n${indent}`;
      result = `${text.slice(0, last.valueEnd)},${separator}"metadata"${colon}${value}${text.slice(last.valueEnd)}`;
    } else {
      result = text.slice(0, current.valueStart) + value + text.slice(current.valueEnd);
    }
  }

  // Checked, as it costs little on the few entries written this way: the result must read as
  // the entry read, its metadata alone changed.
  let read: unknown;
  let was: unknown;
  try {
    read = JSON.parse(result);
    was = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isPlainObject(read) || !isPlainObject(was)) return undefined;
  if (withoutMetadata(read) !== withoutMetadata(was)) return undefined;
  if (JSON.stringify(read.metadata) !== JSON.stringify(expected)) return undefined;
  return result;
}
