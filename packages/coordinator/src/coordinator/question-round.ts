import { type CancellationReason, createEvent, type JsonValue } from "@jp/conversation";
import { type Question, reusePolicy, validateAnswer } from "@jp/tool";
import { err, type Result } from "neverthrow";
import type { ExecutorResult, ToolCall } from "../backends/executor.js";
import type { InquiryError } from "../backends/inquiry-backend.js";
import type {
  QuestionControls,
  QuestionPromptRequest,
  QuestionReply,
} from "../backends/prompt-backend.js";
import { ownQuestionConfig, questionConfigFor } from "../config/question-config.js";
import type { QuestionConfig, QuestionTarget, ResolvedToolConfig } from "../config/schema.js";
import { inquiryId, toInquiryQuestion } from "../recording/inquiry-question.js";
import {
  answeredByDefaultNote,
  INPUT_CANCELLED,
  INPUT_INTERRUPTED,
  INPUT_PROMPT_FAILED,
  inputTimedOutMessage,
  inputUnreachableMessage,
  inputUnsupportedMessage,
  inquiryCancelledByBackend,
  inquiryFailedMessage,
} from "../routing/messages.js";
import { type Route, routeQuestion, targetOf } from "../routing/route-question.js";
import type { AnswerWalk } from "./answer-walk.js";
import {
  type AbortCause,
  abortCause,
  describe,
  formatSeconds,
  type PromptFailure,
  type PromptHooks,
  type PromptResult,
  type RunContext,
  record,
  refused,
  showPrompt,
} from "./context.js";
import type { QuestionRoute } from "./events.js";

type NeedsInput = Extract<ExecutorResult, { type: "needs_input" }>;

/** How one question ended for the tool call that asked it. */
export type QuestionOutcome =
  | {
      readonly type: "answer";
      readonly value: JsonValue;
      readonly prompted: boolean;
      /** Nobody gave it: the detached `defaults` policy took the question's default. */
      readonly byDefault?: true;
    }
  | { readonly type: "back" }
  /** Left pending: the call suspends with this prompt. */
  | { readonly type: "suspended"; readonly request: QuestionPromptRequest }
  | {
      readonly type: "stop";
      readonly content: string;
      readonly is_error: boolean;
      readonly endTurn?: boolean;
    };

/**
 * RFD 082's mapping from an inquiry backend's error to the recorded reason. `cancelled` reads as
 * `user` only while the run was stopped by the person; a backend that reports `cancelled` while the
 * run goes on is recorded as `backend_error` (see `askAssistant`).
 */
export const INQUIRY_ERROR_REASONS: Readonly<Record<InquiryError["kind"], CancellationReason>> = {
  cancelled: "user",
  provider: "backend_error",
  missing_structured_data: "backend_error",
  answer_extraction: "backend_error",
  other: "backend_error",
};

/**
 * A person who replies with something that does not fit is asked again, with the error, as long as
 * they keep trying something new. The same misfit reply this many times in a row is a backend
 * stuck in a loop, not a person: that question fails alone.
 */
export const MAX_REPEATED_INVALID_REPLIES = 3;
/** However the replies vary, a question is not shown more often than this. */
export const MAX_PROMPTS_PER_QUESTION = 20;

/** The text a tool gets back when the human ends the turn from one of its prompts. */
export const TURN_ENDED = "The user ended the turn.";

/** How a prompt that ended without the person's answer is recorded, and what the model reads. */
export interface Stopped {
  readonly reason: CancellationReason;
  readonly content: string;
  readonly is_error: boolean;
}

/**
 * The record and model text for a question whose run aborted: the person's cancel only when it
 * was theirs; a deadline, the End Turn of another prompt or a shutdown each say so.
 */
