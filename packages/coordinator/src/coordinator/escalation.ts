import { type CancellationReason, createEvent, type JsonValue } from "@jp/conversation";
import { questionSchema, stableStringify, validateAnswer } from "@jp/tool";
import type { ToolCall } from "../backends/executor.js";
import {
  type DeliverPromptRequest,
  HumanUnreachableError,
  type LaterReply,
  type PermissionPromptRequest,
  type PromptBackend,
  type PromptRequest,
  PromptTimedOutError,
  PromptUnsupportedError,
  type QuestionPromptRequest,
  type QuestionReply,
  type ReplyFor,
} from "../backends/prompt-backend.js";
import {
  escalatedPromptId,
  escalatedPromptKey,
  promptIdFor,
  type StoredReply,
} from "../durable/marker.js";
import { inquiryId, toInquiryQuestion } from "../recording/inquiry-question.js";
import {
  type AbortCause,
  abortCause,
  formatSeconds,
  type PromptFailure,
  type RunContext,
  record,
  showPrompt,
} from "./context.js";
import { stoppedByAbort } from "./question-round.js";
import { RunAbort } from "./run-abort.js";

// How the parent records a question it showed for a sub-agent, by the human's reply.
const REASON_BY_REPLY: Readonly<
  Record<Exclude<QuestionReply["type"], "answer">, CancellationReason>
> = {
  back: "back",
  reply: "reply",
  end_turn: "end_turn",
  cancelled: "user",
};

/**
 * One sub-agent prompt the hosting call has had answered in its current pass, kept so that the
 * pass can run again after a suspension and get the same replies without asking again.
 */
export interface EscalationRecord {
  /** The sub-agent that asked. */
  readonly agent: string;
  readonly kind: PromptRequest["kind"];
  /** What identifies the prompt within the pass: the question's id, or the sub-agent's tool. */
  readonly key: string;
  /** The prompt's id in this conversation (the inquiry id for a question). */
  readonly prompt_id: string;
  /**
   * What the prompt asked, as a digest (see {@link askedDigest}): its reply is replayed only to a
   * prompt that asks the same. Absent in records written before it was kept.
   */
  readonly asked?: string;
  /** The reply; absent for a secret's answer, which is never written. */
  readonly reply?: StoredReply;
  /** How the prompt ended without the person: a replayed pass ends the same way. */
  readonly ended?: EscalationEnding;
}

/** How a sub-agent's prompt ended without a reply from the person. */
export type EscalationEnding =
  | { readonly type: "timeout"; readonly ms?: number }
  | { readonly type: "interrupted" }
  | { readonly type: "turn_ended" }
  | {
      readonly type: "failed";
      readonly error: string;
      /** The person could not be reached, or the backend cannot show the prompt; else any failure. */
      readonly failure?: "unreachable" | "unsupported";
    };

/** Where a hosting call stands with its sub-agents' prompts, kept in its pending marker. */
export interface EscalatedJson {
  /** The sub-agent whose prompt the call waits at. */
  readonly agent: string;
  /** The prompts answered earlier in the same pass, in order. */
  readonly done: readonly EscalationRecord[];
}

/**
 * The sub-agent prompts of one pass of a hosting tool call. When one of them is left pending the
 * call suspends; when the turn resumes, the pass runs again from its start and each prompt the
 * sub-agent asks again is answered from the record, in order, without being asked or recorded
 * again (as a LangGraph node re-runs up to its `interrupt()`).
 */
export class CallEscalations {
  /** Answered in this pass, in order: replayed ones first. */
  readonly done: EscalationRecord[] = [];
  /** Set once a prompt of this pass is left pending: the call suspends at it. */
  suspended: { readonly request: PromptRequest; readonly agent: string } | undefined;
  readonly #replay: EscalationRecord[];
  // The prompt the call was suspended at, if the sub-agent has not asked it again yet.
  #pending: { readonly agent: string; readonly request: PromptRequest } | undefined;

  constructor(resumed?: { readonly escalated: EscalatedJson; readonly request: PromptRequest }) {
    this.#replay = [...(resumed?.escalated.done ?? [])];
    this.#pending =
      resumed === undefined
        ? undefined
        : { agent: resumed.escalated.agent, request: resumed.request };
  }

