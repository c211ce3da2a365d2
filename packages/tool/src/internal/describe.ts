/** Longest text a "got …" part may take before it is cut. */
const MAX_DESCRIPTION = 60;

/**
 * The JSON-ish name of a value's type, as used in "expected a string, got number": never the
 * value itself, so it is safe for secrets.
 */
export function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number" && !Number.isFinite(value)) return String(value);
  if (typeof value !== "object") return typeof value;
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto === Object.prototype || proto === null) return "object";
  // A class instance (Date, Map…) is named after its constructor, which helps a tool author.
  const name: unknown = (value as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof name === "string" && name !== "" ? name : "object";
}

/**
 * A short, readable rendering of a value for "got …" texts: JSON text cut to 60 characters.
 * Falls back to the type name for what JSON cannot show.
 */
export function describeJson(value: unknown): string {
  if (value === undefined) return "nothing";
  // Only plain JSON-shaped values are rendered; anything else (a Map would print as `{}`, NaN as
  // `null`) is named by its type so the text never misleads.
  const name = typeName(value);
  const renderable = ["string", "number", "boolean", "null", "array", "object"].includes(name);
  if (!renderable) return name;
  let text: string | undefined;
  try {
    // A value nested deeper than an answer may be (or a cycle) is named, not written: writing it
    // would recurse as deep as the value goes.
    if (nestedDeeperThan(value, MAX_RENDERED_DEPTH)) return name;
    text = JSON.stringify(value);
  } catch {
    // Cycles, BigInts inside objects and values whose getters throw cannot be stringified; the
    // type name still tells the reader what arrived.
    text = undefined;
  }
  return text === undefined ? name : truncate(text, MAX_DESCRIPTION);
}

/** Past this many levels of arrays and objects, a value is named instead of written. */
const MAX_RENDERED_DEPTH = 100;

// Whether arrays and objects in `value` are nested more than `levels` deep. The recursion is at
// most `levels` calls deep, so it cannot overflow the call stack however deep the value is.
function nestedDeeperThan(value: unknown, levels: number): boolean {
  if (typeof value !== "object" || value === null) return false;
  if (levels === 0) return true;
  if (Array.isArray(value)) {
    for (const item of value) if (nestedDeeperThan(item, levels - 1)) return true;
    return false;
  }
  for (const key of Object.keys(value)) {
    if (nestedDeeperThan((value as Record<string, unknown>)[key], levels - 1)) return true;
  }
  return false;
}

/** Most items a list in a message names; the rest are counted. */
const MAX_LISTED = 20;

/**
 * Renders `["a", "b"]` as `"a", "b"` for "expected one of …" texts. A list of options may come
 * from a model and hold thousands: past the first 20 the rest are only counted, so the message
 * stays one a person or a model can read.
 */
export function quoteList(items: readonly string[]): string {
  const shown = items
    .slice(0, MAX_LISTED)
    .map((item) => truncate(JSON.stringify(item), MAX_DESCRIPTION));
  const hidden = items.length - shown.length;
  return hidden > 0 ? `${shown.join(", ")} (and ${hidden} more)` : shown.join(", ");
}

// At most `max` characters (code points), the last "…" when cut; a character beyond U+FFFF is
// kept whole, never split into a lone surrogate (invalid JSON for a provider, unreadable for JP).
function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  // Past 2 × max + 1 code units there are more than `max` code points; a pair the slice splits
  // sits at its very end, beyond what is kept.
  const points = Array.from(text.slice(0, 2 * max + 1));
  return points.length > max ? `${points.slice(0, max - 1).join("")}…` : text;
}