export function stoppedByAbort(cause: AbortCause): Stopped {
  switch (cause.type) {
    case "user":
      return { reason: "user", content: INPUT_CANCELLED, is_error: false };
    case "turn_ended":
      return { reason: "turn_ended", content: TURN_ENDED, is_error: false };
    case "timeout": {
      const within = cause.ms === undefined ? undefined : formatSeconds(cause.ms);
      return { reason: "timeout", content: inputTimedOutMessage(within), is_error: false };
    }
    case "interrupted":
      return { reason: "interrupted", content: INPUT_INTERRUPTED, is_error: false };
  }
}

/** The record and model text for a prompt backend that failed. */
export function stoppedByFailure(failure: PromptFailure, error: string): Stopped {
  switch (failure) {
    case "unreachable":
      return { reason: "backend_error", content: inputUnreachableMessage(error), is_error: true };
    case "unsupported":
      return { reason: "backend_error", content: inputUnsupportedMessage(error), is_error: true };
    case "malformed":
    case "other":
      return { reason: "backend_error", content: INPUT_PROMPT_FAILED, is_error: true };
  }
}

const isSecret = (question: Question) => question.answer_type.type === "secret";

// The answer remembered this turn for the call's tool and question; a turn without any costs no
// lookup (the key is a new string to hash on every question).
function rememberedFor(ctx: RunContext, call: ToolCall, question: Question): JsonValue | undefined {
  if (ctx.turn.remembered_tool_answers.size === 0) return undefined;
  return ctx.turn.rememberedAnswer(call.name, question.id);
}

/**
 * The `metadata` key of an `answered` response that nobody gave: `"default"` when the detached
 * `defaults` policy answered with the question's default because no person was reachable. JP's
 * `answered` says only what the tool received; the envelope's metadata says who did not answer.
 */
export const ANSWERED_BY_METADATA_KEY = "answered_by";

function recordAnswer(
  ctx: RunContext,
  id: string,
  question: Question,
  answer: JsonValue,
  by?: "default",
): void {
  // A secret reaches the tool in memory only; the record says it was answered, never with what.
  record(
    ctx,
    isSecret(question)
      ? createEvent("inquiry_response", { outcome: "redacted", id })
      : createEvent("inquiry_response", {
          outcome: "answered",
          id,
          answer,
          ...(by === undefined ? {} : { metadata: { [ANSWERED_BY_METADATA_KEY]: by } }),
        }),
  );
}

/**
 * A form's answers so far, as a result the model reads when the call ends early: `answered`, and
 * for answers nobody gave (the question's default, taken by the detached `defaults` policy) their
 * ids in `answered_by_default` and a `note` that says so. Secrets are left out.
 */
function answeredSoFar(walk: AnswerWalk): Record<string, JsonValue> {
  const answered = walk.disclosable();
  const byDefault = walk.disclosableByDefault();
  if (byDefault.length === 0) return { answered };
  return {
    answered,
    answered_by_default: byDefault.map(([id]) => id),
    note: answeredByDefaultNote(byDefault),
  };
}

function recordCancelled(ctx: RunContext, id: string, reason: CancellationReason): void {
  record(ctx, createEvent("inquiry_response", { outcome: "cancelled", id, reason }));
}

function stop(ctx: RunContext, id: string, stopped: Stopped): QuestionOutcome {
  recordCancelled(ctx, id, stopped.reason);
  return { type: "stop", content: stopped.content, is_error: stopped.is_error };
}

/**
 * Resolves one `needs_input`: records the request before anything else, routes the question,
 * and records how it ended. A reply that does not fit is recorded and asked again as a new
 * attempt, so every prompt shown is its own closed pair. Without a promise when nobody is
 * asked (a static, remembered or default answer, a refusal).
 */
export function resolveQuestion(
  ctx: RunContext,
  call: ToolCall,
  config: ResolvedToolConfig,
  need: NeedsInput,
  walk: AnswerWalk,
  resumeAt?: PendingQuestion,
): QuestionOutcome | Promise<QuestionOutcome> {
  return new QuestionAttempts(ctx, call, config, need, walk, resumeAt).attempt(0);
}

