// This file is the public API of @jp/tool: every name exported here is public, nothing else is.
export type { AnswerType } from "./answer-type.js";
export { answerTypeSchema, decodeAnswerType } from "./answer-type.js";
export { defineQuestion } from "./define-question.js";
export type { AnswerError, DecodeError, QuestionError } from "./errors.js";
export { stableStringify } from "./internal/stable-json.js";
export type { JsonValue } from "./json.js";
export { jsonValueSchema } from "./json.js";
export type { FailureOptions, Outcome } from "./outcome.js";
export {
  decodeOutcome,
  encodeOutcome,
  failure,
  needsInput,
  outcomeSchema,
  parseOutcome,
  success,
} from "./outcome.js";
export type { AnswerReusePolicy, Question } from "./question.js";
export {
  answerReusePolicySchema,
  decodeQuestion,
  encodeQuestion,
  isExclusive,
  questionSchema,
  reusePolicy,
} from "./question.js";
export type {
  SchemaQuestion,
  SchemaQuestionSpec,
  StandardJsonSchema,
} from "./schema-question.js";
export { defineSchemaQuestion } from "./schema-question.js";
export { validateAnswer } from "./validate-answer.js";
