import type { InquiryAnswerType, InquiryQuestion } from "@jp/conversation";
import type { AnswerType, Question } from "@jp/tool";

/** The recorded inquiry id: `<tool_call_id>.<question_id>.<attempt>`. Readers treat it as opaque. */
export function inquiryId(toolCallId: string, questionId: string, attempt: number): string {
  return `${toolCallId}.${questionId}.${attempt}`;
}

function toInquiryAnswerType(answerType: AnswerType): InquiryAnswerType {
  switch (answerType.type) {
    case "select":
    case "multi_select":
      return { type: answerType.type, options: answerType.options.map((value) => ({ value })) };
    case "schema":
      return { type: "schema", schema: answerType.schema };
    default:
      return { type: answerType.type };
  }
}

/**
 * Converts a tool's question into its persisted form at the recording boundary: the question
 * the human saw, with its context and the policy fields that drove routing.
 */
export function toInquiryQuestion(question: Question): InquiryQuestion {
  const out: InquiryQuestion = {
    text: question.text,
    answer_type: toInquiryAnswerType(question.answer_type),
  };
  if (question.default !== undefined) out.default = question.default;
  if (question.context !== undefined) out.context = question.context;
  if (question.exclusive === true) out.exclusive = true;
  if (question.persistence === "none") out.persistence = "none";
  return out;
}