/**
 * One question's attempts, each recorded and routed; a prompt's reply that does not fit makes
 * the next. A plain object with steps rather than an async function: a question round is on the
 * hot path, and an async function's frame, with a slot for each of its locals, and its promise
 * are several times the size of this object.
 */
class QuestionAttempts {
  readonly #ctx: RunContext;
  readonly #call: ToolCall;
  readonly #config: ResolvedToolConfig;
  readonly #need: NeedsInput;
  readonly #walk: AnswerWalk;
  readonly #resumeAt: PendingQuestion | undefined;
  readonly #questionConfig: QuestionConfig | undefined;
  // The error the next prompt shows, and the last misfit reply and how often it came in a row.
  #error: string | undefined;
  #lastInvalid: string | undefined;
  #repeats = 0;

  constructor(
    ctx: RunContext,
    call: ToolCall,
    config: ResolvedToolConfig,
    need: NeedsInput,
    walk: AnswerWalk,
    resumeAt: PendingQuestion | undefined,
  ) {
    this.#ctx = ctx;
    this.#call = call;
    this.#config = config;
    this.#need = need;
    this.#walk = walk;
    this.#resumeAt = resumeAt;
    this.#questionConfig = questionConfigFor(config, need.question.id);
    this.#error = resumeAt?.error;
  }

  /** The attempt after `shown` prompts of this question. */
  attempt(shown: number): QuestionOutcome | Promise<QuestionOutcome> {
    const ctx = this.#ctx;
    const call = this.#call;
    const config = this.#config;
    const need = this.#need;
    const questionConfig = this.#questionConfig;
    const { question } = need;
    // A resumed question is already recorded: it continues under its own id.
    const pending = shown === 0 ? this.#resumeAt : undefined;
    let id: string;
    if (pending !== undefined) id = pending.id;
    else {
      const attempt = ctx.turn.nextInquiryAttempt(call.id, question.id);
      id = inquiryId(call.id, question.id, attempt);
      const persisted = toInquiryQuestion(question);
      record(ctx, createEvent("inquiry_request", { id, source: need.source, question: persisted }));
    }
    // A reply given while suspended is the person's: it is used whoever is reachable now. A
    // prompt whose deadline passed goes by the detached policy, and a refusal says it timed out.
    const answeredWhileSuspended = ctx.stored.has(id);
    const expired = pending !== undefined && ctx.expired.has(id);
    const humanReachable = answeredWhileSuspended || (!expired && ctx.humanReachable);
    // That reply is the person's answer to this very question: a configured or remembered answer
    // that would have kept it from being asked does not replace it.
    const route: Route = answeredWhileSuspended
      ? { type: "prompt" }
      : routeQuestion({
          toolName: call.name,
          question,
          config: questionConfig,
          humanReachable,
          detached: config.detached.tool,
          // A question still waiting in the resumed line takes a remembered answer only when its
          // turn comes (the prompt's `needed`), as it would have in a live queue.
          remembered:
            pending !== undefined && humanReachable && ctx.resumedLine?.holds(id) === true
              ? undefined
              : rememberedFor(ctx, call, question),
          unreachable: ctx.unreachable,
          answerFrom: ownQuestionConfig(config, question.id)?.answer === undefined ? "*" : "own",
        });
    const detached =
      !humanReachable &&
      (route.type === "default" ||
        (route.type === "inquiry" && targetOf(questionConfig) !== "assistant") ||
        (route.type === "refuse" && route.reason === "no_prompt_backend"));
    routed(ctx, call, id, question, route, detached);
    switch (route.type) {
      case "static":
      case "remembered":
        recordAnswer(ctx, id, question, route.answer);
        return { type: "answer", value: route.answer, prompted: false };
      case "default":
        recordAnswer(ctx, id, question, route.answer, "default");
        return { type: "answer", value: route.answer, prompted: false, byDefault: true };
      case "refuse":
        if (expired && route.reason === "no_prompt_backend") {
          return stop(ctx, id, stoppedByAbort({ type: "timeout", ms: undefined }));
        }
        recordCancelled(ctx, id, route.reason);
        refused(ctx, {
          tool_call_id: call.id,
          tool_name: call.name,
          kind: "question",
          inquiry_id: id,
          reason: route.reason,
          explanation: route.explanation,
        });
        return { type: "stop", content: route.message, is_error: true };
      case "inquiry":
        return askAssistant(ctx, call, id, question, questionConfig?.target);
      case "prompt": {
        const round: HumanRound = {
          call,
          questionConfig,
          id,
          need,
          walk: this.#walk,
          error: this.#error,
        };
        const request = promptRequest(round);
        const hooks = new QuestionHooks(ctx, call, question, request.controls.remember);
        return showPrompt(ctx, request, hooks).then((result) =>
          this.#prompted(shown, round, request, result),
        );
      }
    }
  }

