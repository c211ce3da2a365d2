import type { DetachedConfig, DetachedMode, PromptKind, ToolConfig } from "./schema.js";

// RFD 049's detached prompt policy: what to do with a prompt when no human is reachable. Written
// as a scalar (`detached = "auto"`, shorthand for the same mode for every prompt kind) or a table
// naming some kinds (`detached = { run = "auto" }`).

/** The prompt kinds a detached policy is set for, in a fixed order. */
export const PROMPT_KINDS: readonly PromptKind[] = ["run", "deliver", "tool"];

/** Where one level of the cascade looks: which layer, and which written form. */
interface DetachedLookup {
  readonly layer: "tool" | "defaults";
  readonly form: "kind" | "scalar";
}

/**
 * RFD 049's resolution order, first match wins. The fifth level, the hard-coded safe default, is
 * {@link DEFAULT_DETACHED_MODE}: nothing runs unattended unless the user opted in.
 */
const DETACHED_CASCADE: readonly DetachedLookup[] = [
  { layer: "tool", form: "kind" }, // 1. tools.<name>.detached.<kind>
  { layer: "tool", form: "scalar" }, // 2. tools.<name>.detached
  { layer: "defaults", form: "kind" }, // 3. tools."*".detached.<kind>
  { layer: "defaults", form: "scalar" }, // 4. tools."*".detached
];

/** Level 5 of the cascade: with no `detached` configured anywhere, a detached prompt fails. */
export const DEFAULT_DETACHED_MODE: DetachedMode = "deny";

/**
 * The detached policy for one prompt kind, through RFD 049's five-level cascade: the tool's
 * per-kind entry, the tool's scalar, the `"*"` per-kind entry, the `"*"` scalar, then `"deny"`.
 *
 * @example
 * resolveDetached({ detached: { run: "auto" } }, { detached: "defaults" }, "tool"); // "defaults"
 */
export function resolveDetached(
  tool: ToolConfig | undefined,
  defaults: ToolConfig | undefined,
  kind: PromptKind,
): DetachedMode {
  const layers = { tool: tool?.detached, defaults: defaults?.detached };
  for (const { layer, form } of DETACHED_CASCADE) {
    const mode = lookUp(layers[layer], form, kind);
    if (mode !== undefined) return mode;
  }
  return DEFAULT_DETACHED_MODE;
}

function lookUp(
  config: DetachedConfig | undefined,
  form: DetachedLookup["form"],
  kind: PromptKind,
): DetachedMode | undefined {
  if (config === undefined) return undefined;
  if (typeof config === "string") return form === "scalar" ? config : undefined;
  return form === "kind" ? config[kind] : undefined;
}

/**
 * Layers two `detached` values, `upper` winning. A scalar is shorthand for a table naming every
 * kind, so it is expanded before merging per kind: a scalar over anything replaces it whole, and a
 * table over a scalar keeps the scalar's mode for the kinds the table does not name. A table over
 * a table merges per kind. The cascade gives the same answers for a scalar and its expansion.
 *
 * @example
 * layerDetached("auto", { run: "deny" }); // { run: "deny", deliver: "auto", tool: "auto" }
 */
export function layerDetached(
  lower: DetachedConfig | undefined,
  upper: DetachedConfig | undefined,
): DetachedConfig | undefined {
  if (upper === undefined) return lower;
  if (lower === undefined || typeof upper === "string") return upper;
  const base = typeof lower === "string" ? expand(lower) : lower;
  const merged: Partial<Record<PromptKind, DetachedMode>> = {};
  for (const kind of PROMPT_KINDS) {
    const mode = upper[kind] ?? base[kind];
    if (mode !== undefined) merged[kind] = mode;
  }
  return merged;
}

function expand(mode: DetachedMode): Record<PromptKind, DetachedMode> {
  return { run: mode, deliver: mode, tool: mode };
}