  /**
   * Matches a prompt the sub-agent asks against the record: a reply to give back at once, the
   * recorded inquiry id of the prompt the call was suspended at (asked again under that id), or
   * nothing when the prompt is new. A prompt that differs from the record ends the replay: what
   * the sub-agent asks from then on is asked anew, and the recorded pending question, which it no
   * longer asks, is closed as `interrupted` (never as the person's decision).
   */
  replay(
    ctx: RunContext,
    agent: string,
    request: PromptRequest,
  ):
    | { readonly reply: StoredReply }
    | { readonly ended: EscalationEnding }
    | { readonly pendingId: string }
    | undefined {
    const key = keyOf(request);
    const asked = askedDigest(request);
    const next = this.#replay[0];
    if (next !== undefined) {
      if (
        next.agent === agent &&
        next.kind === request.kind &&
        next.key === key &&
        (next.asked === undefined || next.asked === asked)
      ) {
        this.#replay.shift();
        if (next.ended !== undefined) {
          this.done.push(next);
          return { ended: next.ended };
        }
        if (next.reply !== undefined) {
          this.done.push(next);
          return { reply: next.reply };
        }
        // A secret's answer is not kept: it is asked again, as a new attempt.
        return undefined;
      }
      this.abandon(ctx);
      return undefined;
    }
    const pending = this.#pending;
    if (pending === undefined) return undefined;
    this.#pending = undefined;
    if (
      pending.agent === agent &&
      pending.request.kind === request.kind &&
      keyOf(pending.request) === key &&
      askedDigest(pending.request) === asked
    ) {
      return { pendingId: promptIdFor(pending.request) };
    }
    closeUnasked(ctx, pending.request);
    return undefined;
  }

  /** The pass ended: a recorded question the sub-agent did not ask again is closed. */
  abandon(ctx: RunContext): void {
    this.#replay.length = 0;
    const pending = this.#pending;
    this.#pending = undefined;
    if (pending !== undefined) closeUnasked(ctx, pending.request);
  }
}

function keyOf(request: PromptRequest): string {
  return request.kind === "question" ? request.question.id : request.tool_name;
}

/**
 * What a sub-agent's prompt asks, as a digest: the question, the arguments a tool would run with,
 * or the result to deliver. A reply given to one prompt never answers another that only shares
 * its question id or tool: approving `rm /tmp/old` does not approve `rm /` asked when the
 * sub-agent runs again.
 */
export function askedDigest(request: PromptRequest): string {
  const asked =
    request.kind === "question"
      ? request.question
      : request.kind === "permission"
        ? request.arguments
        : { content: request.content, is_error: request.is_error };
  // In the form a pending marker gives it back: JSON (fields set to undefined left out) and, for
  // a question, decoded as the marker's reader decodes it (`exclusive: false` dropped, `pre_amble`
  // read as `context`, …), so the same prompt asked live and read from a marker compare equal.
  const json = JSON.parse(JSON.stringify(asked)) as JsonValue;
  const decoded = request.kind === "question" ? questionSchema.safeParse(json) : undefined;
  const normal = decoded?.success === true ? (decoded.data as JsonValue) : json;
  return process
    .getBuiltinModule("node:crypto")
    .createHash("sha256")
    .update(stableStringify(normal))
    .digest("base64url");
}

// The sub-agent ran again and did not ask the question it had been waiting at: the question is
// closed as interrupted (or as what stopped the run: End Turn at another prompt, a deadline), and
// a reply given to it meanwhile is not used.
function closeUnasked(ctx: RunContext, request: PromptRequest): void {
  ctx.stored.delete(promptIdFor(request));
  ctx.expired.delete(promptIdFor(request));
  ctx.resumedLine?.joined(promptIdFor(request));
  if (request.kind !== "question") return;
  const reason = ctx.abort.aborted ? stoppedByAbort(abortCause(ctx.abort)).reason : "interrupted";
  record(
    ctx,
    createEvent("inquiry_response", { outcome: "cancelled", id: request.inquiry_id, reason }),
  );
}

/**
 * Shows a sub-agent's prompt in the parent's line of prompts. A question is recorded in the
 * parent's conversation too, attributed to the sub-agent (`{"source":"other","name":agent}`),
 * under the hosting tool call's id; the sub-agent records its own pair as well. A permission or
 * delivery prompt is shown under the hosting call's id too, with a prompt id of its own (see
 * {@link escalatedPromptId}): never the hosting call's own prompt's, nor another sub-agent
 * prompt's.
 *
 * Where the parent's prompts can wait (a suspending run, or a backend replying "later"), the
 * prompt is left pending and the sub-agent gets `{type: "later"}`: the hosting call suspends at
 * it, and whatever its pass returns afterwards is set aside (see {@link CallEscalations}).
 */
