import type { InquirySource, JsonObject, JsonValue } from "@jp/conversation";
import type { Outcome, Question } from "@jp/tool";
import type { ResolvedToolConfig, ToolConfig, ToolsConfig } from "../config/schema.js";
import type { ToolCoordinator } from "../coordinator/tool-coordinator.js";

/** The answers collected so far for one tool call, keyed by question id, latest answer wins. */
export type Answers = Readonly<Record<string, JsonValue>>;

/** One tool call to execute. */
export interface ToolCall {
  readonly id: string;
  readonly name: string;
  readonly arguments: JsonObject;
}

/** Position of a question in a multi-question form, reported by the tool that walks it. */
export interface FormProgress {
  /** 1-based position of this question among the questions the form will ask. */
  readonly index: number;
  readonly total: number;
}

/**
 * The result of one pass of a tool: done, or a question to answer before the next pass. The
 * question's `source` is resolved here, at the executor boundary, from tool metadata only.
 */
export type ExecutorResult =
  | { readonly type: "completed"; readonly content: string; readonly is_error: boolean }
  | {
      readonly type: "needs_input";
      readonly question: Question;
      readonly source: InquirySource;
      /** Present when the question is part of a form: enables progress and form controls. */
      readonly form?: FormProgress;
    };

/** What one pass of a tool receives. */
export interface ExecuteInput {
  readonly call: ToolCall;
  readonly answers: Answers;
  /**
   * The ids of the answers in `answers` that nobody gave: the detached `defaults` policy took the
   * question's default (see {@link BuiltinToolInput.answeredByDefault}).
   */
  readonly answeredByDefault?: ReadonlySet<string>;
  /** Aborts when the run stops: the host's signal aborts, or the person ends the turn. */
  readonly signal: AbortSignal;
  /**
   * The same stop as `signal`, for an executor that only needs to know whether and when to stop.
   * Reading it costs nothing, where the first read of `signal` makes the run's `AbortSignal`
   * (microseconds, which count when a pass is short). The coordinator always gives it; an input
   * made elsewhere may not, which {@link runStopOf} covers.
   */
  readonly stop?: RunStop;
  /**
   * The coordinator running the call; `coordinator.stream` is the conversation the call is
   * recorded in. A tool call's id is unique only within its conversation: an executor shared by
   * several conversations (one MCP connection serving them) tells their calls apart by it, and
   * may follow the coordinator's events while the call runs. The coordinator always gives it; an
   * input made elsewhere may not.
   */
  readonly coordinator?: ToolCoordinator;
}

/** A run's stop, read without making an `AbortSignal` (see {@link ExecuteInput.stop}). */
export interface RunStop {
  /** Whether the run has stopped, as `signal.aborted`. */
  readonly aborted: boolean;
  /** Why it stopped, as `signal.reason`; `undefined` while it runs. */
  readonly reason: unknown;
  /**
   * Calls `listener` once when the run stops, with the reason, and returns what removes it. As
   * with an `AbortSignal`'s listeners, one added after the run stopped is never called: read
   * `aborted` first.
   */
  onAbort(listener: (reason: unknown) => void): () => void;
}

/** The input's {@link RunStop}: its `stop`, or one that follows its `signal`. */
export function runStopOf(input: {
  readonly signal: AbortSignal;
  readonly stop?: RunStop | undefined;
}): RunStop {
  return input.stop ?? new SignalStop(input.signal);
}

// A RunStop over an AbortSignal, for inputs made without a `stop`.
class SignalStop implements RunStop {
  readonly #signal: AbortSignal;

  constructor(signal: AbortSignal) {
    this.#signal = signal;
  }

  get aborted(): boolean {
    return this.#signal.aborted;
  }

  get reason(): unknown {
    return this.#signal.reason;
  }

  onAbort(listener: (reason: unknown) => void): () => void {
    return listenForAbort(this.#signal, listener);
  }
}

/** `RunStop.onAbort` on an `AbortSignal`: calls `listener` once it aborts, with its reason. */
export function listenForAbort(
  signal: AbortSignal,
  listener: (reason: unknown) => void,
): () => void {
  const onAbort = () => listener(signal.reason);
  signal.addEventListener("abort", onAbort, { once: true });
  return () => signal.removeEventListener("abort", onAbort);
}

/** Runs passes of one kind of tool. A pass that throws is reported to the model as an error. */
export interface Executor {
  execute(input: ExecuteInput): Promise<ExecutorResult>;
}

/** Finds the executor for a tool call; `undefined` means the tool is not available. */
export interface ExecutorSource {
  executorFor(call: ToolCall, config: ResolvedToolConfig): Executor | undefined;
  /**
   * The registered configuration of the tools this source runs, by name (see
   * {@link BuiltinTool.config}). `ToolCoordinator` layers it under its `tools`, so a tool keeps
   * its built-in settings when the host's configuration does not name it; what the host writes
   * wins field by field.
   */
  toolConfigs?(): ToolsConfig;
}

/** What a built-in tool receives on each pass. */
export interface BuiltinToolInput {
  readonly arguments: JsonObject;
  readonly answers: Answers;
  /**
   * The ids of the questions in `answers` that nobody answered: no person could be asked (or
   * none answered a suspended prompt before its deadline), and the detached `defaults` policy
   * gave each its question's own `default` (recorded as `answered` with
   * `metadata: {"answered_by": "default"}`). Their values are in `answers` like any other; a tool
   * that tells the model what was answered must say that these were not the person's answers.
   * Read-only, and unchanged by later answers. It holds every such answer the call has collected,
   * over all its passes and across a suspended turn saved, loaded and resumed; a question a
   * person answers again leaves it. The coordinator always gives it (empty when every answer was
   * given); an input made elsewhere may not.
   *
   * @example
   * if (input.answeredByDefault?.has("confirm")) return success("No one confirmed; the default was used.");
   */
  readonly answeredByDefault?: ReadonlySet<string>;
  /** Aborts when the run stops: the host's signal aborts, or the person ends the turn. */
  readonly signal: AbortSignal;
  /** The same stop, read without making the signal (see {@link ExecuteInput.stop}). */
  readonly stop?: RunStop;
}

/**
 * A tool implemented in TypeScript. It is run again from scratch with the accumulated answers
 * after each question it asks (`needs_input`), until it returns `success` or `error`.
 */
export interface BuiltinTool {
  execute(input: BuiltinToolInput): Promise<BuiltinOutcome> | BuiltinOutcome;
  /**
   * The recorded source of this tool's questions. Default `{"source":"tool","name"}`; a tool
   * whose questions are the assistant's own (`ask_user`) returns `{"source":"assistant"}`.
   */
  inquirySource?(name: string): InquirySource;
  /**
   * The tool's registered configuration (how JP registers a built-in): with
   * `builtinExecutorSource`, `ToolCoordinator` layers it under the host's `tools`. `ask_user`'s
   * says it runs without a permission prompt, delivers its result without one, and labels its
   * prompts "Assistant", so a coordinator built by hand behaves as `createCoordinator`'s does.
   */
  readonly config?: ToolConfig;
}

/** A built-in's outcome: JP's `Outcome`, where `needs_input` may also carry form progress. */
export type BuiltinOutcome =
  | Outcome
  | { readonly type: "needs_input"; readonly question: Question; readonly form: FormProgress };
