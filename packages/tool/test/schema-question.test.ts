import { toStandardJsonSchema } from "@valibot/to-json-schema";
import { type } from "arktype";
import * as v from "valibot";
import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { defineSchemaQuestion, type StandardJsonSchema, validateAnswer } from "../src/index.js";

type Release = { version: string; notes?: string };

/** The same answer shape in each library. */
const LIBRARIES = {
  zod: z.object({ version: z.string(), notes: z.string().optional() }),
  arktype: type({ version: "string", "notes?": "string" }),
  valibot: toStandardJsonSchema(v.object({ version: v.string(), notes: v.optional(v.string()) })),
} satisfies Record<string, StandardJsonSchema>;

describe.each(Object.entries(LIBRARIES))("defineSchemaQuestion with %s", (_, schema) => {
  const release = defineSchemaQuestion({ id: "release", text: "Which release?", schema });

  it("records plain JSON Schema that survives a file", () => {
    const { question } = release._unsafeUnwrap();
    expect(question.answer_type).toMatchObject({
      type: "schema",
      schema: {
        type: "object",
        properties: { version: { type: "string" }, notes: { type: "string" } },
        required: ["version"],
      },
    });
    expect(JSON.parse(JSON.stringify(question))).toEqual(question);
  });

  it("is checked by ajv at the boundary like any schema answer", () => {
    const { answer_type } = release._unsafeUnwrap().question;
    expect(validateAnswer(answer_type, { version: "1.2.0" }).isOk()).toBe(true);
    const refused = validateAnswer(answer_type, { version: 12 })._unsafeUnwrapErr();
    expect(refused.kind).toBe("invalid-answer");
    expect(refused.message).toContain("version");
  });

  it("hands the tool its answer, typed", () => {
    const { answerFrom } = release._unsafeUnwrap();
    expect(answerFrom({})).toBeUndefined();
    expect(answerFrom({ release: { version: "2.0.0" } })).toEqual({ version: "2.0.0" });
  });
});

describe("answerFrom", () => {
  it("finds this question's answer among others, even a falsy one", () => {
    const { answerFrom } = defineSchemaQuestion({
      id: "count",
      text: "How many?",
      schema: z.number(),
    })._unsafeUnwrap();
    expect(answerFrom({ other: 1, count: 0 })).toBe(0);
    expect(answerFrom({ other: 1 })).toBeUndefined();
  });
});

describe("the answer's type is inferred", () => {
  it("for zod, ArkType and Valibot alike", () => {
    const zod = defineSchemaQuestion({ id: "r", text: "?", schema: LIBRARIES.zod })._unsafeUnwrap();
    const ark = defineSchemaQuestion({ id: "r", text: "?", schema: LIBRARIES.arktype });
    const val = defineSchemaQuestion({ id: "r", text: "?", schema: LIBRARIES.valibot });
    expectTypeOf(zod.answerFrom({})).toEqualTypeOf<Release | undefined>();
    expectTypeOf(ark._unsafeUnwrap().answerFrom({})).toExtend<Release | undefined>();
    // Valibot spells an optional field `notes?: string | undefined`.
    expectTypeOf(val._unsafeUnwrap().answerFrom({})).toExtend<
      { version: string; notes?: string | undefined } | undefined
    >();
    expectTypeOf(val._unsafeUnwrap().answerFrom({})).not.toBeAny();
  });

  it("a field with a default is optional in the answer (the schema of the input)", () => {
    const q = defineSchemaQuestion({
      id: "n",
      text: "How many?",
      schema: z.object({ count: z.number().int().default(1) }),
    })._unsafeUnwrap();
    expectTypeOf(q.answerFrom({})).toEqualTypeOf<{ count?: number | undefined } | undefined>();
    expect(q.question.answer_type).toMatchObject({ schema: { type: "object" } });
    expect(
      (q.question.answer_type as { schema: { required?: string[] } }).schema.required,
    ).toBeUndefined();
  });

  it("a default must have the answer's type and be a valid answer", () => {
    const schema = z.object({ version: z.string() });
    // @ts-expect-error: the default is not an answer of the schema's type.
    defineSchemaQuestion({ id: "r", text: "?", schema, default: { version: 1 } });
    const refused = defineSchemaQuestion({
      id: "r",
      text: "?",
      schema,
      default: { version: 1 } as never,
    })._unsafeUnwrapErr();
    expect(refused).toMatchObject({ kind: "invalid-question", field: "default" });
  });
});

describe("refusals", () => {
  it("a schema the library cannot write as JSON Schema", () => {
    const refused = defineSchemaQuestion({
      id: "when",
      text: "When?",
      schema: z.object({ at: z.date() }),
    })._unsafeUnwrapErr();
    expect(refused.field).toBe("answer_type");
    expect(refused.message).toMatch(/^schema cannot be written as JSON Schema: /);
  });

  it("a schema without Standard JSON Schema, with the libraries that have it", () => {
    const refused = defineSchemaQuestion({
      id: "x",
      text: "?",
      schema: v.object({ a: v.string() }) as never,
    })._unsafeUnwrapErr();
    expect(refused).toEqual({
      kind: "invalid-question",
      field: "answer_type",
      message:
        "schema does not implement Standard JSON Schema (`~standard.jsonSchema`): use zod 4, ArkType, or Valibot's toStandardJsonSchema(schema)",
    });
  });

  it.each<[string, unknown]>([
    ["a plain object", {}],
    ["undefined", undefined],
    ["null", null],
  ])("%s given as the schema (an untyped caller), without throwing", (_name, schema) => {
    const refused = defineSchemaQuestion({ id: "x", text: "?", schema: schema as never });
    expect(refused._unsafeUnwrapErr()).toEqual({
      kind: "invalid-question",
      field: "answer_type",
      message:
        "schema does not implement Standard JSON Schema (`~standard.jsonSchema`): use zod 4, ArkType, or Valibot's toStandardJsonSchema(schema)",
    });
  });

  // A Standard JSON Schema whose converter gives `written`, or throws what `written` throws.
  const library = (written: () => unknown): StandardJsonSchema =>
    ({
      "~standard": {
        version: 1,
        vendor: "test",
        validate: () => ({ value: undefined }),
        jsonSchema: { input: written, output: written },
      },
    }) as unknown as StandardJsonSchema;

  it("a library that throws while writing the schema, with its reason", () => {
    const refused = defineSchemaQuestion({
      id: "x",
      text: "?",
      schema: library(() => {
        throw new Error("dates have no JSON Schema");
      }),
    });
    expect(refused._unsafeUnwrapErr()).toEqual({
      kind: "invalid-question",
      field: "answer_type",
      message: "schema cannot be written as JSON Schema: dates have no JSON Schema",
    });
  });

  it.each<[string, unknown]>([
    ["a string", "object"],
    ["null", null],
    ["an array", [{ type: "string" }]],
    ["a number", 5],
    ["a value JSON cannot write", { const: 1n }],
  ])("a library that writes %s instead of a JSON object", (_name, written) => {
    const refused = defineSchemaQuestion({ id: "x", text: "?", schema: library(() => written) });
    expect(refused._unsafeUnwrapErr()).toEqual({
      kind: "invalid-question",
      field: "answer_type",
      message: "schema cannot be written as JSON Schema: the library gave no JSON object",
    });
  });

  it("the question's own rules still apply (a dotted id)", () => {
    const refused = defineSchemaQuestion({ id: "a.b", text: "?", schema: LIBRARIES.zod });
    expect(refused._unsafeUnwrapErr().field).toBe("id");
  });
});