export async function escalatePrompt<R extends PromptRequest>(
  ctx: RunContext,
  escalations: CallEscalations,
  host: ToolCall,
  agent: string,
  request: R,
): Promise<ReplyFor<R> | LaterReply> {
  // The call already waits at another of its sub-agents' prompts: this one waits with it, and is
  // asked when the pass runs again.
  if (escalations.suspended !== undefined) return LATER;
  const replayed = escalations.replay(ctx, agent, request);
  if (replayed !== undefined && "reply" in replayed) return replayed.reply as ReplyFor<R>;
  if (replayed !== undefined && "ended" in replayed) throw endingError(replayed.ended);
  const pendingId = replayed?.pendingId;
  if (request.kind !== "question") {
    const expired = expiredAt(ctx, pendingId);
    if (expired !== undefined) throw expired;
    // The prompt the call was suspended at goes on under the id it was left pending with.
    const shownRequest: R = {
      ...request,
      tool_call_id: host.id,
      prompt_id: pendingId ?? newPromptId(ctx, host, agent, request),
    };
    const shown = await showPrompt(ctx, shownRequest, { suspendable: true });
    if (shown.type === "suspended") {
      escalations.suspended = { request: shownRequest, agent };
      return LATER;
    }
    const entry = {
      agent,
      kind: request.kind,
      key: request.tool_name,
      asked: askedDigest(request),
    };
    const prompt_id = promptIdFor(shownRequest);
    if (shown.type === "failed" || (shown.type === "aborted" && shown.cause.type !== "user")) {
      const ended: EscalationEnding =
        shown.type === "failed" ? failedEnding(shown.error, shown.failure) : endingOf(shown.cause);
      escalations.done.push({ ...entry, prompt_id, ended });
      throw endingError(ended);
    }
    const reply = shown.type === "reply" ? shown.reply : ({ type: "cancelled" } as const);
    escalations.done.push({ ...entry, prompt_id, reply });
    return reply as ReplyFor<R>;
  }
  // Resolved early with End Turn (see `handingOverEndTurn`), otherwise once recorded.
  return new Promise<ReplyFor<R> | LaterReply>((resolve, reject) => {
    const handOver = handingOverEndTurn(ctx, (reply) => resolve(reply as ReplyFor<R>));
    escalateQuestion(handOver.ctx, escalations, host, agent, request, pendingId)
      .then((reply) => resolve(reply as ReplyFor<R> | LaterReply), reject)
      .finally(handOver.dispose);
  });
}

const LATER: LaterReply = { type: "later" };

/** Why a sub-agent's prompt closed when only the sub-agent's side stopped it. */
class SubAgentStopped extends Error {
  override readonly name = "SubAgentStopped";
  constructor(agent: string) {
    super(`the sub-agent ${agent} stopped asking before the person answered`);
  }
}

/**
 * What stops a prompt a sub-agent escalates: the parent's run, with its own reason, or the
 * sub-agent's signal. A plain `abort()` of the sub-agent's signal while the parent's run goes on
 * is the sub-agent's host stopping it, not the person, who only sees the prompt: its reason reads
 * as interrupted. Any other reason of the sub-agent's (a deadline, its End Turn) is kept. Both
 * signals stop the prompt at the very moment they abort, as one `AbortSignal.any` of them does.
 */
export class EscalationAbort extends RunAbort {
  readonly #parent: RunAbort;
  readonly #agent: string;
  #withdrawn: SubAgentStopped | undefined;

  constructor(parent: RunAbort, signal: AbortSignal, agent: string) {
    super(AbortSignal.any([parent.signal, signal]));
    this.#parent = parent;
    this.#agent = agent;
  }

