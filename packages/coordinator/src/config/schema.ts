import type { z } from "zod";
import { lazy, lazySchema, zod } from "../internal/lazy.js";

// JP's tool configuration (`conversation.tools.<name>`, defaults under `conversation.tools."*"`)
// as zod schemas. Every field is optional here: these are the *partial* layers (built-in
// defaults, user config, per-run overrides) that `layerToolConfigs` merges field by field and
// `resolveToolConfig` turns into a complete {@link ResolvedToolConfig}. They are built (and zod
// loaded) on first use.

function buildConfigSchemas() {
  const z = zod();
  const jsonValue = z.json();
  /** Who may flip a tool's `enable.state` with CLI-style directives (RFD 081). */
  const allowToggle = z.enum(["any", "never", "if_named", "if_named_or_group"]);
  /** The table form of `enable`: both fields optional in a layer. */
  const enableTable = z.object({
    state: z.boolean().optional(),
    allow_toggle: allowToggle.optional(),
  });
  /**
   * `enable` as written: a boolean, a legacy string (`"on"`, `"off"`, `"always"`, `"explicit"`)
   * or the table `{state, allow_toggle}`. Read into the table form.
   */
  const enable = z
    .union([z.boolean(), z.enum(["on", "off", "always", "explicit"]), enableTable])
    .transform((value): z.infer<typeof enableTable> => {
      switch (value) {
        case true:
        case "on":
          return { state: true, allow_toggle: "any" };
        case false:
        case "off":
          return { state: false, allow_toggle: "any" };
        case "always":
          return { state: true, allow_toggle: "never" };
        case "explicit":
          return { state: false, allow_toggle: "if_named" };
        default:
          return value;
      }
    });
  /** Whether to ask before running a tool: `ask` (default), `unattended`, `edit`, `skip`. */
  const runMode = z.enum(["ask", "unattended", "edit", "skip"]);
  /** Whether to ask before delivering a result: `unattended` (default), `ask`, `edit`, `skip`. */
  const resultMode = z.enum(["unattended", "ask", "edit", "skip"]);
  /** What to do with a prompt when no human is reachable (RFD 049). */
  const detachedMode = z.enum(["auto", "defaults", "deny"]);
  /** `detached` as written: one mode for every prompt kind, or a table per kind. */
  const detached = z.union([
    detachedMode,
    // Strict: `detached = { result = "auto" }` is the naming trap RFD 049 warns about (the prompt
    // kind is `deliver`); a silently dropped key would leave `deny` in force.
    z.strictObject({
      run: detachedMode.optional(),
      deliver: detachedMode.optional(),
      tool: detachedMode.optional(),
    }),
  ]);
  /** Who answers a question: `user` (default) or `assistant` (a map is an assistant override). */
  const questionTarget = z.union([z.enum(["user", "assistant"]), z.record(z.string(), jsonValue)]);
  /** Per-question configuration: `conversation.tools.<tool>.questions.<id>`. */
  const question = z.strictObject({
    target: questionTarget.optional(),
    /** A fixed answer: the question is never shown to anyone. Validated against the question. */
    answer: jsonValue.optional(),
    /** Display-only "who's asking" header; no effect on routing or recorded provenance. */
    prompt_label: z.string().optional(),
    /** Overrides the question's own `exclusive` (cannot lift the secret guard). */
    exclusive: z.boolean().optional(),
  });
  /** How a tool is shown; `hidden` hides its call and result (it still runs and is recorded). */
  const style = z.looseObject({ hidden: z.boolean().optional() });
  /** A local command: a string program, or `{program, args?, shell?}`. */
  const command = z.union([
    z.string(),
    z.object({
      program: z.string(),
      args: z.array(z.string()).optional(),
      shell: z.boolean().optional(),
      /** Names of host environment variables this command receives besides the default allowlist. */
      env: z.array(z.string()).optional(),
    }),
  ]);
  /** One layer of a tool's configuration (`conversation.tools.<name>` or the `"*"` defaults). */
  const tool = z.looseObject({
    source: z.string().optional(),
    enable: enable.optional(),
    command: command.optional(),
    summary: z.string().optional(),
    description: z.string().optional(),
    examples: z.string().optional(),
    parameters: z.record(z.string(), jsonValue).optional(),
    run: runMode.optional(),
    result: resultMode.optional(),
    cancellation_response: z.string().optional(),
    style: style.optional(),
    questions: z.record(z.string(), question).optional(),
    options: z.record(z.string(), jsonValue).optional(),
    detached: detached.optional(),
  });
  return {
    allowToggle,
    enable,
    runMode,
    resultMode,
    detachedMode,
    detached,
    questionTarget,
    question,
    style,
    command,
    tool,
    /** `conversation.tools`: tool name → layer, with the defaults of every tool under `"*"`. */
    tools: z.record(z.string(), tool),
  };
}

