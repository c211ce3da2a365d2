import { err, ok, type Result } from "neverthrow";
import type { ConfigError } from "./errors.js";
import { configError, DEFAULTS_KEY, ownEntry, resolveToolConfig } from "./resolve.js";
import type { AllowToggle, ToolsConfig } from "./schema.js";

// RFD 081: CLI-style directives (`-t`/`-T`, bare or with a tool name) flip a tool's `enable.state`
// if its `enable.allow_toggle` accepts the directive's scope. They never touch `allow_toggle`.

/**
 * One enable/disable directive: for every tool (`scope: "all"`, bare `-t`/`-T`) or for one tool by
 * name (`-t <name>`/`-T <name>`).
 */
export type ToggleDirective =
  | { readonly action: "enable" | "disable"; readonly scope: "all" }
  | { readonly action: "enable" | "disable"; readonly scope: "named"; readonly name: string };

/** What a directive of a given scope does to a tool with a given `allow_toggle`. */
type Effect = "apply" | "skip" | "error";

/**
 * RFD 081's behaviour matrix. A bulk directive only reaches tools open to any toggle; a named one
 * reaches every tool except a locked one, for which naming it is a mistake worth reporting.
 * `if_named_or_group` also admits group directives (RFD 055), which do not exist yet.
 */
const TOGGLE_MATRIX: Readonly<
  Record<AllowToggle, Readonly<Record<ToggleDirective["scope"], Effect>>>
> = {
  any: { all: "apply", named: "apply" },
  if_named: { all: "skip", named: "apply" },
  if_named_or_group: { all: "skip", named: "apply" },
  never: { all: "skip", named: "error" },
};

/**
 * Applies enable/disable directives in order, so "disable all, then enable `ask_user`" works. Each
 * directive sets `enable.state` in the tool's own layer (its `allow_toggle`, possibly inherited from
 * `"*"`, is kept). Bulk directives silently skip tools that do not accept them; naming an unknown
 * tool or a tool whose `allow_toggle` is `never` is an error. The input is not mutated.
 *
 * @example
 * applyToggleDirectives(tools, [
 *   { action: "disable", scope: "all" },
 *   { action: "enable", scope: "named", name: "fs_read_file" },
 * ]);
 */
export function applyToggleDirectives(
  tools: ToolsConfig,
  directives: readonly ToggleDirective[],
): Result<ToolsConfig, ConfigError> {
  let current = tools;
  for (const directive of directives) {
    const targets = directive.scope === "all" ? toolNames(current) : [directive.name];
    for (const name of targets) {
      const applied = applyOne(current, name, directive);
      if (applied.isErr()) return err(applied.error);
      current = applied.value;
    }
  }
  return ok(current);
}

/** The names of the configured tools (not `"*"`) whose resolved `enable.state` is on. */
export function enabledToolNames(tools: ToolsConfig): string[] {
  return toolNames(tools).filter((name) => resolveToolConfig(tools, name).enable.state);
}

function applyOne(
  tools: ToolsConfig,
  name: string,
  directive: ToggleDirective,
): Result<ToolsConfig, ConfigError> {
  const tool = name === DEFAULTS_KEY ? undefined : ownEntry(tools, name);
  if (tool === undefined) {
    const reason = `no tool named "${name}" is configured, so it cannot be ${done(directive)}`;
    return err(configError([name], reason));
  }
  const { allow_toggle } = resolveToolConfig(tools, name).enable;
  switch (TOGGLE_MATRIX[allow_toggle][directive.scope]) {
    case "skip":
      return ok(tools);
    case "error": {
      // Point at the layer the lock comes from: the tool's own, or the `"*"` defaults.
      const owner = tool.enable?.allow_toggle === undefined ? DEFAULTS_KEY : name;
      const reason = `tool "${name}" cannot be enabled or disabled: its enable.allow_toggle is "${allow_toggle}"`;
      return err(configError([owner, "enable", "allow_toggle"], reason));
    }
    case "apply": {
      const state = directive.action === "enable";
      return ok({ ...tools, [name]: { ...tool, enable: { ...tool.enable, state } } });
    }
  }
}

function toolNames(tools: ToolsConfig): string[] {
  return Object.keys(tools).filter((name) => name !== DEFAULTS_KEY);
}

function done(directive: ToggleDirective): string {
  return directive.action === "enable" ? "enabled" : "disabled";
}
