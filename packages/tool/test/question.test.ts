import { describe, expect, it } from "vitest";
import {
  decodeQuestion,
  encodeQuestion,
  isExclusive,
  type Question,
  reusePolicy,
} from "../src/index.js";

const base = { id: "apply_changes", text: "Apply the patch?", answer_type: { type: "boolean" } };

describe("decodeQuestion", () => {
  it.each<[string, Record<string, unknown>, Question]>([
    ["the canonical shape", base, { ...base, answer_type: { type: "boolean" } }],
    [
      "a legacy answer_type",
      { ...base, answer_type: { Select: { options: ["y", "n"] } } },
      { ...base, answer_type: { type: "select", options: ["y", "n"] } },
    ],
    [
      "pre_amble as context",
      { ...base, pre_amble: "diff" },
      { ...base, context: "diff" } as Question,
    ],
    [
      "context winning over pre_amble",
      { ...base, pre_amble: "old", context: "new" },
      { ...base, context: "new" } as Question,
    ],
    [
      "serde nulls as absent",
      {
        ...base,
        pre_amble: null,
        context: null,
        default: null,
        exclusive: null,
        persistence: null,
      },
      base as Question,
    ],
    ["exclusive: false omitted", { ...base, exclusive: false }, base as Question],
    ["persistence: turn omitted", { ...base, persistence: "turn" }, base as Question],
    [
      "exclusive: true kept",
      { ...base, exclusive: true },
      { ...base, exclusive: true } as Question,
    ],
    [
      "persistence: none kept",
      { ...base, persistence: "none" },
      { ...base, persistence: "none" } as Question,
    ],
    ["a default kept", { ...base, default: true }, { ...base, default: true } as Question],
    [
      "a multi-line text (old local tools)",
      { ...base, text: "a\nb" },
      { ...base, text: "a\nb" } as Question,
    ],
    ["unknown fields dropped", { ...base, colour: "red" }, base as Question],
    [
      "pre_amble as context when context is null",
      { ...base, context: null, pre_amble: "diff" },
      { ...base, context: "diff" } as Question,
    ],
  ])("reads %s", (_name, json, expected) => {
    const decoded = decodeQuestion(json);
    expect(decoded.isOk() && decoded.value).toEqual(expected);
  });

  it("reads JP's own serde output of a question", () => {
    const json = JSON.parse(
      '{"id":"apply_changes","text":"Do you want to apply the patch shown above?",' +
        '"pre_amble":"<diff>","answer_type":"Boolean","default":true}',
    );
    const decoded = decodeQuestion(json);
    expect(decoded.isOk() && decoded.value).toEqual({
      id: "apply_changes",
      text: "Do you want to apply the patch shown above?",
      context: "<diff>",
      answer_type: { type: "boolean" },
      default: true,
    });
  });

  it.each<[string, unknown, string, (string | number)[]]>([
    ["an empty id", { ...base, id: "" }, "question.id: must not be empty", ["id"]],
    [
      "an id with a dot",
      { ...base, id: "a.b" },
      'question.id: must not contain "." (it becomes one segment of the inquiry id ' +
        '<tool_call_id>.<question_id>.<attempt>), got "a.b"',
      ["id"],
    ],
    [
      "a missing text",
      { id: "q", answer_type: "Text" },
      "question.text: is missing (expected a string)",
      ["text"],
    ],
    [
      "a bad option deep inside",
      { ...base, answer_type: { type: "multi_select", options: ["a", 1] } },
      "question.answer_type.options[1]: expected a string, got number",
      ["answer_type", "options", 1],
    ],
    [
      "an unknown persistence",
      { ...base, persistence: "forever" },
      'question.persistence: expected one of "none", "turn", got "forever"',
      ["persistence"],
    ],
    ["a non-object", "question?", "question: expected an object, got string", []],
    [
      "a text that is not a string",
      { ...base, text: 5 },
      "question.text: expected a string, got number",
      ["text"],
    ],
    [
      "a context that is not a string",
      { ...base, context: 5 },
      "question.context: expected a string, got number",
      ["context"],
    ],
    [
      "options that are a string, not an array",
      { ...base, answer_type: { type: "select", options: "abc" } },
      "question.answer_type.options: expected an array, got string",
      ["answer_type", "options"],
    ],
    [
      "a schema that is an array",
      { ...base, answer_type: { type: "schema", schema: [1] } },
      "question.answer_type.schema: expected an object, got array",
      ["answer_type", "schema"],
    ],
    [
      "a schema holding a non-JSON value (from code)",
      { ...base, answer_type: { type: "schema", schema: { a: Number.NaN } } },
      "question.answer_type.schema.a: expected a JSON value, got NaN",
      ["answer_type", "schema", "a"],
    ],
    [
      "a default that is not JSON (from code)",
      { ...base, default: Number.NaN },
      "question.default: expected a JSON value, got NaN",
      ["default"],
    ],
    [
      "a default holding a non-JSON value under a key that is not an identifier",
      { ...base, default: { "my key": [Number.NaN] } },
      'question.default["my key"][0]: expected a JSON value, got NaN',
      ["default", "my key", 0],
    ],
    [
      "two problems, counting the second",
      { ...base, text: 1, context: 2 },
      "question.text: expected a string, got number (and 1 more problem)",
      ["text"],
    ],
    [
      "three problems, counting the others",
      { ...base, text: 1, context: 2, exclusive: "yes" },
      "question.text: expected a string, got number (and 2 more problems)",
      ["text"],
    ],
    ["an array", [base], "question: expected an object, got array", []],
  ])("refuses %s", (_name, json, message, path) => {
    const decoded = decodeQuestion(json);
    expect(decoded.isErr() && decoded.error).toEqual({ kind: "decode", message, path });
  });
});

