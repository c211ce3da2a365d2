import type { EnableConfig, ToolConfig, ToolsConfig } from "./schema.js";

// `conversation.tools` as the schemas output it, read without them for the usual configuration:
// known settings of the right types, written the way the schemas write them. Anything else
// (commands as tables, unknown keys inside strict tables, `__proto__` keys, `undefined` values,
// invalid data) returns `undefined` and takes the schemas, which stay the single source of truth:
// a property test checks that whatever this accepts, the schemas read the same, key order
// included. Every coordinator reads its configuration once; the schemas take milliseconds.

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Thrown inside the reading to give up on it: the schemas decide. */
const UNUSUAL = Symbol("unusual");

function unusual(): never {
  throw UNUSUAL;
}

function isPlain(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function plain(value: unknown): Record<string, unknown> {
  if (!isPlain(value) || Object.hasOwn(value, "__proto__")) unusual();
  return value;
}

function string(value: unknown): string {
  return typeof value === "string" ? value : unusual();
}

function oneOf<const T extends string>(value: unknown, allowed: readonly T[]): T {
  return allowed.includes(value as T) ? (value as T) : unusual();
}

// A copy of JSON data, as the schemas' `z.json()` makes it.
function json(value: unknown): Json {
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      return Number.isFinite(value) ? value : unusual();
    default:
      if (value === null) return null;
      if (Array.isArray(value)) return value.map(json);
      return record(value, json);
  }
}

function record<T>(value: unknown, read: (item: unknown) => T): Record<string, T> {
  const source = plain(value);
  const out: Record<string, T> = {};
  for (const key of Object.keys(source)) out[key] = read(source[key]);
  return out;
}

/** Builds an object of `keys` in order, each read by its reader; other keys are unusual. */
function table(
  value: unknown,
  readers: Readonly<Record<string, (item: unknown) => unknown>>,
): Record<string, unknown> {
  const source = plain(value);
  for (const key in source) if (!Object.hasOwn(readers, key)) unusual();
  return ordered(source, readers);
}

// The keys of `readers` present in `source`, in the readers' order.
function ordered(
  source: Record<string, unknown>,
  readers: Readonly<Record<string, (item: unknown) => unknown>>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(readers)) {
    if (!Object.hasOwn(source, key)) continue;
    const item = source[key];
    if (item === undefined) unusual();
    out[key] = (readers[key] as (item: unknown) => unknown)(item);
  }
  return out;
}

const ALLOW_TOGGLE = ["any", "never", "if_named", "if_named_or_group"] as const;
const DETACHED = ["auto", "defaults", "deny"] as const;
const boolean = (value: unknown) => (typeof value === "boolean" ? value : unusual());

// The written forms of `enable` besides `true`, `false` and the table.
const ENABLE_FORMS: Readonly<Record<string, EnableConfig>> = {
  on: { state: true, allow_toggle: "any" },
  off: { state: false, allow_toggle: "any" },
  always: { state: true, allow_toggle: "never" },
  explicit: { state: false, allow_toggle: "if_named" },
};

/** `enable` in table form, from any of its written forms; `undefined` if it is not one. */
export function enableTable(value: unknown): EnableConfig | undefined {
  try {
    return readEnable(value);
  } catch {
    return undefined;
  }
}

function readEnable(value: unknown): EnableConfig {
  if (typeof value === "boolean") return { state: value, allow_toggle: "any" };
  if (typeof value === "string") {
    const form = Object.hasOwn(ENABLE_FORMS, value) ? ENABLE_FORMS[value] : undefined;
    return form === undefined ? unusual() : { ...form };
  }
  return table(value, {
    state: boolean,
    allow_toggle: (item) => oneOf(item, ALLOW_TOGGLE),
  }) as EnableConfig;
}

const QUESTION_READERS = {
  target: (item: unknown) =>
    typeof item === "string" ? oneOf(item, ["user", "assistant"]) : record(item, json),
  answer: json,
  prompt_label: string,
  exclusive: boolean,
};

// The settings of one layer, in the schema's order.
const TOOL_READERS: Readonly<Record<string, (item: unknown) => unknown>> = {
  source: string,
  enable: readEnable,
  // A command table is rare: left to the schema.
  command: string,
  summary: string,
  description: string,
  examples: string,
  parameters: (item) => record(item, json),
  run: (item) => oneOf(item, ["ask", "unattended", "edit", "skip"]),
  result: (item) => oneOf(item, ["unattended", "ask", "edit", "skip"]),
  cancellation_response: string,
  style: (item) => {
    // Loose: `hidden` first, then whatever else a host keeps there, as it is.
    const source = plain(item);
    const out = ordered(source, { hidden: boolean });
    for (const key of Object.keys(source)) if (key !== "hidden") out[key] = source[key];
    return out;
  },
  questions: (item) => record(item, (question) => table(question, QUESTION_READERS)),
  options: (item) => record(item, json),
  detached: (item) =>
    typeof item === "string"
      ? oneOf(item, DETACHED)
      : table(item, {
          run: (mode) => oneOf(mode, DETACHED),
          deliver: (mode) => oneOf(mode, DETACHED),
          tool: (mode) => oneOf(mode, DETACHED),
        }),
};

function readLayer(value: unknown): ToolConfig {
  const source = plain(value);
  const out = ordered(source, TOOL_READERS);
  // Loose: settings this version does not know are kept as they are, after the known ones.
  for (const key of Object.keys(source)) {
    if (!Object.hasOwn(TOOL_READERS, key)) out[key] = source[key];
  }
  return out as ToolConfig;
}

/**
 * `json` read as `conversation.tools` exactly as `parseToolsConfig`'s schemas read it, when it is
 * a usual configuration; `undefined` means "take the schemas" (not "invalid").
 */
export function plainToolsConfig(json: unknown): ToolsConfig | undefined {
  try {
    return record(json, readLayer);
  } catch {
    // Unusual input, or hostile input (a throwing getter, a Proxy): the schemas answer.
    return undefined;
  }
}
