import type { StandardJSONSchemaV1 } from "@standard-schema/spec";
import { err, type Result } from "neverthrow";
import { defineQuestion } from "./define-question.js";
import type { QuestionError } from "./errors.js";
import type { JsonValue } from "./json.js";
import type { Question } from "./question.js";

// A `schema` question written with any Standard Schema library that can write JSON Schema (the
// Standard JSON Schema interface: zod 4, ArkType, Valibot through `toStandardJsonSchema`). The
// library is used only here, to write the schema down once; the recorded question carries plain
// JSON Schema, and answers are checked against it by the same ajv as every other schema answer.

/** A schema of any library that implements Standard JSON Schema (`~standard.jsonSchema`). */
export type StandardJsonSchema<Answer = unknown> = StandardJSONSchemaV1<Answer, unknown>;

/** What {@link defineSchemaQuestion} is given: a question with a library schema as its answer. */
export interface SchemaQuestionSpec<S extends StandardJsonSchema> {
  readonly id: string;
  readonly text: string;
  readonly context?: string;
  /** The shape of the answer, in any Standard JSON Schema library. */
  readonly schema: S;
  readonly default?: StandardJSONSchemaV1.InferInput<S>;
  readonly exclusive?: boolean;
  readonly persistence?: Question["persistence"];
}

/** A `schema` question whose answer's type is known to the tool that asks it. */
export interface SchemaQuestion<Answer> {
  /** The question to ask (`needsInput(question)`): its `answer_type.schema` is plain JSON Schema. */
  readonly question: Question;
  /**
   * This question's answer among a pass's answers, typed, or `undefined` when it is not answered
   * yet. Every answer was checked against the JSON Schema before the tool sees it.
   */
  answerFrom(answers: Readonly<Record<string, JsonValue>>): Answer | undefined;
}

/**
 * Builds a `schema` question from a zod, ArkType or Valibot schema (any library implementing
 * Standard JSON Schema): the schema is written as draft 2020-12 JSON Schema for the record, the
 * question is checked as {@link defineQuestion} checks it, and the answer's type is inferred. A
 * schema the library cannot write as JSON Schema (a zod `z.date()`, a transform) is an
 * `invalid-question` error on `answer_type`. Refinements that JSON Schema cannot express are not
 * checked.
 *
 * @example
 * ```ts
 * const release = defineSchemaQuestion({
 *   id: "release",
 *   text: "Which version, with what notes?",
 *   schema: z.object({ version: z.string().regex(/^\d+\.\d+\.\d+$/), notes: z.string() }),
 * })._unsafeUnwrap();
 * const answer = release.answerFrom(answers); // { version: string; notes: string } | undefined
 * if (answer === undefined) return needsInput(release.question);
 * ```
 */
export function defineSchemaQuestion<S extends StandardJsonSchema>(
  spec: SchemaQuestionSpec<S>,
): Result<SchemaQuestion<StandardJSONSchemaV1.InferInput<S>>, QuestionError> {
  const { schema: library, ...fields } = spec;
  const written = jsonSchemaOf(library);
  if (written.problem !== undefined) {
    return err({ kind: "invalid-question", message: written.problem, field: "answer_type" });
  }
  const question = defineQuestion({
    ...(fields as Omit<Question, "answer_type">),
    answer_type: { type: "schema", schema: written.schema },
  });
  return question.map((defined) => ({
    question: defined,
    answerFrom: (answers) =>
      Object.hasOwn(answers, defined.id)
        ? (answers[defined.id] as StandardJSONSchemaV1.InferInput<S>)
        : undefined,
  }));
}

function jsonSchemaOf(
  schema: StandardJsonSchema,
): { schema: { [key: string]: JsonValue }; problem?: undefined } | { problem: string } {
  const converter = (schema as Partial<StandardJsonSchema> | undefined)?.["~standard"]?.jsonSchema;
  if (typeof converter?.input !== "function") {
    return {
      problem:
        "schema does not implement Standard JSON Schema (`~standard.jsonSchema`): use zod 4, ArkType, or Valibot's toStandardJsonSchema(schema)",
    };
  }
  let written: unknown;
  try {
    // The person writes the answer, so the schema of the library's input is the one to check.
    written = converter.input({ target: "draft-2020-12" });
  } catch (cause) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    return { problem: `schema cannot be written as JSON Schema: ${reason}` };
  }
  // A plain JSON copy: what is recorded must survive a round trip through a file.
  let copy: unknown;
  try {
    copy = JSON.parse(JSON.stringify(written));
  } catch {
    copy = undefined;
  }
  if (typeof copy !== "object" || copy === null || Array.isArray(copy)) {
    return { problem: "schema cannot be written as JSON Schema: the library gave no JSON object" };
  }
  return { schema: copy as { [key: string]: JsonValue } };
}
