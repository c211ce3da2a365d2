import { closest, distance } from "fastest-levenshtein";
import { err, ok, type Result } from "neverthrow";
import type { z } from "zod";
import { PROMPT_KINDS, resolveDetached } from "./detached.js";
import type { ConfigError } from "./errors.js";
import { enableTable, plainToolsConfig } from "./plain-config.js";
import {
  configSchemas,
  DEFAULT_CANCELLATION_RESPONSE,
  type DetachedMode,
  type Enable,
  type EnableConfig,
  type PromptKind,
  type ResolvedToolConfig,
  type ToolConfig,
  type ToolsConfig,
} from "./schema.js";

/** The key of `conversation.tools` that holds the defaults of every tool. */
export const DEFAULTS_KEY = "*";

/** What a setting is when neither the tool nor the `"*"` defaults set it (JP's defaults). */
const FALLBACK = {
  run: "ask",
  result: "unattended",
  cancellation_response: DEFAULT_CANCELLATION_RESPONSE,
  enable: { state: true, allow_toggle: "any" },
} as const satisfies Pick<
  ResolvedToolConfig,
  "run" | "result" | "cancellation_response" | "enable"
>;

/**
 * A tool's complete configuration: its layer (`conversation.tools.<name>`, already layered with
 * {@link layerToolConfigs}) over the `"*"` defaults, with JP's rules. `run`, `result`,
 * `cancellation_response` and each `enable` field fall back tool → `"*"` → JP's default; `style`
 * falls back as a whole object, then `hidden` defaults to `false`; `detached` goes through RFD 049's
 * cascade per prompt kind. `questions`, `options`, `parameters`, `description`, `command` and
 * `source` are the tool's own and never come from `"*"`. A name with no entry resolves from the
 * defaults alone.
 *
 * @example
 * const tools = parseToolsConfig(json).unwrapOr({});
 * resolveToolConfig(tools, "fs_modify_file").run; // "ask" unless configured
 */
export function resolveToolConfig(tools: ToolsConfig, name: string): ResolvedToolConfig {
  const tool = ownEntry(tools, name);
  const defaults = ownEntry(tools, DEFAULTS_KEY);
  const style = tool?.style ?? defaults?.style ?? {};
  return {
    name,
    source: tool?.source,
    enable: resolveEnable(tool, defaults),
    command: tool?.command,
    description: tool?.description,
    parameters: tool?.parameters ?? {},
    run: tool?.run ?? defaults?.run ?? FALLBACK.run,
    result: tool?.result ?? defaults?.result ?? FALLBACK.result,
    cancellation_response:
      tool?.cancellation_response ??
      defaults?.cancellation_response ??
      FALLBACK.cancellation_response,
    style: { ...style, hidden: style.hidden ?? false },
    questions: tool?.questions ?? {},
    options: tool?.options ?? {},
    detached: resolveDetachedModes(tool, defaults),
  };
}

// Each prompt kind's detached mode, in a table made without intermediate arrays: a coordinator
// resolves each tool it runs once, and a host may make a coordinator per turn.
function resolveDetachedModes(
  tool: ToolConfig | undefined,
  defaults: ToolConfig | undefined,
): Record<PromptKind, DetachedMode> {
  const modes: Partial<Record<PromptKind, DetachedMode>> = {};
  for (const kind of PROMPT_KINDS) modes[kind] = resolveDetached(tool, defaults, kind);
  return modes as Record<PromptKind, DetachedMode>;
}

/** RFD 081: each `enable` field on its own, tool → `"*"` → `{state: true, allow_toggle: "any"}`. */
function resolveEnable(tool: ToolConfig | undefined, defaults: ToolConfig | undefined): Enable {
  const own = tableOf(tool?.enable);
  const fallback = tableOf(defaults?.enable);
  return {
    state: own?.state ?? fallback?.state ?? FALLBACK.enable.state,
    allow_toggle: own?.allow_toggle ?? fallback?.allow_toggle ?? FALLBACK.enable.allow_toggle,
  };
}

// A config built in JavaScript may skip `parseToolsConfig` and hold `enable` as written
// (`false`, `"off"`): read those forms too, so a disabled tool can never run by accident.
function tableOf(enable: unknown): EnableConfig | undefined {
  if (enable === undefined) return undefined;
  const table = enableTable(enable);
  if (table !== undefined) return table;
  const read = configSchemas().enable.safeParse(enable);
  // An unreadable value disables rather than enables: failing closed is the safe reading.
  return read.success ? read.data : { state: false };
}

/** `tools[name]` if it is an own entry (so `"constructor"` or `"__proto__"` are just unknown names). */
export function ownEntry(tools: ToolsConfig, name: string): ToolConfig | undefined {
  return Object.hasOwn(tools, name) ? tools[name] : undefined;
}

/**
 * Reads `conversation.tools` from decoded JSON (or TOML): validates it and turns every written
 * form into the stored one (legacy `enable` strings become tables). Never throws; the error names
 * the full path of the first bad setting and what was expected there.
 *
 * @example
 * parseToolsConfig({ git_stage_patch: { run: "sometimes" } });
 * // err: conversation.tools.git_stage_patch.run: expected "ask", "unattended", "edit" or "skip", got "sometimes"
 */
