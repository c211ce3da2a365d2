import { describe, expect, it } from "vitest";
import { type AnswerType, defineQuestion, type JsonValue, type Question } from "../src/index.js";

const text: AnswerType = { type: "text" };
const colours: AnswerType = { type: "select", options: ["red", "green", "blue"] };
const toppings: AnswerType = { type: "multi_select", options: ["cheese", "ham"] };
const person: AnswerType = {
  type: "schema",
  schema: {
    type: "object",
    properties: { name: { type: "string" }, age: { type: "integer" } },
    required: ["name"],
  },
};

function spec(fields: Partial<Question>): Question {
  return { id: "q", text: "Which one?", answer_type: text, ...fields } as Question;
}

describe("defineQuestion refuses", () => {
  it.each<[string, Partial<Question>, string, string]>([
    ["an empty id", { id: "" }, "id", "id must not be empty"],
    [
      "an id with a dot",
      { id: "apply.changes" },
      "id",
      'id "apply.changes" must not contain "." because it becomes one segment of the inquiry id ' +
        "<tool_call_id>.<question_id>.<attempt>",
    ],
    ["an empty text", { text: "" }, "text", "text must not be empty"],
    ["a blank text", { text: "   " }, "text", "text must not be empty"],
    [
      "a newline in text",
      { text: "Apply?\nThe diff:" },
      "text",
      "text must be a single line; put multi-line material (a diff, a file excerpt) in `context`",
    ],
    [
      "a carriage return in text",
      { text: "Apply?\r" },
      "text",
      "text must be a single line; put multi-line material (a diff, a file excerpt) in `context`",
    ],
    [
      "a select without options",
      { answer_type: { type: "select", options: [] } },
      "answer_type",
      "a select question needs at least one option",
    ],
    [
      "a multi_select without options",
      { answer_type: { type: "multi_select", options: [] } },
      "answer_type",
      "a multi_select question needs at least one option",
    ],
    [
      "duplicate options",
      { answer_type: { type: "select", options: ["a", "b", "a"] } },
      "answer_type",
      'option "a" is listed more than once in answer_type.options',
    ],
    [
      "a schema that does not compile",
      { answer_type: { type: "schema", schema: { type: "whole number" } } },
      "answer_type",
      "answer_type.schema does not compile: schema is invalid: data/type must be equal to one of " +
        "the allowed values, data/type must be array, data/type must match a schema in anyOf",
    ],
    [
      "a default on a secret",
      { answer_type: { type: "secret" }, default: "hunter2" },
      "default",
      "a secret question cannot have a default: it would be a sensitive literal in the tool and the conversation log",
    ],
    [
      "a boolean default that is not a boolean",
      { answer_type: { type: "boolean" }, default: "yes" },
      "default",
      'default is not a valid answer: expected true or false, got "yes"',
    ],
    [
      "a text default that is not a string",
      { default: 42 },
      "default",
      "default is not a valid answer: expected a string, got 42",
    ],
    [
      "a select default not among the options",
      { answer_type: colours, default: "purple" },
      "default",
      'default is not a valid answer: expected one of "red", "green", "blue", got "purple"',
    ],
    [
      "a multi_select default that is not an array",
      { answer_type: toppings, default: "cheese" },
      "default",
      'default is not a valid answer: expected an array of distinct choices from "cheese", "ham", got "cheese"',
    ],
    [
      "a multi_select default with a repeated choice",
      { answer_type: toppings, default: ["ham", "ham"] },
      "default",
      'default is not a valid answer: item 1: "ham" is chosen twice; each choice may appear only once',
    ],
    [
      "a default that does not match the schema",
      { answer_type: person, default: { name: "Ada", age: 36.5 } },
      "default",
      "default is not a valid answer: does not match the JSON Schema: /age: must be integer",
    ],
  ])("%s", (_name, fields, field, message) => {
    const defined = defineQuestion(spec(fields));
    expect(defined.isErr() && defined.error).toEqual({ kind: "invalid-question", message, field });
  });

  it("a spec that is not an object, naming no field", () => {
    const defined = defineQuestion(null as unknown as Question);
    expect(defined.isErr() && defined.error).toStrictEqual({
      kind: "invalid-question",
      message: "question: expected an object, got null",
    });
  });

  it("an id that is not a string in an otherwise complete spec, without throwing", () => {
    const defined = defineQuestion({ id: 7, text: "?", answer_type: text } as unknown as Question);
    expect(defined.isErr() && defined.error).toEqual({
      kind: "invalid-question",
      field: "id",
      message: "question.id: expected a string, got number",
    });
  });

  it("a malformed spec from an untyped caller, without throwing", () => {
    const defined = defineQuestion({ id: 7 } as unknown as Question);
    expect(defined.isErr() && defined.error).toMatchObject({
      kind: "invalid-question",
      field: "id",
      message: expect.stringContaining("question.id: expected a string, got number"),
    });
  });
});

describe("defineQuestion accepts", () => {
  it.each<[string, Partial<Question>]>([
    ["a text question", {}],
    ["a boolean with a default", { answer_type: { type: "boolean" }, default: true }],
    ["a select with a default", { answer_type: colours, default: "green" }],
    ["a multi_select with an empty default", { answer_type: toppings, default: [] }],
    ["a multi_select with a default", { answer_type: toppings, default: ["ham", "cheese"] }],
    ["a secret without default", { answer_type: { type: "secret" } }],
    ["a schema with a valid default", { answer_type: person, default: { name: "Ada" } }],
    ["multi-line material in context", { context: "--- a\n+++ b\n" }],
    ["exclusive and persistence", { exclusive: true, persistence: "none" }],
  ])("%s", (_name, fields) => {
    const question = spec(fields);
    const defined = defineQuestion(question);
    expect(defined.isOk() && defined.value).toEqual(question);
  });

  it("and normalises default-valued fields away", () => {
    const defined = defineQuestion(spec({ exclusive: false, persistence: "turn" }));
    expect(defined.isOk() && defined.value).toEqual({
      id: "q",
      text: "Which one?",
      answer_type: text,
    });
  });

  it("a JSON default of any shape for a permissive schema", () => {
    const value: JsonValue = { nested: [1, "two", null, { three: true }] };
    const defined = defineQuestion(
      spec({ answer_type: { type: "schema", schema: {} }, default: value }),
    );
    expect(defined.isOk()).toBe(true);
  });
});
