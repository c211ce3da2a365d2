import { isPlainObject } from "../json.js";

// Containers nested deeper than this are written on one line: the text stays linear in the size
// of the data however deep it is (indenting every level would make it quadratic).
const MAX_INDENTED_DEPTH = 32;

interface Frame {
  readonly entries: readonly (readonly [key: string | undefined, value: unknown])[];
  readonly close: string;
  readonly depth: number;
  index: number;
}

/**
 * `JSON.stringify(value, null, indent)` for JSON data, without recursion: a value nested
 * thousands of levels deep (which decodes fine) renders instead of overflowing the call stack.
 * Levels past the 32nd are written compactly.
 */
export function jsonText(value: unknown, indent = 0): string {
  const out: string[] = [];
  const stack: Frame[] = [];
  const expanded = (depth: number) => indent > 0 && depth < MAX_INDENTED_DEPTH;
  const write = (item: unknown, depth: number) => {
    const frame = open(item, depth);
    if (typeof frame === "string") out.push(frame);
    else {
      out.push(frame.close === "]" ? "[" : "{");
      stack.push(frame);
    }
  };
  write(value, 0);
  for (let frame = stack.at(-1); frame !== undefined; frame = stack.at(-1)) {
    const wide = expanded(frame.depth);
    if (frame.index === frame.entries.length) {
      out.push(wide ? `\n${" ".repeat(indent * frame.depth)}${frame.close}` : frame.close);
      stack.pop();
      continue;
    }
    const [key, item] = frame.entries[frame.index] as readonly [string | undefined, unknown];
    if (frame.index > 0) out.push(",");
    if (wide) out.push(`\n${" ".repeat(indent * (frame.depth + 1))}`);
    if (key !== undefined) out.push(`${JSON.stringify(key)}${wide ? ": " : ":"}`);
    frame.index++;
    write(item, frame.depth + 1);
  }
  return out.join("");
}

// A scalar's text, or the frame of a non-empty container to walk.
function open(value: unknown, depth: number): string | Frame {
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    return {
      entries: value.map((item) => [undefined, item] as const),
      close: "]",
      depth,
      index: 0,
    };
  }
  if (isPlainObject(value)) {
    const entries: [string, unknown][] = [];
    for (const key of Object.keys(value)) {
      if (value[key] !== undefined) entries.push([key, value[key]]);
    }
    if (entries.length === 0) return "{}";
    return { entries, close: "}", depth, index: 0 };
  }
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : "null";
  if (typeof value === "string" || typeof value === "boolean") return JSON.stringify(value);
  return "null";
}
