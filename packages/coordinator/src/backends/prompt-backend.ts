import type { JsonObject, JsonValue } from "@jp/conversation";
import type { Question } from "@jp/tool";

// Every prompt a human may see goes through one method, so a terminal, a JSON-RPC client, a web
// UI or a test script can implement it. Requests and replies are plain JSON with snake_case
// fields: they cross process boundaries as they are (see @jp/rpc).

/** The controls a question prompt offers besides answering. */
export interface QuestionControls {
  /** Offer "remember for this turn" (git-style `Y`/`N` for booleans). */
  readonly remember: boolean;
  /** Offer going back to the previous question of a form. */
  readonly back: boolean;
  /** Offer leaving the form and replying to the assistant in words. */
  readonly reply: boolean;
  /** Offer ending the turn. */
  readonly end_turn: boolean;
}

/** A tool's question, to be answered by a human. */
export interface QuestionPromptRequest {
  readonly kind: "question";
  readonly tool_name: string;
  readonly tool_call_id: string;
  /** The id of the recorded `inquiry_request` this prompt answers. */
  readonly inquiry_id: string;
  readonly question: Question;
  /** The "who's asking" header (`questions.<id>.prompt_label`), e.g. `"Assistant"`. */
  readonly prompt_label?: string;
  /** Position in a multi-question form, 1-based; absent for a lone question. */
  readonly progress?: { readonly index: number; readonly total: number };
  readonly controls: QuestionControls;
  /** A value to pre-fill (an earlier answer when going back); otherwise the question's default. */
  readonly initial?: JsonValue;
  /** Why the question is asked again, e.g. the previous answer did not validate. */
  readonly error?: string;
}

/** Whether a tool may run (the tool's `run` mode is `ask` or `edit`). */
export interface PermissionPromptRequest {
  readonly kind: "permission";
  readonly tool_name: string;
  readonly tool_call_id: string;
  /**
   * The prompt's id, set when it is not `<tool_call_id>#permission`: on a sub-agent's prompt
   * escalated through the tool call that hosts it (see docs/durable-questions.md).
   */
  readonly prompt_id?: string;
  /** Where the tool comes from, e.g. `builtin`, `local`, `mcp`. */
  readonly tool_source?: string;
  readonly arguments: JsonObject;
  /** `edit` opens the arguments for editing first; `ask` asks run or skip. */
  readonly mode: "ask" | "edit";
}

/** Whether a tool's result may go to the assistant (the tool's `result` mode is `ask` or `edit`). */
export interface DeliverPromptRequest {
  readonly kind: "deliver";
  readonly tool_name: string;
  readonly tool_call_id: string;
  /**
   * The prompt's id, set when it is not `<tool_call_id>#deliver`: on a sub-agent's prompt
   * escalated through the tool call that hosts it (see docs/durable-questions.md).
   */
  readonly prompt_id?: string;
  readonly content: string;
  readonly is_error: boolean;
  /** `edit` opens the result for editing first; `ask` asks deliver, skip or edit. */
  readonly mode: "ask" | "edit";
}

/** Any prompt a human may be shown. */
export type PromptRequest = QuestionPromptRequest | PermissionPromptRequest | DeliverPromptRequest;

/** The human's reply to a question. */
export type QuestionReply =
  | { readonly type: "answer"; readonly value: JsonValue; readonly remember?: boolean }
  | { readonly type: "back" }
  | { readonly type: "reply"; readonly message?: string }
  | { readonly type: "end_turn" }
  | { readonly type: "cancelled" };

/** The human's reply to a permission prompt. */
export type PermissionReply =
  | { readonly type: "run"; readonly remember?: boolean }
  | { readonly type: "skip"; readonly reason?: string; readonly remember?: boolean }
  | { readonly type: "edit"; readonly arguments: JsonObject }
  | { readonly type: "cancelled" };

/** The human's reply to a result-delivery prompt. */
export type DeliverReply =
  | { readonly type: "deliver" }
  | { readonly type: "skip" }
  | { readonly type: "edit"; readonly content: string }
  | { readonly type: "cancelled" };

/** The reply type that answers a request of kind `R["kind"]`. */
export type ReplyFor<R extends PromptRequest> = R extends QuestionPromptRequest
  ? QuestionReply
  : R extends PermissionPromptRequest
    ? PermissionReply
    : DeliverReply;

/**
 * A backend's reply meaning "nobody can answer this now; ask later": the turn suspends at the
 * prompt (it is recorded and left pending, as with the `suspend` run option), so a person can
 * answer it from anywhere and the turn resumes. A sub-agent's prompt escalated to its parent
 * waits the same way: the parent's hosting call suspends at it.
 */
export interface LaterReply {
  readonly type: "later";
}

/** Options of {@link PromptBackend.ask}. */
export interface AskOptions {
  /** Aborts the prompt; the backend then resolves `{type: "cancelled"}` (or rejects). */
  readonly signal: AbortSignal;
}

/**
 * Puts prompts in front of a human. The coordinator shows one prompt at a time. A rejected
 * promise counts as a backend failure; user cancellation should resolve `{type: "cancelled"}`.
 */
export interface PromptBackend {
  /** Whether a human can answer now (a terminal opens, a client is connected). */
  isHumanReachable(): boolean | Promise<boolean>;
  /**
   * Shows one prompt and resolves with the human's reply, or with `{type: "later"}` to leave the
   * prompt pending (see {@link LaterReply}).
   */
  ask<R extends PromptRequest>(request: R, options: AskOptions): Promise<ReplyFor<R> | LaterReply>;
}

/**
 * Reject {@link PromptBackend.ask} with this when the person cannot be reached at all: a UI
 * client disconnected, the terminal went away. The coordinator records the prompt (and every
 * prompt queued behind it) as a backend failure, never as the person's decision, and tells the
 * model that the person could not be reached.
 */
export class HumanUnreachableError extends Error {
  override readonly name = "HumanUnreachableError";
}

/**
 * Reject {@link PromptBackend.ask} with this when the person is there but this backend cannot
 * put the prompt in front of them (a client that only answers some answer types). `message` goes
 * to the model as it is, so say what the person *can* answer, e.g. `this person can only answer
 * boolean, select and text questions`.
 */
export class PromptUnsupportedError extends Error {
  override readonly name = "PromptUnsupportedError";
}

/**
 * Reject {@link PromptBackend.ask} with this when the backend gave the person a deadline of its
 * own and it passed without an answer (a UI that closes the dialog after a while, an RPC client
 * that did not answer in time). The coordinator records `timeout`, as for its own
 * `promptTimeoutMs`: never the person's decline, never a broken backend.
 */
export class PromptTimedOutError extends Error {
  override readonly name = "PromptTimedOutError";
  /** The deadline, in milliseconds, when the backend knows it. */
  readonly ms: number | undefined;
  constructor(message: string, options: { readonly ms?: number; readonly cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.ms = options.ms;
  }
}
