import { type CancellationReason, createEvent } from "@jp/conversation";
import { validateAnswer } from "@jp/tool";
import type { ToolCall } from "../backends/executor.js";
import type {
  PromptBackend,
  PromptRequest,
  QuestionPromptRequest,
  QuestionReply,
  ReplyFor,
} from "../backends/prompt-backend.js";
import { inquiryId, toInquiryQuestion } from "../recording/inquiry-question.js";
import { type RunContext, record, showPrompt } from "./context.js";
import { stoppedByAbort } from "./question-round.js";

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
 * Shows a sub-agent's prompt in the parent's line of prompts. A question is recorded in the
 * parent's conversation too, attributed to the sub-agent (`{"source":"other","name":agent}`),
 * under the hosting tool call's id; the sub-agent records its own pair as well.
 */
export async function escalatePrompt<R extends PromptRequest>(
  ctx: RunContext,
  host: ToolCall,
  agent: string,
  request: R,
): Promise<ReplyFor<R>> {
  if (request.kind !== "question") {
    const shown = await showPrompt(ctx, { ...request, tool_call_id: host.id });
    if (shown.type === "failed") throw new Error(shown.error);
    return (shown.type === "reply" ? shown.reply : { type: "cancelled" }) as ReplyFor<R>;
  }
  // Resolved early with End Turn (see `handingOverEndTurn`), otherwise once recorded.
  return new Promise<ReplyFor<R>>((resolve, reject) => {
    const handOver = handingOverEndTurn(ctx, (reply) => resolve(reply as ReplyFor<R>));
    escalateQuestion(handOver.ctx, host, agent, request)
      .then((reply) => resolve(reply as ReplyFor<R>), reject)
      .finally(handOver.dispose);
  });
}

async function escalateQuestion(
  ctx: RunContext,
  host: ToolCall,
  agent: string,
  request: QuestionPromptRequest,
): Promise<QuestionReply> {
  const { question } = request;
  const id = inquiryId(host.id, question.id, ctx.turn.nextInquiryAttempt(host.id, question.id));
  const source = { source: "other", name: agent } as const;
  record(
    ctx,
    createEvent("inquiry_request", { id, source, question: toInquiryQuestion(question) }),
  );
  const label = `${request.prompt_label ?? "Assistant"} (sub-agent ${agent})`;
  const shown = await showPrompt(ctx, {
    ...request,
    tool_call_id: host.id,
    inquiry_id: id,
    prompt_label: label,
  });
  if (shown.type === "failed") {
    record(
      ctx,
      createEvent("inquiry_response", { outcome: "cancelled", id, reason: "backend_error" }),
    );
    throw new Error(shown.error);
  }
  if (shown.type === "aborted" && shown.cause.type !== "user") {
    // A deadline, a shutdown or End Turn elsewhere: recorded as such, not as the person's cancel.
    const { reason } = stoppedByAbort(shown.cause);
    record(ctx, createEvent("inquiry_response", { outcome: "cancelled", id, reason }));
    return { type: "cancelled" };
  }
  const reply = shown.type === "reply" ? shown.reply : ({ type: "cancelled" } as const);
  // A control the question did not offer is not the person's choice of it (as for a tool's own).
  const offered =
    reply.type === "answer" || reply.type === "cancelled" || request.controls[reply.type];
  record(ctx, responseFor(id, question, offered ? reply : { type: "cancelled" }));
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
  const follow = () => {
    if (!handedOver) gate.abort(ctx.signal.reason);
  };
  if (ctx.signal.aborted) follow();
  else ctx.signal.addEventListener("abort", follow, { once: true });
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
        await abortedOrNextTick(ctx.signal);
      }
      return reply;
    },
  };
  return {
    ctx: { ...ctx, signal: gate.signal, prompts },
    dispose: () => ctx.signal.removeEventListener("abort", follow),
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
