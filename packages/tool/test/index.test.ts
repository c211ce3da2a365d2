import type { Result } from "neverthrow";
import { describe, expect, expectTypeOf, it } from "vitest";
import type {
  AnswerError,
  AnswerReusePolicy,
  AnswerType,
  DecodeError,
  JsonValue,
  Outcome,
  Question,
  QuestionError,
} from "../src/index.js";
import { decodeQuestion, validateAnswer } from "../src/index.js";

describe("public API", () => {
  // Adding a name here is a deliberate act: the barrel is the package's contract.
  it("exports exactly these runtime names", async () => {
    expect(Object.keys(await import("../src/index.js")).sort()).toEqual([
      "answerReusePolicySchema",
      "answerTypeSchema",
      "decodeAnswerType",
      "decodeOutcome",
      "decodeQuestion",
      "defineQuestion",
      "defineSchemaQuestion",
      "encodeOutcome",
      "encodeQuestion",
      "failure",
      "isExclusive",
      "jsonValueSchema",
      "needsInput",
      "outcomeSchema",
      "parseOutcome",
      "questionSchema",
      "reusePolicy",
      "stableStringify",
      "success",
      "validateAnswer",
    ]);
  });
});

describe("types are the wire shapes", () => {
  it("Question.answer_type is the AnswerType union", () => {
    expectTypeOf<Question["answer_type"]>().toEqualTypeOf<AnswerType>();
    expectTypeOf<AnswerType["type"]>().toEqualTypeOf<
      "boolean" | "select" | "multi_select" | "text" | "secret" | "schema"
    >();
    expectTypeOf<Extract<AnswerType, { type: "schema" }>["schema"]>().toEqualTypeOf<{
      [key: string]: JsonValue;
    }>();
  });

  it("optional fields are exact, with snake_case names", () => {
    expectTypeOf<Question>().toExtend<{ id: string; text: string; answer_type: AnswerType }>();
    expectTypeOf<{
      id: string;
      text: string;
      answer_type: AnswerType;
      context: undefined;
    }>().not.toExtend<Question>();
    expectTypeOf<Required<Question>["persistence"]>().toEqualTypeOf<AnswerReusePolicy>();
    expectTypeOf<AnswerReusePolicy>().toEqualTypeOf<"none" | "turn">();
  });

  it("outcomes and results", () => {
    expectTypeOf<Outcome["type"]>().toEqualTypeOf<"success" | "error" | "needs_input">();
    expectTypeOf<Extract<Outcome, { type: "error" }>>().toEqualTypeOf<{
      type: "error";
      message: string;
      trace: string[];
      transient: boolean;
    }>();
    expectTypeOf(decodeQuestion).returns.toEqualTypeOf<Result<Question, DecodeError>>();
    expectTypeOf(validateAnswer).returns.toEqualTypeOf<Result<JsonValue, AnswerError>>();
    expectTypeOf<QuestionError["kind"]>().toEqualTypeOf<"invalid-question">();
  });
});