  // The prompt was shown (or not): the question's outcome, or the next attempt after a misfit.
  #prompted(
    shown: number,
    round: HumanRound,
    request: QuestionPromptRequest,
    result: PromptResult<QuestionPromptRequest>,
  ): QuestionOutcome | Promise<QuestionOutcome> {
    const outcome = humanOutcome(this.#ctx, round, request, result);
    if (outcome.type !== "invalid") return outcome;
    const error = outcome.message;
    this.#error = error;
    this.#repeats = outcome.reply === this.#lastInvalid ? this.#repeats + 1 : 1;
    this.#lastInvalid = outcome.reply;
    if (this.#repeats >= MAX_REPEATED_INVALID_REPLIES || shown + 1 >= MAX_PROMPTS_PER_QUESTION) {
      // Only this question fails: the model gets the form's answers so far, as with Reply.
      const body: Record<string, JsonValue> = {
        cancelled: true,
        ...answeredSoFar(this.#walk),
        error: `the answer to question "${this.#need.question.id}" kept failing validation (${error}); it was not answered`,
      };
      return { type: "stop", content: JSON.stringify(body), is_error: true };
    }
    return this.attempt(shown + 1);
  }
}

const ROUTES: Readonly<Record<Route["type"], QuestionRoute>> = {
  static: "static",
  remembered: "remembered",
  default: "default",
  inquiry: "assistant",
  prompt: "human",
  refuse: "refused",
};

/** Tells listeners who answers the question (the `question-routed` event). */
function routed(
  ctx: RunContext,
  call: ToolCall,
  id: string,
  question: Question,
  route: Pick<Route, "type"> | Route,
  detached: boolean,
): void {
  // Skipped outright when nobody listens: a question round is on the hot path.
  if (ctx.emitter.listenerCount("question-routed") === 0) return;
  ctx.emitter.emit("question-routed", {
    tool_call_id: call.id,
    tool_name: call.name,
    inquiry_id: id,
    question_id: question.id,
    answer_type: question.answer_type.type,
    route: ROUTES[route.type],
    detached,
    ...(route.type === "refuse" && "reason" in route ? { reason: route.reason } : {}),
  });
}

/** A question that was left pending and is resumed: its recorded id and the error it showed. */
export interface PendingQuestion {
  readonly id: string;
  readonly error?: string;
}

interface HumanRound {
  readonly call: ToolCall;
  readonly questionConfig: QuestionConfig | undefined;
  readonly id: string;
  readonly need: NeedsInput;
  readonly walk: AnswerWalk;
  readonly error: string | undefined;
}

function promptRequest(round: HumanRound): QuestionPromptRequest {
  const { call, questionConfig, id, need, walk, error } = round;
  const { question, form } = need;
  // Form controls are offered to tools that walk a form (they report `form` progress).
  const controls: QuestionControls = {
    remember: question.answer_type.type === "boolean" && reusePolicy(question) === "turn",
    back: form !== undefined && walk.canGoBack(),
    reply: form !== undefined,
    end_turn: form !== undefined,
  };
  const label = questionConfig?.prompt_label;
  const initial = isSecret(question) ? undefined : walk.prefillFor(question.id);
  const request: Writable<QuestionPromptRequest> = {
    kind: "question",
    tool_name: call.name,
    tool_call_id: call.id,
    inquiry_id: id,
    question,
    controls,
  };
  // Set one by one rather than spread in: each spread is an object made and copied per prompt.
  if (label !== undefined) request.prompt_label = label;
  if (form !== undefined && form.total > 1) request.progress = form;
  if (initial !== undefined) request.initial = initial;
  if (error !== undefined) request.error = error;
  return request;
}

type Writable<T> = { -readonly [K in keyof T]: T[K] };

type HumanOutcome =
  | QuestionOutcome
  | {
      readonly type: "invalid";
      readonly message: string;
      /** The misfit reply as text, to tell a person's new try from a backend's repeat. */
      readonly reply: string;
    };

// The answer remembered for the turn, if it may be used for this question and still fits it.
function rememberedFitting(
  ctx: RunContext,
  call: ToolCall,
  question: Question,
): JsonValue | undefined {
  if (question.answer_type.type === "secret" || reusePolicy(question) === "none") return undefined;
  const answer = rememberedFor(ctx, call, question);
  return answer !== undefined && validateAnswer(question.answer_type, answer).isOk()
    ? answer
    : undefined;
}

// A misfit reply as text; one JSON cannot write (nested deeper than the call stack allows, a
// BigInt) by why it was refused, so a backend sending it again still counts as a repeat.
function replyText(value: unknown, refusal: string): string {
  try {
    return JSON.stringify(value) ?? "undefined";
  } catch {
    return `unwritable: ${refusal}`;
  }
}

/** What a question's prompt does inside its turn in the queue: one object, no closures. */
class QuestionHooks implements PromptHooks<QuestionPromptRequest> {
  readonly suspendable = true;
  readonly #ctx: RunContext;
  readonly #call: ToolCall;
  readonly #question: Question;
  // Whether the prompt offered to remember the answer for the turn.
  readonly #remember: boolean;

  constructor(ctx: RunContext, call: ToolCall, question: Question, remember: boolean) {
    this.#ctx = ctx;
    this.#call = call;
    this.#question = question;
    this.#remember = remember;
  }

  /** Another call of the same tool may have had this question answered "for the turn" meanwhile. */
  needed(): boolean {
    return rememberedFitting(this.#ctx, this.#call, this.#question) === undefined;
  }

  /** Remembered inside the prompt's turn, so a queued prompt for the same question sees it. */
  onReply(reply: QuestionReply): void {
    if (reply.type !== "answer" || reply.remember !== true || !this.#remember) return;
    const question = this.#question;
    const checked = validateAnswer(question.answer_type, reply.value);
    if (checked.isOk() && !isSecret(question))
      this.#ctx.turn.rememberAnswer(this.#call.name, question.id, checked.value);
  }
}

// What the shown prompt means for the question: an answer, a control, or why there is none.
function humanOutcome(
  ctx: RunContext,
  round: HumanRound,
  request: QuestionPromptRequest,
  shown: PromptResult<QuestionPromptRequest>,
): HumanOutcome {
  const { call, id, walk } = round;
  const { question } = round.need;
  const offered = request.controls;
  if (shown.type === "unneeded") {
    routed(ctx, call, id, question, { type: "remembered" }, false);
    const answer = rememberedFitting(ctx, call, question) as JsonValue;
    recordAnswer(ctx, id, question, answer);
    return { type: "answer", value: answer, prompted: false };
  }
  if (shown.type === "suspended") return { type: "suspended", request };
  if (shown.type === "aborted") return stop(ctx, id, stoppedByAbort(shown.cause));
  if (shown.type === "failed") return stop(ctx, id, stoppedByFailure(shown.failure, shown.error));
  const { reply } = shown;
  switch (reply.type) {
    case "answer": {
      const checked = validateAnswer(question.answer_type, reply.value);
      if (checked.isErr()) {
        recordCancelled(ctx, id, "invalid_answer");
        return {
          type: "invalid",
          message: checked.error.message,
          reply: replyText(reply.value, checked.error.message),
        };
      }
      recordAnswer(ctx, id, question, checked.value);
      return { type: "answer", value: checked.value, prompted: true };
    }
    case "back":
      if (!offered.back) break;
      recordCancelled(ctx, id, "back");
      return { type: "back" };
    case "reply": {
      if (!offered.reply) break;
      recordCancelled(ctx, id, "reply");
      const body: Record<string, JsonValue> = { cancelled: true, ...answeredSoFar(walk) };
      if (reply.message !== undefined && reply.message !== "") body.message = reply.message;
      return { type: "stop", content: JSON.stringify(body), is_error: false };
    }
    case "end_turn":
      if (!offered.end_turn) break;
      recordCancelled(ctx, id, "end_turn");
      ctx.endTurn();
      return { type: "stop", content: TURN_ENDED, is_error: false, endTurn: true };
    default:
      break;
  }
  // Cancelled, or a control that was not offered: the human did not answer.
  recordCancelled(ctx, id, "user");
  return { type: "stop", content: INPUT_CANCELLED, is_error: false };
}

/**
 * Asks the LLM on a copy of the conversation in which this tool call is paused and nothing is
 * left unpaired, then checks its answer like any other.
 */
async function askAssistant(
  ctx: RunContext,
  call: ToolCall,
  id: string,
  question: Question,
  target: QuestionTarget | undefined,
): Promise<QuestionOutcome> {
  const fail = (reason: CancellationReason, error: string): QuestionOutcome => {
    recordCancelled(ctx, id, reason);
    return {
      type: "stop",
      content: inquiryFailedMessage(call.name, question.text, error),
      is_error: true,
    };
  };
  const backend = ctx.inquiries;
  if (backend === undefined) return fail("backend_error", "no inquiry backend is configured");
  let result: Result<JsonValue, InquiryError>;
  try {
    const stream = pausedCopy(ctx, call, question);
    result = await backend.inquire(
      {
        stream,
        inquiryId: id,
        toolName: call.name,
        question,
        ...(typeof target === "object" ? { assistantOverrides: target } : {}),
      },
      { signal: ctx.abort.signal },
    );
  } catch (cause) {
    result = err({ kind: ctx.abort.aborted ? "cancelled" : "other", message: describe(cause) });
  }
  // An answer that arrives after the run aborted never reaches the tool, so it is not recorded
  // as answered; nor is a deadline or a shutdown recorded as the person's cancel.
  if (ctx.abort.aborted) {
    const cause = abortCause(ctx.abort);
    if (result.isOk() || cause.type !== "user") return stop(ctx, id, stoppedByAbort(cause));
  }
  if (result.isErr()) {
    const message = ctx.secrets.mask(result.error.message);
    // `cancelled` is the person's only when the run was stopped. A backend that cancelled on its
    // own (its client gave up, a sub-agent stopped) failed to answer: nobody declined anything.
    if (result.error.kind === "cancelled" && !ctx.abort.aborted) {
      return fail("backend_error", inquiryCancelledByBackend(message));
    }
    return fail(INQUIRY_ERROR_REASONS[result.error.kind], message);
  }
  const checked = validateAnswer(question.answer_type, result.value);
  if (checked.isErr()) {
    return fail("backend_error", `the answer does not fit the question: ${checked.error.message}`);
  }
  recordAnswer(ctx, id, question, checked.value);
  return { type: "answer", value: checked.value, prompted: false };
}

function pausedCopy(ctx: RunContext, call: ToolCall, question: Question) {
  const copy = ctx.stream.clone();
  // JP's shape: the asking tool looks paused, and sanitize() removes the still-open inquiry
  // request and closes other tools' calls, so the copy is valid for any provider.
  copy.tryAppend(
    createEvent("tool_call_response", {
      id: call.id,
      content: `Tool paused: ${question.text}`,
      is_error: false,
    }),
  );
  copy.sanitize();
  return copy;
}
