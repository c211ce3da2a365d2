import { createEvent, type InquirySource, type JsonObject } from "@jp/conversation";
import type {
  Executor,
  ExecutorResult,
  ExecutorSource,
  FormProgress,
  ToolCall,
} from "../backends/executor.js";
import type { PromptRequest } from "../backends/prompt-backend.js";
import type { ResolvedToolConfig } from "../config/schema.js";
import type { PendingMarker } from "../durable/marker.js";
import {
  EXECUTION_CANCELLED,
  EXECUTION_INTERRUPTED,
  EXECUTION_TIMED_OUT,
  executionFailedMessage,
  notAvailableMessage,
} from "../routing/messages.js";
import { AnswerWalk, type WalkJson } from "./answer-walk.js";
import { type AbortCause, abortCause, describe, type RunContext, record } from "./context.js";
import { type CallResult, deliverResult } from "./delivery.js";
import { CallEscalations, type EscalatedJson } from "./escalation.js";
import type { ToolCallState } from "./events.js";
import { decidePermission } from "./permission.js";
import { resolveQuestion, TURN_ENDED } from "./question-round.js";
import { PassInput } from "./run-abort.js";

/** A tool call's final result, and whether the human ended the turn from it. */
export interface CallOutcome extends CallResult {
  readonly endTurn: boolean;
  /** Set when the call did not finish: it waits for a person at this prompt. */
  readonly suspended?: SuspendedCall;
}

/** Where a call stopped to wait for a person: what its pending marker is made of. */
export interface SuspendedCall {
  readonly request: PromptRequest;
  readonly source?: InquirySource;
  readonly form?: FormProgress;
  /** The arguments the tool runs with, when a permission edit changed them. */
  readonly arguments?: JsonObject;
  readonly walk?: WalkJson;
  /** How many questions the call had asked, so its limit holds across suspensions. */
  readonly asked?: number;
  /** Set when the prompt is a sub-agent's: what its pass had been answered before it. */
  readonly escalated?: EscalatedJson;
}

/** What one tool call needs from the coordinator. */
export interface CallSetup {
  readonly executors: ExecutorSource;
  /** Resolves a tool's configuration by name. */
  readonly resolve: (name: string) => ResolvedToolConfig;
  /** A call that asks more questions than this fails (a tool stuck re-asking). */
  readonly maxQuestions: number;
}

/** One call in flight: the run it belongs to, the call, and how it reports its state. */
interface CallRun {
  readonly ctx: RunContext;
  readonly setup: CallSetup;
  readonly state: (next: ToolCallState) => void;
}

/**
 * One tool call from start to finish: availability, permission, passes of the tool with the
 * answers it asks for, then result delivery. Never rejects: every failure becomes a result.
 */
export async function runToolCall(
  ctx: RunContext,
  setup: CallSetup,
  call: ToolCall,
  resume?: PendingMarker,
): Promise<CallOutcome> {
  // Nothing is built for an event nobody listens to: a call changes state on every question.
  const state = (next: ToolCallState, isError?: boolean) => {
    if (ctx.emitter.listenerCount("tool-state") === 0) return;
    ctx.emitter.emit("tool-state", {
      tool_call_id: call.id,
      tool_name: call.name,
      state: next,
      ...(isError === undefined ? {} : { is_error: isError }),
    });
  };
  state("queued");
  const outcome = await attempt({ ctx, setup, state }, call, resume);
  if (outcome.suspended === undefined) state("completed", outcome.is_error);
  else state("suspended");
  return outcome;
}

function suspended(at: SuspendedCall): CallOutcome {
  return { content: "", is_error: false, endTurn: false, suspended: at };
}

