import type { Question } from "@jp/tool";
import { describe, expect, it } from "vitest";
import {
  answerFromContent,
  elicitationForQuestion,
  questionsForElicitation,
} from "../../src/index.js";

const q = (answer_type: Question["answer_type"], extra: Partial<Question> = {}): Question => ({
  id: "q",
  text: "Which?",
  answer_type,
  ...extra,
});
const field = (schema: object) => ({
  type: "object",
  properties: { answer: { title: "Answer", ...schema } },
  required: ["answer"],
});

describe("elicitationForQuestion: each answer type", () => {
  it.each([
    ["boolean", q({ type: "boolean" }), field({ type: "boolean" }), "field"],
    [
      "boolean with a default",
      q({ type: "boolean" }, { default: true }),
      field({ type: "boolean", default: true }),
      "field",
    ],
    ["text", q({ type: "text" }), field({ type: "string" }), "field"],
    [
      "select",
      q({ type: "select", options: ["a", "b"] }),
      field({ type: "string", enum: ["a", "b"] }),
      "field",
    ],
    [
      "multi_select",
      q({ type: "multi_select", options: ["a", "b"] }, { default: ["b"] }),
      field({ type: "array", items: { type: "string", enum: ["a", "b"] }, default: ["b"] }),
      "field",
    ],
    [
      "a default that does not fit is dropped",
      q({ type: "select", options: ["a"] }, { default: "z" }),
      field({ type: "string", enum: ["a"] }),
      "field",
    ],
    [
      "schema: a bounded integer",
      q({ type: "schema", schema: { type: "integer", minimum: 1, maximum: 5 } }),
      field({ type: "integer", minimum: 1, maximum: 5 }),
      "field",
    ],
    [
      "schema: a formatted string",
      q({ type: "schema", schema: { type: "string", format: "email" } }),
      field({ type: "string", format: "email" }),
      "field",
    ],
    [
      "schema: a flat object is the form itself",
      q(
        {
          type: "schema",
          schema: {
            type: "object",
            properties: { n: { type: "integer" }, ok: { type: "boolean" } },
            required: ["n"],
          },
        },
        { default: { n: 2 } },
      ),
      {
        type: "object",
        properties: { n: { type: "integer", default: 2 }, ok: { type: "boolean" } },
        required: ["n"],
      },
      "object",
    ],
    [
      "schema: nesting degrades to JSON text",
      q({ type: "schema", schema: { type: "object", properties: { a: { type: "object" } } } }),
      {
        type: "object",
        properties: {
          answer: {
            type: "string",
            title: "Answer (JSON)",
            description:
              'A JSON value matching this JSON Schema: {"type":"object","properties":{"a":{"type":"object"}}}',
          },
        },
        required: ["answer"],
      },
      "json",
    ],
    [
      "schema: a union degrades to JSON text, default as JSON",
      q(
        { type: "schema", schema: { oneOf: [{ type: "string" }, { type: "integer" }] } },
        { default: 3 },
      ),
      {
        type: "object",
        properties: {
          answer: {
            type: "string",
            title: "Answer (JSON)",
            description:
              'A JSON value matching this JSON Schema: {"oneOf":[{"type":"string"},{"type":"integer"}]}',
            default: "3",
          },
        },
        required: ["answer"],
      },
      "json",
    ],
  ])("%s", (_name, question, requestedSchema, reading) => {
    const form = elicitationForQuestion(question)._unsafeUnwrap();
    expect(form).toEqual({ message: "Which?", requestedSchema, reading });
    // Every form this side sends is one the client side of this package accepts.
    expect(questionsForElicitation(form.requestedSchema, { server: "x" }).isOk()).toBe(true);
  });

  it("puts the context and a previous answer's problem in the message", () => {
    const form = elicitationForQuestion(q({ type: "text" }, { context: "Be brief." }), {
      error: "too long",
    });
    expect(form._unsafeUnwrap().message).toBe(
      "Which?\n\nBe brief.\n\nYour previous answer was not accepted: too long",
    );
  });

  it("refuses a secret: MCP forbids secrets in forms", () => {
    const error = elicitationForQuestion(q({ type: "secret" }))._unsafeUnwrapErr();
    expect(error.kind).toBe("secret");
    expect(error.message).toContain(
      'question "q" asks for a secret, which MCP does not allow in a form',
    );
  });
});

describe("answerFromContent", () => {
  it.each([
    ["a field", q({ type: "boolean" }), "field", { answer: true }, true],
    ["a choice", q({ type: "select", options: ["a"] }), "field", { answer: "a" }, "a"],
    [
      "JSON text",
      q({ type: "schema", schema: { type: "array" } }),
      "json",
      { answer: "[1,2]" },
      [1, 2],
    ],
    [
      "an object form",
      q({ type: "schema", schema: { type: "object" } }),
      "object",
      { n: 1 },
      { n: 1 },
    ],
  ])("reads %s", (_name, question, reading, content, answer) => {
    expect(
      answerFromContent(question, { reading: reading as never }, content)._unsafeUnwrap(),
    ).toEqual(answer);
  });

  it.each([
    [
      "a misfit",
      q({ type: "select", options: ["a"] }),
      "field",
      { answer: "z" },
      'expected one of "a", got "z"',
    ],
    [
      "bad JSON",
      q({ type: "schema", schema: {} }),
      "json",
      { answer: "{" },
      "the answer is not valid JSON",
    ],
    [
      "JSON that does not match",
      q({ type: "schema", schema: { type: "array" } }),
      "json",
      { answer: "1" },
      "does not match",
    ],
    ["no content", q({ type: "text" }), "field", undefined, "no answer was given"],
  ])("refuses %s", (_name, question, reading, content, message) => {
    const error = answerFromContent(
      question,
      { reading: reading as never },
      content,
    )._unsafeUnwrapErr();
    expect(error.message).toContain(message);
  });
});
