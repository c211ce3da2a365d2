import type { JsonValue } from "@jp/conversation";
import { ASK_USER_ANSWER_TYPES } from "./arguments.js";

// Provider-valid JSON Schema for each argument: no "type": "any", and no requiredness that
// depends on another field (options iff select, question xor questions); `ask_user` checks
// those at run time and tells the model what to fix.

const anyAnswer: JsonValue = {
  anyOf: [
    { type: "string" },
    { type: "number" },
    { type: "boolean" },
    { type: "array", items: { type: "string" } },
    { type: "object" },
  ],
};

const answerType = (description: string): JsonValue => ({
  type: "string",
  enum: [...ASK_USER_ANSWER_TYPES],
  description,
});

const options: JsonValue = {
  type: "array",
  items: { type: "string" },
  description:
    'The choices, each distinct visible text without leading or trailing whitespace; required for "select" and "multi_select", not allowed otherwise.',
};

const schema: JsonValue = {
  type: "object",
  description:
    'A JSON Schema the answer must satisfy; required for "schema", not allowed otherwise.',
};

const formQuestion: JsonValue = {
  type: "object",
  properties: {
    id: {
      type: "string",
      description: "A unique id (letters, digits, _ and -); the answer's key.",
    },
    text: { type: "string", description: "The question, on one line." },
    context: { type: "string", description: "Optional context shown above the question." },
    answer_type: answerType("The kind of answer."),
    options,
    schema,
    default: { ...(anyAnswer as object), description: "Optional pre-filled answer." },
    when: {
      type: "object",
      description:
        "Ask this question only when an earlier question's answer equals `equals` (a multi_select answer in any order).",
      properties: {
        question_id: { type: "string", description: "The id of an earlier question." },
        equals: {
          ...(anyAnswer as object),
          description: "The answer that enables this question: one the earlier question accepts.",
        },
      },
      required: ["question_id", "equals"],
    },
  },
  required: ["id", "text", "answer_type"],
};

/**
 * `ask_user`'s parameters in JP's config shape: each argument's JSON Schema, with `required`
 * marking the ones that must be present (none: one of `question` or `questions` is).
 */
export const ASK_USER_PARAMETERS: Readonly<Record<string, JsonValue>> = {
  question: {
    type: "string",
    description: "One question to ask, on one line. Use this or `questions`.",
  },
  context: { type: "string", description: "Optional multi-line context shown above the question." },
  answer_type: answerType('The kind of answer for `question`; default "text".'),
  options,
  schema,
  default: { ...(anyAnswer as object), description: "Optional pre-filled answer for `question`." },
  questions: {
    type: "array",
    minItems: 1,
    items: formQuestion,
    description: "A form: several questions asked in order, instead of `question`.",
  },
};