async function attempt(
  run: CallRun,
  original: ToolCall,
  resume?: PendingMarker,
): Promise<CallOutcome> {
  const { ctx, setup, state } = run;
  let call: ToolCall =
    resume?.arguments === undefined ? original : { ...original, arguments: resume.arguments };
  let config: ResolvedToolConfig;
  let executor: Executor | undefined;
  try {
    config = setup.resolve(call.name);
    executor = config.enable.state ? setup.executors.executorFor(call, config) : undefined;
  } catch (cause) {
    // A host's source that throws still leaves the call with a response.
    closePendingQuestion(ctx, resume);
    return finish({ content: executionFailedMessage(call.name, describe(cause)), is_error: true });
  }
  if (executor === undefined) {
    closePendingQuestion(ctx, resume);
    return finish({ content: notAvailableMessage(call.name), is_error: true });
  }
  // The arguments the tool runs with: as approved (possibly edited), also across a suspension.
  const edited = (approved: ToolCall) =>
    approved.arguments === original.arguments ? {} : { arguments: approved.arguments };
  // A call suspended at a sub-agent's prompt was running its tool: it runs it again.
  const at = resume?.escalated === undefined ? resume?.request.kind : "question";
  if (at === undefined || at === "permission") {
    state("awaiting_permission");
    const decided = decidePermission(ctx, call, config);
    const permission = decided instanceof Promise ? await decided : decided;
    if (permission.type === "suspended") return suspended({ request: permission.request });
    if (permission.type === "done") return finish(permission);
    call = permission.call;
  }
  let result: CallResult;
  if (resume?.request.kind === "deliver" && resume.escalated === undefined) {
    result = { content: resume.request.content, is_error: resume.request.is_error };
  } else {
    // Where the passes go on from: a question of the tool's, or a sub-agent's prompt of any kind.
    const question =
      resume?.request.kind === "question" || resume?.escalated !== undefined ? resume : undefined;
    const ran = await passes(run, executor, call, config, question);
    if (ran.source === "suspended") return suspended({ ...ran.at, ...edited(call) });
    if (ran.source !== "tool") return ran.outcome;
    result = ran.outcome;
  }
  state("awaiting_delivery");
  const delivering = deliverResult(ctx, call, config, result);
  const delivered = delivering instanceof Promise ? await delivering : delivering;
  if ("suspended" in delivered) return suspended({ request: delivered.suspended, ...edited(call) });
  return finish(delivered);
}

// A call resumed at a question whose tool can no longer run: its recorded question is closed,
// as a failure of the system, never as the person's decision.
function closePendingQuestion(ctx: RunContext, resume: PendingMarker | undefined): void {
  if (resume?.request.kind !== "question") return;
  record(
    ctx,
    createEvent("inquiry_response", {
      outcome: "cancelled",
      id: resume.request.inquiry_id,
      reason: "backend_error",
    }),
  );
}

// The run aborted between passes: a shutdown or a deadline is not the person's cancel.
const EXECUTION_STOPPED: Readonly<Record<AbortCause["type"], string>> = {
  user: EXECUTION_CANCELLED,
  turn_ended: TURN_ENDED,
  timeout: EXECUTION_TIMED_OUT,
  interrupted: EXECUTION_INTERRUPTED,
};

function stopped(ctx: RunContext): Ran {
  const content = EXECUTION_STOPPED[abortCause(ctx.abort).type];
  return { source: "coordinator", outcome: finish({ content, is_error: false }) };
}

function finish(result: CallResult, endTurn = false): CallOutcome {
  return { content: result.content, is_error: result.is_error, endTurn };
}

type Ran =
  | { readonly source: "tool" | "coordinator"; readonly outcome: CallOutcome }
  | { readonly source: "suspended"; readonly at: SuspendedCall };