export function parseToolsConfig(json: unknown): Result<ToolsConfig, ConfigError> {
  const plain = plainToolsConfig(json);
  if (plain !== undefined) return ok(plain);
  try {
    const parsed = configSchemas().tools.safeParse(json, { reportInput: true });
    if (parsed.success) return ok(parsed.data);
    const [first, ...rest] = parsed.error.issues;
    if (first === undefined) return err(configError([], "is invalid"));
    const { path, reason } = describeIssue(first);
    const more = rest.length === 0 ? "" : ` (and ${rest.length} more problem${plural(rest)})`;
    return err(configError(path, `${reason}${more}`));
  } catch (cause) {
    // Hostile input (a throwing getter, a Proxy) must still get an answer, not an exception.
    const reason = cause instanceof Error ? cause.message : String(cause);
    return err(configError([], `could not be read: ${reason}`));
  }
}

/**
 * The dotted path of a setting under `conversation.tools`, quoting keys that are not bare TOML
 * keys: `["*", "run"]` → `conversation.tools."*".run`, `["x", "command", "args", 0]` →
 * `conversation.tools.x.command.args[0]`.
 */
export function configPath(segments: readonly PropertyKey[]): string {
  return `conversation.tools${segments.map(formatSegment).join("")}`;
}

function formatSegment(key: PropertyKey): string {
  if (typeof key === "number") return `[${key}]`;
  if (typeof key === "symbol") return "";
  return /^[A-Za-z0-9_-]+$/.test(key) ? `.${key}` : `.${JSON.stringify(key)}`;
}

/** Builds a {@link ConfigError} whose message is `<path>: <reason>`. */
export function configError(segments: readonly PropertyKey[], reason: string): ConfigError {
  const path = configPath(segments);
  return { kind: "invalid-config", path, message: `${path}: ${reason}` };
}

interface Problem {
  readonly path: readonly PropertyKey[];
  readonly reason: string;
}

function describeIssue(issue: z.core.$ZodIssue): Problem {
  if (issue.code === "invalid_union") {
    // An input that had the outer shape of exactly one alternative (e.g. `enable = { state = 1 }`)
    // is best explained by that alternative's own, deeper problem.
    const deeper = issue.errors.filter((issues) => issues.every((inner) => inner.path.length > 0));
    const [only] = deeper;
    if (deeper.length === 1 && only?.[0] !== undefined) {
      const inner = describeIssue(only[0]);
      return { path: [...issue.path, ...inner.path], reason: inner.reason };
    }
  }
  if (issue.code === "unrecognized_keys") return unknownKeys(issue);
  const expected = expectations(issue);
  if (expected.length === 0) return { path: issue.path, reason: issue.message };
  if (issue.input === undefined) {
    return { path: issue.path, reason: `is missing (expected ${orList(expected)})` };
  }
  return { path: issue.path, reason: `expected ${orList(expected)}, got ${describe(issue.input)}` };
}

/** The keys each strict table accepts, to suggest the one that was meant. */
const KNOWN_KEYS: Readonly<Record<string, readonly string[]>> = {
  detached: ["run", "deliver", "tool"],
  questions: ["target", "answer", "prompt_label", "exclusive"],
};

// `detached = { result = "auto" }` → `…detached.result: unknown key (did you mean "deliver"? …)`
function unknownKeys(issue: z.core.$ZodIssueUnrecognizedKeys): Problem {
  const [key = ""] = issue.keys;
  const table = issue.path.at(-1) === "detached" ? "detached" : "questions";
  const known = KNOWN_KEYS[table] ?? [];
  const meant = suggestion(key, table === "detached" ? [...known, "result"] : known);
  const hint =
    meant === "result" || (table === "detached" && key === "result")
      ? ` (did you mean "deliver"? the prompt kind for result delivery is "deliver")`
      : meant === undefined
        ? ""
        : ` (did you mean "${meant}"?)`;
  const others = issue.keys.length > 1 ? ` and ${issue.keys.length - 1} more unknown key(s)` : "";
  return {
    path: [...issue.path, key],
    reason: `unknown key${hint}${others}; expected one of ${known.map((k) => `"${k}"`).join(", ")}`,
  };
}

// The known key closest to `key`, when it is close enough to be a typo.
function suggestion(key: string, known: readonly string[]): string | undefined {
  if (known.length === 0) return undefined;
  const best = closest(key.toLowerCase(), [...known]);
  return distance(key.toLowerCase(), best) <= Math.max(2, Math.floor(best.length / 3))
    ? best
    : undefined;
}

/** Names of JSON types as a config author reads them. */
const TYPE_NAMES: Readonly<Record<string, string>> = {
  boolean: "true or false",
  string: "a string",
  number: "a number",
  int: "an integer",
  array: "a list",
  object: "a table",
  record: "a table",
};

/** The alternatives an issue says were acceptable, or none if it is not a shape mismatch. */
function expectations(issue: z.core.$ZodIssue): string[] {
  switch (issue.code) {
    case "invalid_type":
      return [TYPE_NAMES[issue.expected] ?? issue.expected];
    case "invalid_value":
      return issue.values.map((value) => JSON.stringify(value) ?? String(value));
    case "invalid_union":
      return issue.errors.flatMap((issues) => {
        const [root] = issues;
        return root === undefined || root.path.length > 0 ? [] : expectations(root);
      });
    default:
      return [];
  }
}

function describe(input: unknown): string {
  if (Array.isArray(input)) return "a list";
  if (typeof input === "object" && input !== null) return "a table";
  if (typeof input === "string" || typeof input === "boolean" || input === null) {
    return JSON.stringify(input);
  }
  return typeof input === "number" ? String(input) : typeof input;
}

function orList(items: readonly string[]): string {
  const unique = [...new Set(items)];
  if (unique.length <= 1) return unique.join("");
  return `${unique.slice(0, -1).join(", ")} or ${unique.at(-1)}`;
}

function plural(items: readonly unknown[]): string {
  return items.length === 1 ? "" : "s";
}
