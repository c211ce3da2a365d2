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
  const names = new Set(layers.flatMap((layer) => (layer === undefined ? [] : Object.keys(layer))));
  return Object.fromEntries(
    [...names].map((name) => [name, layerToolConfigs(...layers.map((layer) => layer?.[name]))]),
  );
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
  const entries: [string, unknown][] = [];
  for (const key of keys) {
    const value = mergeFor(key)(lower[key], upper[key]);
    if (value !== undefined) entries.push([key, value]);
  }
  // `Object.fromEntries` defines own properties, so a `__proto__` key stays a plain key.
  return Object.fromEntries(entries);
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
