import { layerDetached } from "./detached.js";
import type { DetachedConfig, ToolConfig, ToolsConfig } from "./schema.js";

// Configuration comes in layers: built-in defaults, the user's config, per-run overrides. A layer
// only says what it changes, so layers merge field by field and a user overriding one field of a
// built-in tool keeps every other built-in default (RFD 083, Phase 1 step 3).

type Json = Record<string, unknown>;
/** Merges two values of one field, `upper` winning; `undefined` means "not set in this layer". */
type Merge = (lower: unknown, upper: unknown) => unknown;

/**
 * How each field of a tool layer merges. Fields not listed (and unknown keys kept by the loose
 * schema) use {@link mergeDeep}: plain objects merge recursively, scalars and arrays replace.
 */
const FIELD_MERGES: Readonly<Record<string, Merge>> = {
  // `enable` is stored as the table `{state, allow_toggle}`: `enable = { state = false }` over a
  // built-in's `if_named` keeps `if_named` (RFD 081's partial merge).
  enable: mergeShallow,
  // Per question id, then per field. `target` and `answer` replace whole: an assistant-override map
  // or a fixed answer is one value, not a set of defaults to merge into.
  questions: (lower, upper) => mergeEntries(lower, upper, () => mergeShallow),
  // One command is one unit: a user's program must not inherit a built-in program's `args`.
  command: replace,
  detached: (lower, upper) =>
    layerDetached(lower as DetachedConfig | undefined, upper as DetachedConfig | undefined),
};

/**
 * Layers tool configurations, later layers winning field by field: `questions` (per id and per
 * field), `enable`, `style`, `options`, `parameters` and `detached` tables merge; scalars, arrays
 * and `command` replace. A scalar `detached` replaces whatever is below it; a `detached` table over
 * a scalar keeps the scalar's mode for the kinds the table does not name. Inputs are not mutated.
 *
 * @example
 * const builtin = { run: "unattended", questions: { answer: { prompt_label: "Assistant" } } };
 * layerToolConfigs(builtin, { questions: { answer: { prompt_label: "AI" } } });
 * // { run: "unattended", questions: { answer: { prompt_label: "AI" } } }
 */
export function layerToolConfigs(...layers: readonly (ToolConfig | undefined)[]): ToolConfig {
  let result: Json = {};
  for (const layer of layers) {
    if (layer !== undefined) result = layerTwo(result, layer);
  }
  // Each field's merge keeps that field's schema shape, so the merged layer is a valid layer.
  return result as ToolConfig;
}

/**
 * Layers whole `conversation.tools` maps (lowest priority first, e.g. built-ins, user config,
 * per-run overrides): every tool name, `"*"` included, is layered with {@link layerToolConfigs}, so
 * a built-in's entry sits under the user's entry for the same tool instead of being replaced by it.
 *
 * @example
 * const tools = layerToolsConfigs(builtinTools, userTools, runOverrides);
 */
export function layerToolsConfigs(...layers: readonly (ToolsConfig | undefined)[]): ToolsConfig {
  const layered: Json = {};
  for (const layer of layers) {
    if (layer === undefined) continue;
    for (const name of Object.keys(layer)) {
      if (Object.hasOwn(layered, name)) continue;
      const entries: (ToolConfig | undefined)[] = [];
      for (const each of layers)
        entries.push(each === undefined ? undefined : ownValue(each, name));
      defineOwn(layered, name, layerToolConfigs(...entries));
    }
  }
  return layered as ToolsConfig;
}

function layerTwo(lower: Json, upper: Json): Json {
  return mergeEntries(lower, upper, fieldMerge) as Json;
}

function fieldMerge(key: string): Merge {
  return (Object.hasOwn(FIELD_MERGES, key) ? FIELD_MERGES[key] : undefined) ?? mergeDeep;
}

function replace(lower: unknown, upper: unknown): unknown {
  return upper === undefined ? lower : upper;
}

/** Plain objects merge key by key, each key with `mergeFor(key)`; anything else replaces. */
function mergeEntries(lower: unknown, upper: unknown, mergeFor: (key: string) => Merge): unknown {
  if (!isPlainObject(lower) || !isPlainObject(upper)) return replace(lower, upper);
  const keys = new Set([...Object.keys(lower), ...Object.keys(upper)]);
  const merged: Json = {};
  for (const key of keys) {
    const value = mergeFor(key)(ownValue(lower, key), ownValue(upper, key));
    if (value !== undefined) defineOwn(merged, key, value);
  }
  return merged;
}

// A key one layer does not set is unset there, whatever `Object.prototype` holds under its name:
// a tool or question called `toString` or `constructor` is read like any other.
function ownValue<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

// An own property even for `__proto__`, which an assignment would take as the prototype.
function defineOwn(record: Json, key: string, value: unknown): void {
  if (key === "__proto__") {
    Object.defineProperty(record, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  } else record[key] = value;
}

function mergeShallow(lower: unknown, upper: unknown): unknown {
  return mergeEntries(lower, upper, () => replace);
}

function mergeDeep(lower: unknown, upper: unknown): unknown {
  return mergeEntries(lower, upper, () => mergeDeep);
}

function isPlainObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