describe("decodeQuestion of hostile input", () => {
  it("answers with an error, not a throw, when a getter throws", () => {
    const hostile = {
      id: "q",
      text: "?",
      get answer_type(): never {
        throw new Error("boom");
      },
    };
    const decoded = decodeQuestion(hostile);
    expect(decoded.isErr() && decoded.error).toEqual({
      kind: "decode",
      message: "question: could not be decoded: boom",
      path: [],
    });
  });
});

describe("encodeQuestion", () => {
  it.each<[string, Question, Record<string, unknown>]>([
    ["omits exclusive: false", { ...base, exclusive: false } as Question, base],
    ["omits persistence: turn", { ...base, persistence: "turn" } as Question, base],
    [
      "keeps the non-default values",
      { ...base, exclusive: true, persistence: "none" } as Question,
      { ...base, exclusive: true, persistence: "none" },
    ],
    [
      "writes context and default",
      { ...base, context: "c", default: false } as Question,
      { ...base, context: "c", default: false },
    ],
  ])("%s", (_name, question, expected) => {
    expect(encodeQuestion(question)).toEqual(expected);
  });

  it("writes the tagged answer type and no pre_amble or nulls", () => {
    const decoded = decodeQuestion({ ...base, pre_amble: "p", default: null, answer_type: "Text" });
    const text = decoded.isOk() ? JSON.stringify(encodeQuestion(decoded.value)) : "";
    expect(text).toBe(
      '{"id":"apply_changes","text":"Apply the patch?","context":"p","answer_type":{"type":"text"}}',
    );
  });

  it("writes no default key for a default set to undefined", () => {
    const question = { ...base, default: undefined } as unknown as Question;
    expect(Object.keys(encodeQuestion(question))).toEqual(["id", "text", "answer_type"]);
  });

  it("drops fields that are not part of the wire shape", () => {
    const question = { ...base, colour: "red" } as Question;
    expect(encodeQuestion(question)).toEqual(base);
  });
});

describe("defaults of exclusive and persistence", () => {
  it.each<[Partial<Question>, boolean, string]>([
    [{}, false, "turn"],
    [{ exclusive: true }, true, "turn"],
    [{ exclusive: false, persistence: "none" }, false, "none"],
    [{ persistence: "turn" }, false, "turn"],
  ])("%j → exclusive %s, reuse %s", (fields, exclusive, reuse) => {
    expect(isExclusive(fields)).toBe(exclusive);
    expect(reusePolicy(fields)).toBe(reuse);
  });
});
