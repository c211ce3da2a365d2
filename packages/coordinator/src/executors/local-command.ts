import type { JsonObject, JsonValue } from "@jp/conversation";
import { err, ok, type Result } from "neverthrow";
import type {
  ExecuteInput,
  Executor,
  ExecutorResult,
  ExecutorSource,
} from "../backends/executor.js";
import type { CommandConfig } from "../config/schema.js";
import { type AbortCause, abortCause } from "../coordinator/context.js";
import { TURN_ENDED } from "../coordinator/question-round.js";
import {
  EXECUTION_CANCELLED,
  EXECUTION_INTERRUPTED,
  EXECUTION_TIMED_OUT,
} from "../routing/messages.js";
import { interpretCommandOutput } from "./internal-command-output.js";
import { type CommandPlan, planCommand, renderArgs } from "./internal-command-template.js";
import { type ProcessRun, runProcess } from "./internal-run-process.js";

/**
 * The variables a local command receives from the host's environment by default: what programs
 * need to find themselves, their home, their locale and a terminal type. Every `LC_*` variable
 * is passed too. Anything else (API keys, tokens) must be named.
 */
export const DEFAULT_ENV_ALLOWLIST: readonly string[] = [
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "LANG",
  "LANGUAGE",
  "TERM",
  "TZ",
  "TMPDIR",
  "TMP",
  "TEMP",
  // What Windows programs need to start at all.
  "SYSTEMROOT",
  "WINDIR",
  "COMSPEC",
  "PATHEXT",
  "USERPROFILE",
];

const DEFAULT_MAX_OUTPUT_BYTES = 10 * 1024 * 1024;
const DEFAULT_KILL_GRACE_MS = 2000;
// What the model reads when the pass's signal stopped the command: the person's cancel only when
// it was theirs; a deadline, End Turn elsewhere or a shutdown each say so.
const STOPPED: Readonly<Record<AbortCause["type"], string>> = {
  user: EXECUTION_CANCELLED,
  turn_ended: TURN_ENDED,
  timeout: EXECUTION_TIMED_OUT,
  interrupted: EXECUTION_INTERRUPTED,
};

/** What every pass of a local command shares, whichever tool it runs. */
export interface LocalCommandSettings {
  /** The project root: the child's working directory and the context's `root`. */
  readonly root: string;
  /**
   * Extra fields of the context's `context` object, e.g. `conversation_id`, `workspace_id` or
   * `access`; `action` and `root` are always set by the executor. Templates can put these in
   * argv, so they must not hold secrets.
   */
  readonly context?: Readonly<Record<string, JsonValue>>;
  /**
   * The child's whole environment, exactly (nothing of this process's is added). The program is
   * looked up on its `PATH`. Without it the child gets {@link inheritEnv}'s choice.
   */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * Which of this process's environment variables a command receives when `env` is not given:
   * by default only {@link DEFAULT_ENV_ALLOWLIST} (so an API key in the host's environment does
   * not reach every tool), plus the names in a list given here and in the tool's own
   * `command.env`. `true` passes the whole environment: an explicit opt-in.
   */
  readonly inheritEnv?: boolean | readonly string[];
  /** The cap on stdout and, separately, on stderr; beyond it the process is stopped. 10 MiB. */
  readonly maxOutputBytes?: number;
  /** How long a stopped process gets between SIGTERM and SIGKILL; default 2000 ms. */
  readonly killGraceMs?: number;
}

/** Options of {@link createLocalCommandExecutor}. */
export interface LocalCommandExecutorOptions extends LocalCommandSettings {
  /** The tool's name: shown to the command as `tool.name` and recorded as the question source. */
  readonly toolName: string;
  /** The tool's configured `command`. */
  readonly command: CommandConfig;
  /** The tool's configured `options` (JSON values), passed on as `tool.options`. */
  readonly options?: Readonly<Record<string, unknown>>;
}

/**
 * An {@link Executor} that runs a tool's local `command` once per pass, as JP does.
 *
 * - A string command is the path of the program, run without arguments (it is not split on
 *   spaces). The table form `{program, args, shell}` adds arguments.
 * - The program runs directly, never through a shell unless `shell: true` is configured.
 * - Each `args` entry becomes exactly one argv element after its templates are filled in:
 *   `{{tool.name}}`, `{{tool.arguments}}` (JSON), `{{tool.arguments.<key>}}` (a string as it is,
 *   anything else as JSON, absent as ""), `{{tool.options…}}`, `{{context}}`, `{{context.root}}`.
 *   Substituted text is never re-scanned or split. A model-chosen value may still start with
 *   `-`: a program that takes options should be given `--` before such arguments.
 * - `{{tool.answers…}}` (and `{{tool}}`, which holds the answers) are refused: answers can be
 *   secrets, and argv is readable by other local users (`ps`). With `shell: true` every template
 *   is refused, since no quoting is safe in every shell position.
 * - The full JSON context, answers included, is always written to the child's stdin:
 *   `{"tool":{"name","arguments","answers","options"},"context":{"action":"run","root",…}}`.
 * - Stdout holds one JSON `Outcome`; other text is the result (or a failure on a non-zero exit).
 *
 * On POSIX the command runs in its own process group so that cancelling kills what it started;
 * it therefore does not get terminal signals (Ctrl-C) directly: abort the pass's signal instead.
 *
 * Throws a `TypeError` for an unusable `command` (a configuration error).
 *
 * @example
 * ```ts
 * const executor = createLocalCommandExecutor({
 *   toolName: "fs_read_file",
 *   command: { program: "jp-tools", args: ["fs", "read", "{{tool.arguments.path}}"] },
 *   root: process.cwd(),
 * });
 * const result = await executor.execute({ call, answers: {}, signal });
 * ```
 */
