import type { Executor, ExecutorSource, ToolCall } from "../backends/executor.js";
import type { ResolvedToolConfig } from "../config/schema.js";
import {
  EXECUTION_CANCELLED,
  executionFailedMessage,
  notAvailableMessage,
} from "../routing/messages.js";
import { AnswerWalk } from "./answer-walk.js";
import { abortCause, describe, type RunContext } from "./context.js";
import { type CallResult, deliverResult } from "./delivery.js";
import type { ToolCallState } from "./events.js";
import { decidePermission } from "./permission.js";
import { resolveQuestion, stoppedByAbort } from "./question-round.js";

/** A tool call's final result, and whether the human ended the turn from it. */
export interface CallOutcome extends CallResult {
  readonly endTurn: boolean;
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
): Promise<CallOutcome> {
  const state = (next: ToolCallState) =>
    ctx.emitter.emit("tool-state", { tool_call_id: call.id, tool_name: call.name, state: next });
  state("queued");
  const outcome = await attempt({ ctx, setup, state }, call);
  state("completed");
  return outcome;
}

async function attempt(run: CallRun, call: ToolCall): Promise<CallOutcome> {
  const { ctx, setup, state } = run;
  let config: ResolvedToolConfig;
  let executor: Executor | undefined;
  try {
    config = setup.resolve(call.name);
    executor = config.enable.state ? setup.executors.executorFor(call, config) : undefined;
  } catch (cause) {
    // A host's source that throws still leaves the call with a response.
    return finish({ content: executionFailedMessage(call.name, describe(cause)), is_error: true });
  }
  if (executor === undefined) {
    return finish({ content: notAvailableMessage(call.name), is_error: true });
  }
  state("awaiting_permission");
  const permission = await decidePermission(ctx, call, config);
  if (permission.type === "done") return finish(permission);
  // The tool runs with the arguments the human approved (possibly edited).
  const ran = await passes(run, executor, permission.call, config);
  if (ran.source !== "tool") return ran.outcome;
  state("awaiting_delivery");
  return finish(await deliverResult(ctx, permission.call, config, ran.outcome));
}

// The run aborted between passes: a shutdown or a deadline is not the person's cancel.
function stopped(ctx: RunContext): Ran {
  const cause = abortCause(ctx.signal);
  const content = cause.type === "user" ? EXECUTION_CANCELLED : stoppedByAbort(cause).content;
  return { source: "coordinator", outcome: finish({ content, is_error: false }) };
}

function finish(result: CallResult, endTurn = false): CallOutcome {
  return { content: result.content, is_error: result.is_error, endTurn };
}

type Ran = { readonly source: "tool" | "coordinator"; readonly outcome: CallOutcome };

async function passes(
  run: CallRun,
  executor: Executor,
  call: ToolCall,
  config: ResolvedToolConfig,
): Promise<Ran> {
  const { ctx, state } = run;
  const { maxQuestions } = run.setup;
  const walk = new AnswerWalk();
  const stop = (content: string, is_error: boolean, endTurn = false): Ran => ({
    source: "coordinator",
    outcome: finish({ content, is_error }, endTurn),
  });
  for (let asked = 0; ; asked++) {
    if (ctx.signal.aborted) return stopped(ctx);
    if (asked > maxQuestions) {
      return stop(
        executionFailedMessage(call.name, `asked more than ${maxQuestions} questions`),
        true,
      );
    }
    state("running");
    let result: Awaited<ReturnType<Executor["execute"]>>;
    try {
      result = await executor.execute({ call, answers: walk.snapshot(), signal: ctx.signal });
    } catch (cause) {
      if (ctx.signal.aborted) return stopped(ctx);
      return stop(executionFailedMessage(call.name, ctx.secrets.mask(describe(cause))), true);
    }
    if (result.type === "completed") {
      // A failure's text is the SDK's to record, so no secret answer may stay in it. A successful
      // result is the tool's own choice of what to tell the model.
      const content = result.is_error ? ctx.secrets.mask(result.content) : result.content;
      return { source: "tool", outcome: finish({ content, is_error: result.is_error }) };
    }
    state("awaiting_input");
    const answered = await resolveQuestion(ctx, call, config, result, walk);
    if (answered.type === "stop")
      return stop(answered.content, answered.is_error, answered.endTurn);
    if (answered.type === "back") walk.back();
    else {
      const secret = result.question.answer_type.type === "secret";
      if (secret) ctx.secrets.add(answered.value);
      walk.set(result.question.id, answered.value, { prompted: answered.prompted, secret });
    }
  }
}