/** The zod schemas of the tool configuration, built (and zod loaded) on first use. */
export const configSchemas = lazy(buildConfigSchemas);
type Schemas = ReturnType<typeof buildConfigSchemas>;

/** Who may flip a tool's `enable.state`: `any` (default), `never`, `if_named`, `if_named_or_group`. */
export type AllowToggle = z.infer<Schemas["allowToggle"]>;
/** `enable` in table form, as stored after reading any of its written forms. */
export type EnableConfig = z.output<Schemas["enable"]>;

/** The resolved `enable`: whether the tool is on, and who may toggle it. */
export interface Enable {
  readonly state: boolean;
  readonly allow_toggle: AllowToggle;
}

/** Whether to ask before running a tool. */
export type RunMode = z.infer<Schemas["runMode"]>;
/** Whether to ask before delivering a tool's result to the assistant. */
export type ResultMode = z.infer<Schemas["resultMode"]>;
/** What to do with a prompt when no human is reachable: `auto`, `defaults` or `deny`. */
export type DetachedMode = z.infer<Schemas["detachedMode"]>;

/** The prompt kinds a detached policy is set for. */
export type PromptKind = "run" | "deliver" | "tool";

/** `detached` as written: a scalar for every kind, or `{run?, deliver?, tool?}`. */
export type DetachedConfig = z.infer<Schemas["detached"]>;
/** `"user"`, `"assistant"`, or a map of assistant overrides (meaning `assistant`). */
export type QuestionTarget = z.infer<Schemas["questionTarget"]>;
/** Per-question configuration. */
export type QuestionConfig = z.infer<Schemas["question"]>;
/** How a tool is shown. Fields besides `hidden` are kept for hosts that render them. */
export type StyleConfig = z.infer<Schemas["style"]>;
/** A local command to run for a tool. */
export type CommandConfig = z.infer<Schemas["command"]>;

/** One layer of a tool's configuration (`conversation.tools.<name>` or the `"*"` defaults). */
export const toolConfigSchema = lazySchema(() => configSchemas().tool);
/** One layer of a tool's configuration. */
export type ToolConfig = z.output<Schemas["tool"]>;

/** `conversation.tools`: tool name → layer, with the defaults of every tool under `"*"`. */
export const toolsConfigSchema = lazySchema(() => configSchemas().tools);
/** `conversation.tools`: tool name → configuration layer; `"*"` holds the defaults. */
export type ToolsConfig = z.output<Schemas["tools"]>;

/** JP's canned answer for a tool call the user rejected. */
export const DEFAULT_CANCELLATION_RESPONSE =
  "This tool request was intentionally rejected by the user. Please evaluate and either ask the user why it was rejected, or infer the reason by looking at the historical messages in the conversation.";

/** A tool's configuration with every layer and default applied. */
export interface ResolvedToolConfig {
  readonly name: string;
  readonly source: string | undefined;
  readonly enable: Enable;
  readonly command: CommandConfig | undefined;
  readonly description: string | undefined;
  readonly parameters: Readonly<Record<string, unknown>>;
  readonly run: RunMode;
  readonly result: ResultMode;
  readonly cancellation_response: string;
  readonly style: StyleConfig & { readonly hidden: boolean };
  readonly questions: Readonly<Record<string, QuestionConfig>>;
  readonly options: Readonly<Record<string, unknown>>;
  /** The detached policy per prompt kind, after the five-level cascade. */
  readonly detached: Readonly<Record<PromptKind, DetachedMode>>;
}
