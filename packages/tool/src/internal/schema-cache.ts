import type { Ajv, ErrorObject, ValidateFunction } from "ajv";
import type { Ajv2020 } from "ajv/dist/2020.js";
import type addFormats from "ajv-formats";
import type { JsonValue } from "../json.js";
import { boundedRegExp, patternStalled } from "./bounded-regexp.js";
import { describeJson } from "./describe.js";
import { requireModule } from "./lazy.js";
import { stableStringify } from "./stable-json.js";

/** A schema compiled once: its validator, or the reason it does not compile. */
export type CompiledSchema =
  | { readonly ok: true; readonly validate: ValidateFunction }
  | { readonly ok: false; readonly message: string };

/** How many compiled schemas are kept; the least recently used one is dropped beyond that. */
const MAX_CACHED_SCHEMAS = 256;

/**
 * Compiled schemas keyed by their key-sorted JSON text. A string key (not a WeakMap on the schema
 * object) is used because questions are decoded afresh on every tool re-run, so the "same" schema
 * arrives as a new object each time; the Map's insertion order gives a cheap LRU bound.
 */
const cache = new Map<string, CompiledSchema>();

/**
 * Options shared by both dialects. `strict: false` because schemas come from many generators
 * (schemars, zod, hand-written) that add keywords such as `example`, which JSON Schema says to
 * ignore; `logger: false` keeps the ignored-keyword warnings off the tool's stdout and stderr;
 * `addUsedSchema: false` stops two schemas with the same `$id` from clashing inside Ajv; a
 * schema's `pattern` is tested with a time limit (see bounded-regexp.ts): schemas come from models
 * and MCP servers.
 */
const AJV_OPTIONS = {
  strict: false,
  allErrors: true,
  addUsedSchema: false,
  logger: false,
  code: { regExp: boundedRegExp },
} as const;

let draft07: Ajv | undefined;
let draft2020: Ajv2020 | undefined;

/** Ajv for the schema's dialect: draft-07 (what schemars and the MCP SDK emit) or 2020-12 (zod). */
function ajvFor(schema: { [key: string]: JsonValue }): Ajv | Ajv2020 {
  const dialect = schema.$schema;
  if (typeof dialect === "string" && dialect.includes("draft-07")) {
    draft07 ??= withFormats(new (requireModule<{ Ajv: typeof Ajv }>("ajv").Ajv)(AJV_OPTIONS));
    return draft07;
  }
  draft2020 ??= withFormats(
    new (requireModule<{ Ajv2020: typeof Ajv2020 }>("ajv/dist/2020.js").Ajv2020)(AJV_OPTIONS),
  );
  return draft2020;
}

// Ajv and its formats are loaded with the first schema compiled (see lazy.ts): most programs
// never check a `schema` answer, and loading them would double the package's import time.
function withFormats<A extends Ajv | Ajv2020>(ajv: A): A {
  requireModule<typeof addFormats>("ajv-formats").default(ajv);
  return ajv;
}

/** Compiles `schema`, or returns the cached result for a structurally equal schema. Never throws. */
export function compileSchema(schema: { [key: string]: JsonValue }): CompiledSchema {
  let key: string;
  try {
    key = stableStringify(schema);
  } catch {
    return { ok: false, message: "the schema is too deeply nested" };
  }
  const cached = cache.get(key);
  if (cached !== undefined) {
    // Re-inserting moves the entry to the young end of the Map's order.
    cache.delete(key);
    cache.set(key, cached);
    return cached;
  }
  const compiled = compileFresh(key);
  cache.set(key, compiled);
  const oldest = cache.keys().next();
  if (cache.size > MAX_CACHED_SCHEMAS && oldest.done !== true) cache.delete(oldest.value);
  return compiled;
}

function compileFresh(key: string): CompiledSchema {
  // Ajv compiles a private copy parsed from the key, so the validator always matches its key even
  // if the caller later mutates the schema object it passed.
  const schema = JSON.parse(key) as { [key: string]: JsonValue };
  let ajv: Ajv | Ajv2020 | undefined;
  try {
    ajv = ajvFor(schema);
    const validate = ajv.compile(schema);
    // An `$async` schema compiles to a validator that returns a promise: every answer would look
    // valid at once, and a misfit would surface later as an unhandled rejection that stops the
    // process. Answers are checked synchronously, so such a schema is refused like one that does
    // not compile.
    if ((validate as { $async?: unknown }).$async === true)
      return { ok: false, message: ASYNC_REFUSAL };
    return { ok: true, validate };
  } catch (cause) {
    return { ok: false, message: cause instanceof Error ? cause.message : String(cause) };
  } finally {
    // Ajv keeps every compiled schema in its own unbounded cache; dropping it here leaves our
    // bounded cache as the only one. The validator stays usable.
    ajv?.removeSchema(schema);
  }
}

const ASYNC_REFUSAL =
  'asynchronous schemas ("$async": true) are not supported: remove "$async" so an answer can be checked at once';

/** How many Ajv errors are spelled out; more would drown the useful first ones. */
const MAX_REPORTED_ERRORS = 5;

/** Extra detail for keywords whose Ajv message does not say which value was at fault. */
const PARAM_DETAILS: Readonly<Record<string, (params: Record<string, unknown>) => string>> = {
  additionalProperties: (params) => ` (${describeJson(params.additionalProperty)})`,
  enum: (params) => ` (allowed: ${allowedList(params.allowedValues)})`,
  const: (params) => ` (allowed: ${describeJson(params.allowedValue)})`,
  pattern: (params) =>
    patternStalled(params.pattern)
      ? " (testing this pattern ran out of time, so no answer can pass it: the schema needs a simpler pattern)"
      : "",
};

function allowedList(values: unknown): string {
  return Array.isArray(values)
    ? values.map((value) => describeJson(value)).join(", ")
    : describeJson(values);
}

/** Renders Ajv errors as `"/age: must be integer; /name: must be string"`. */
export function renderAjvErrors(errors: readonly ErrorObject[]): string {
  const shown = errors.slice(0, MAX_REPORTED_ERRORS).map((error) => {
    const where = error.instancePath === "" ? "(root)" : error.instancePath;
    const detail = PARAM_DETAILS[error.keyword]?.(error.params) ?? "";
    return `${where}: ${error.message ?? "is invalid"}${detail}`;
  });
  const hidden = errors.length - shown.length;
  return hidden > 0 ? `${shown.join("; ")} (and ${hidden} more)` : shown.join("; ");
}