async function passes(
  run: CallRun,
  executor: Executor,
  call: ToolCall,
  config: ResolvedToolConfig,
  resume?: PendingMarker,
): Promise<Ran> {
  const { ctx, state } = run;
  const { maxQuestions } = run.setup;
  const walk =
    resume?.walk === undefined
      ? new AnswerWalk()
      : AnswerWalk.fromJSON(resume.walk, answeredByDefaultBefore(ctx, call, resume.walk));
  // A resumed call continues at its pending question, without running the tool first; a call
  // suspended at a sub-agent's prompt runs its pass again, which the sub-agent's prompts replay.
  let pending =
    resume?.request.kind === "question" && resume.escalated === undefined ? resume : undefined;
  let replay =
    resume?.escalated === undefined
      ? undefined
      : { escalated: resume.escalated, request: resume.request };
  const stop = (content: string, is_error: boolean, endTurn = false): Ran => ({
    source: "coordinator",
    outcome: finish({ content, is_error }, endTurn),
  });
  // The size of the form the last question belonged to (see `uncounted`).
  let formTotal: number | undefined;
  for (let asked = resume?.asked ?? 0; ; asked++) {
    if (ctx.abort.aborted) return stopped(ctx);
    let result: ExecutorResult;
    const resumed = pending;
    pending = undefined;
    // A resumed question passed this check before it was left pending.
    if (resumed === undefined && asked - uncounted(walk, formTotal) > maxQuestions) {
      return stop(
        executionFailedMessage(call.name, `asked more than ${maxQuestions} questions`),
        true,
      );
    }
    if (resumed !== undefined && resumed.request.kind === "question") {
      result = {
        type: "needs_input",
        question: resumed.request.question,
        source: resumed.source ?? { source: "tool", name: call.name },
        ...(resumed.form === undefined ? {} : { form: resumed.form }),
      };
    } else {
      // Each pass has its own sub-agent prompts; only the first after a resume replays any.
      const escalations = new CallEscalations(replay);
      replay = undefined;
      ctx.escalations.set(call.id, escalations);
      let ran: { readonly result: ExecutorResult } | { readonly cause: unknown };
      try {
        state("running");
        ran = {
          result: await executor.execute(
            new PassInput(
              call,
              walk.snapshot(),
              walk.answeredByDefault(),
              ctx.abort,
              ctx.coordinator,
            ),
          ),
        };
      } catch (cause) {
        ran = { cause };
      } finally {
        ctx.escalations.set(call.id, undefined);
      }
      // A prompt the call waited at before, which its sub-agent did not get to ask again (it asked
      // something new first: a secret, which is never kept, or a different question), is closed.
      escalations.abandon(ctx);
      if (escalations.suspended !== undefined) {
        // Left pending at a sub-agent's prompt: what the pass returned or threw is set aside.
        const { request, agent } = escalations.suspended;
        return {
          source: "suspended",
          at: {
            request,
            ...(request.kind === "question" ? { source: { source: "other", name: agent } } : {}),
            walk: walk.toJSON(),
            asked,
            escalated: { agent, done: escalations.done },
          },
        };
      }
      if ("cause" in ran) {
        if (ctx.abort.aborted) return stopped(ctx);
        return stop(executionFailedMessage(call.name, ctx.secrets.mask(describe(ran.cause))), true);
      }
      result = ran.result;
    }
    if (result.type === "completed") {
      // A failure's text is the SDK's to record, so no secret answer may stay in it. A successful
      // result is the tool's own choice of what to tell the model.
      const content = result.is_error ? ctx.secrets.mask(result.content) : result.content;
      return { source: "tool", outcome: finish({ content, is_error: result.is_error }) };
    }
    // A secret quoted where masking would change the question (its id, an option, a schema)
    // cannot be written or shown: the question is not asked, and the call fails saying where.
    const unaskable = ctx.secrets.unaskable(result.question);
    if (unaskable !== undefined) return stop(executionFailedMessage(call.name, unaskable), true);
    state("awaiting_input");
    const masked = ctx.secrets.maskQuestion(result.question);
    if (masked !== result.question) result = { ...result, question: masked };
    formTotal = result.form?.total;
    const at =
      resumed?.request.kind === "question"
        ? {
            id: resumed.request.inquiry_id,
            ...(resumed.request.error === undefined ? {} : { error: resumed.request.error }),
          }
        : undefined;
    const resolving = resolveQuestion(ctx, call, config, result, walk, at);
    const answered = resolving instanceof Promise ? await resolving : resolving;
    if (answered.type === "suspended") {
      return {
        source: "suspended",
        at: {
          request: answered.request,
          source: result.source,
          ...(result.form === undefined ? {} : { form: result.form }),
          walk: walk.toJSON(),
          asked,
        },
      };
    }
    if (answered.type === "stop")
      return stop(answered.content, answered.is_error, answered.endTurn);
    if (answered.type === "back") walk.back();
    else {
      const secret = result.question.answer_type.type === "secret";
      if (secret) ctx.secrets.add(answered.value);
      walk.set(result.question.id, answered.value, {
        prompted: answered.prompted,
        secret,
        byDefault: answered.byDefault === true,
      });
    }
  }
}

// Which of a resumed call's answers nobody gave, as its recorded responses say. Only an answer
// given without a prompt can be one: a call whose answers were all a person's reads nothing.
function answeredByDefaultBefore(
  ctx: RunContext,
  call: ToolCall,
  walk: WalkJson,
): ReadonlySet<string> | undefined {
  if (!walk.answers.some((entry) => !entry.prompted && !entry.secret)) return undefined;
  return ctx.recordedDefaults?.of(call.id);
}

/**
 * How many of a call's questions do not count towards its limit: the answers it holds to a
 * form's questions, up to the form's size. The limit stops a tool stuck asking again, so each
 * question of a long form counts once, while asking again (after Back, or the same question
 * over and over) still counts every time; a tool that is not a form counts every question.
 */
function uncounted(walk: AnswerWalk, formTotal: number | undefined): number {
  return formTotal === undefined ? 0 : Math.min(walk.size, formTotal);
}