  override get reason(): unknown {
    const reason = super.reason;
    if (!this.aborted || reason === this.#parent.reason || !readsAsPersons(reason)) return reason;
    this.#withdrawn ??= new SubAgentStopped(this.#agent);
    return this.#withdrawn;
  }
}

// Whether an abort reason reads as the person's own stop (see `abortCause`).
function readsAsPersons(reason: unknown): boolean {
  const name = reason instanceof Error || reason instanceof DOMException ? reason.name : undefined;
  return reason === undefined || name === "AbortError";
}

// A new permission or delivery prompt of a sub-agent: its id, which takes the next attempt for
// its hosting call, kind, sub-agent and sub-agent's call.
function newPromptId(
  ctx: RunContext,
  host: ToolCall,
  agent: string,
  request: PermissionPromptRequest | DeliverPromptRequest,
): string {
  const key = escalatedPromptKey(request.kind, agent, request.tool_call_id);
  return escalatedPromptId(host.id, key, ctx.turn.nextInquiryAttempt(host.id, key));
}

// A pending prompt whose deadline passed with no reply: nobody answered in time. The sub-agent
// learns that the person could not be reached, and the parent's record says it timed out. The
// expiry is used once: a marker written before sub-agents' permission and delivery prompts had
// ids of their own gave them the hosting call's own prompt's id, and that prompt has a deadline
// of its own.
function expiredAt(ctx: RunContext, pendingId: string | undefined): Error | undefined {
  if (pendingId === undefined || !ctx.expired.has(pendingId) || ctx.stored.has(pendingId)) {
    return undefined;
  }
  ctx.expired.delete(pendingId);
  return new HumanUnreachableError("nobody answered in time");
}

async function escalateQuestion(
  ctx: RunContext,
  escalations: CallEscalations,
  host: ToolCall,
  agent: string,
  request: QuestionPromptRequest,
  pendingId: string | undefined,
): Promise<QuestionReply | LaterReply> {
  const { question } = request;
  // A question the call was suspended at is recorded already: it goes on under its own id.
  const id =
    pendingId ?? inquiryId(host.id, question.id, ctx.turn.nextInquiryAttempt(host.id, question.id));
  const source = { source: "other", name: agent } as const;
  if (pendingId === undefined) {
    record(
      ctx,
      createEvent("inquiry_request", { id, source, question: toInquiryQuestion(question) }),
    );
  }
  const expired = expiredAt(ctx, pendingId);
  if (expired !== undefined) {
    record(ctx, createEvent("inquiry_response", { outcome: "cancelled", id, reason: "timeout" }));
    throw expired;
  }
  const label = `${request.prompt_label ?? "Assistant"} (sub-agent ${agent})`;
  const shownRequest: QuestionPromptRequest = {
    ...request,
    tool_call_id: host.id,
    inquiry_id: id,
    prompt_label: label,
  };
  const shown = await showPrompt(ctx, shownRequest, { suspendable: true });
  if (shown.type === "suspended") {
    escalations.suspended = { request: shownRequest, agent };
    return LATER;
  }
  const entry = {
    agent,
    kind: "question",
    key: question.id,
    prompt_id: id,
    asked: askedDigest(request),
  } as const;
  if (shown.type === "failed" || (shown.type === "aborted" && shown.cause.type !== "user")) {
    // A failure, a deadline, a shutdown or End Turn elsewhere: recorded as such, never as the
    // person's cancel, and kept so that a replayed pass ends the same way.
    const reason = shown.type === "failed" ? "backend_error" : stoppedByAbort(shown.cause).reason;
    record(ctx, createEvent("inquiry_response", { outcome: "cancelled", id, reason }));
    const ended: EscalationEnding =
      shown.type === "failed" ? failedEnding(shown.error, shown.failure) : endingOf(shown.cause);
    escalations.done.push({ ...entry, ended });
    throw endingError(ended);
  }
  const reply = shown.type === "reply" ? shown.reply : ({ type: "cancelled" } as const);
  // A control the question did not offer is not the person's choice of it (as for a tool's own).
  const offered =
    reply.type === "answer" || reply.type === "cancelled" || request.controls[reply.type];
  record(ctx, responseFor(id, question, offered ? reply : { type: "cancelled" }));
  const secret = question.answer_type.type === "secret" && reply.type === "answer";
  escalations.done.push(secret ? entry : { ...entry, reply });
  if (reply.type === "end_turn" && offered) ctx.endTurn();
  return reply;
}

/**
 * End Turn chosen at a sub-agent's question is the sub-agent's End Turn too. The parent ends its
 * turn inside its prompt queue, so nothing queued behind is shown; that also aborts the
 * sub-agent's run, which would then read the reply as "the turn ended elsewhere". So the reply
 * goes to the sub-agent first, and the parent ends its turn once the sub-agent has taken it (its
 * side of the prompt's signal aborts), still before the next prompt in line may start.
 */
function handingOverEndTurn(
  ctx: RunContext,
  deliver: (reply: QuestionReply) => void,
): { ctx: RunContext; dispose: () => void } {
  const backend = ctx.prompts;
  if (backend === undefined) return { ctx, dispose: () => {} };
  // The prompt follows the parent's and the sub-agent's signal, until the hand-over: then the
  // sub-agent's own End Turn aborts that signal, and must not discard the reply it came from.
  const gate = new AbortController();
  let handedOver = false;
  const parent = ctx.abort.signal;
  // The reason as the run reads it: a sub-agent's withdrawn prompt says so (see EscalationAbort).
  const follow = () => {
    if (!handedOver) gate.abort(ctx.abort.reason);
  };
  if (parent.aborted) follow();
  else parent.addEventListener("abort", follow, { once: true });
  const prompts: PromptBackend = {
    isHumanReachable: () => backend.isHumanReachable(),
    async ask(request, options) {
      const reply = await backend.ask(request, options);
      if (
        request.kind === "question" &&
        request.controls.end_turn &&
        reply.type === "end_turn" &&
        !gate.signal.aborted
      ) {
        handedOver = true;
        deliver(reply);
        await abortedOrNextTick(parent);
      }
      return reply;
    },
  };
  return {
    ctx: { ...ctx, abort: new RunAbort(gate.signal), prompts },
    dispose: () => parent.removeEventListener("abort", follow),
  };
}

// The sub-agent takes the reply within microtasks; the next tick bounds the wait if it does not.
function abortedOrNextTick(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const tick = setImmediate(done);
    function done() {
      clearImmediate(tick);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

function responseFor(
  id: string,
  question: QuestionPromptRequest["question"],
  reply: QuestionReply,
) {
  if (reply.type !== "answer") {
    return createEvent("inquiry_response", {
      outcome: "cancelled",
      id,
      reason: REASON_BY_REPLY[reply.type],
    });
  }
  if (validateAnswer(question.answer_type, reply.value).isErr()) {
    return createEvent("inquiry_response", { outcome: "cancelled", id, reason: "invalid_answer" });
  }
  return question.answer_type.type === "secret"
    ? createEvent("inquiry_response", { outcome: "redacted", id })
    : createEvent("inquiry_response", { outcome: "answered", id, answer: reply.value });
}

// A failed prompt, keeping whether the person could not be reached or the prompt could not be
// shown: the sub-agent tells its model that, as the parent would.
function failedEnding(error: string, failure: PromptFailure): EscalationEnding {
  return failure === "unreachable" || failure === "unsupported"
    ? { type: "failed", error, failure }
    : { type: "failed", error };
}

// How a prompt the person did not end ended, from its abort cause (only called for causes other
// than the person's own cancel).
function endingOf(cause: AbortCause): EscalationEnding {
  if (cause.type === "timeout") {
    return cause.ms === undefined ? { type: "timeout" } : { type: "timeout", ms: cause.ms };
  }
  return { type: cause.type === "turn_ended" ? "turn_ended" : "interrupted" };
}

/**
 * What the sub-agent's prompt backend rejects with when the prompt it escalated ended without
 * the person, so the sub-agent records what happened rather than the person's cancel: a deadline
 * as its backend's timeout, a failure as a failure, anything else as the person not reached.
 * When the sub-agent's own run stops too, its own reason is recorded.
 */
function endingError(ending: EscalationEnding): Error {
  switch (ending.type) {
    case "timeout": {
      const within = ending.ms === undefined ? "" : ` within ${formatSeconds(ending.ms)}`;
      return new PromptTimedOutError(`the person did not answer${within}`, {
        ...(ending.ms === undefined ? {} : { ms: ending.ms }),
      });
    }
    case "failed":
      if (ending.failure === "unreachable") return new HumanUnreachableError(ending.error);
      if (ending.failure === "unsupported") return new PromptUnsupportedError(ending.error);
      return new Error(ending.error);
    case "turn_ended":
      return new HumanUnreachableError(
        "the turn was ended from another prompt before the person answered this one",
      );
    case "interrupted":
      return new HumanUnreachableError("the prompt was closed before the person answered it");
  }
}
