import { type CancellationReason, createEvent } from "@jp/conversation";
import { validateAnswer } from "@jp/tool";
import type { ToolCall } from "../backends/executor.js";
import type { PromptRequest, QuestionReply, ReplyFor } from "../backends/prompt-backend.js";
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
    return { type: "cancelled" } as ReplyFor<R>;
  }
  const reply = (shown.type === "reply" ? shown.reply : { type: "cancelled" }) as QuestionReply;
  record(ctx, responseFor(id, question, reply));
  if (reply.type === "end_turn") ctx.endTurn();
  return reply as ReplyFor<R>;
}

function responseFor(
  id: string,
  question: Extract<PromptRequest, { kind: "question" }>["question"],
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