export function createLocalCommandExecutor(options: LocalCommandExecutorOptions): Executor {
  const built = buildExecutor(options);
  if (built.isErr()) throw new TypeError(built.error);
  return built.value;
}

/**
 * An {@link ExecutorSource} for tools that have a `command` in their configuration; other tools
 * get `undefined`. A tool whose `command` is unusable gets an executor that reports the problem
 * as the tool's error result, so one bad config entry does not break the turn.
 */
export function createLocalCommandExecutorSource(settings: LocalCommandSettings): ExecutorSource {
  return {
    executorFor(_call, config) {
      if (config.command === undefined) return undefined;
      const built = buildExecutor({
        ...settings,
        toolName: config.name,
        command: config.command,
        options: config.options,
      });
      if (built.isOk()) return built.value;
      const content = built.error;
      return { execute: async () => ({ type: "completed", content, is_error: true }) };
    },
  };
}

/** Everything a pass needs, checked once when the executor is built. */
interface Prepared {
  readonly plan: CommandPlan;
  readonly toolName: string;
  readonly root: string;
  readonly context: JsonObject;
  readonly toolOptions: JsonObject;
  readonly env: Readonly<Record<string, string>> | undefined;
  readonly maxOutputBytes: number;
  readonly killGraceMs: number;
}

function buildExecutor(options: LocalCommandExecutorOptions): Result<Executor, string> {
  const prepared = prepare(options);
  if (prepared.isErr()) {
    return err(`Tool '${options.toolName}' has an invalid command: ${prepared.error}`);
  }
  return ok({ execute: (input) => runPass(prepared.value, input) });
}

function prepare(options: LocalCommandExecutorOptions): Result<Prepared, string> {
  const maxOutputBytes = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  const killGraceMs = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  if (!(maxOutputBytes >= 0) || !(killGraceMs >= 0)) {
    return err("maxOutputBytes and killGraceMs must be non-negative numbers");
  }
  // Later keys win, so the executor's own `action` and `root` cannot be replaced.
  const context: JsonObject = { ...options.context, action: "run", root: options.root };
  const plan = planCommand(options.command, new Set(Object.keys(context)));
  if (plan.isErr()) return err(plan.error);
  return ok({
    plan: plan.value,
    toolName: options.toolName,
    root: options.root,
    context,
    // Config options are JSON by construction (the config schema reads them as JSON).
    toolOptions: (options.options ?? {}) as JsonObject,
    env: options.env ?? childEnv(options.inheritEnv, commandEnvNames(options.command)),
    maxOutputBytes,
    killGraceMs,
  });
}

/** The names a tool's table-form `command.env` asks for. */
function commandEnvNames(command: CommandConfig): readonly string[] {
  return typeof command === "object" && command.env !== undefined ? command.env : [];
}

// The environment a command gets from this process: the allowlist and the names asked for, or
// everything when the host opted in. Names compare case-insensitively on Windows only.
function childEnv(
  inherit: boolean | readonly string[] | undefined,
  named: readonly string[],
): Readonly<Record<string, string>> | undefined {
  if (inherit === true) return undefined;
  const wanted = new Set([
    ...DEFAULT_ENV_ALLOWLIST,
    ...(Array.isArray(inherit) ? inherit : []),
    ...named,
  ]);
  const windows = process.platform === "win32";
  const wantedUpper = windows ? new Set([...wanted].map((name) => name.toUpperCase())) : wanted;
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value === undefined) continue;
    const key = windows ? name.toUpperCase() : name;
    if (wantedUpper.has(key) || key.startsWith("LC_")) env[name] = value;
  }
  return env;
}

async function runPass(
  prepared: Prepared,
  { call, answers, signal }: ExecuteInput,
): Promise<ExecutorResult> {
  const { plan, toolName, context, toolOptions } = prepared;
  const input: JsonObject = {
    tool: { name: toolName, arguments: call.arguments, answers, options: toolOptions },
    context,
  };
  const run = await runProcess({
    program: plan.program,
    args: renderArgs(plan, input),
    shell: plan.shell,
    cwd: prepared.root,
    env: prepared.env,
    stdin: JSON.stringify(input),
    signal,
    maxOutputBytes: prepared.maxOutputBytes,
    killGraceMs: prepared.killGraceMs,
  });
  return resultOf(run, prepared, signal);
}

function resultOf(run: ProcessRun, prepared: Prepared, signal: AbortSignal): ExecutorResult {
  const { toolName } = prepared;
  switch (run.type) {
    case "exited":
      return interpretCommandOutput(toolName, { ...run, exitCode: run.code });
    case "cancelled":
      return failed(STOPPED[abortCause(signal).type]);
    case "overflow":
      return failed(
        `Tool '${toolName}' output exceeded ${prepared.maxOutputBytes} bytes on ${run.stream}; ` +
          "the process was stopped.",
      );
    case "spawn_failed":
      return failed(`Tool '${toolName}' could not be started: ${spawnProblem(run, prepared)}`);
  }
}

function spawnProblem(
  run: Extract<ProcessRun, { type: "spawn_failed" }>,
  prepared: Prepared,
): string {
  const program = JSON.stringify(prepared.plan.program);
  switch (run.code) {
    case "ENOENT":
      // Node reports a missing working directory with the same code as a missing program.
      return `program ${program} was not found (or the directory ${JSON.stringify(prepared.root)} does not exist).`;
    case "EACCES":
      return `program ${program} is not executable.`;
    default:
      return `program ${program}: ${run.message}`;
  }
}

function failed(content: string): ExecutorResult {
  return { type: "completed", content, is_error: true };
}
