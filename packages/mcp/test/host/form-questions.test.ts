import type { JsonValue } from "@jp/conversation";
import { validateAnswer } from "@jp/tool";
import { describe, expect, it } from "vitest";
import {
  elicitationContent,
  type FormField,
  MAX_FORM_FIELDS,
  questionsForElicitation,
} from "../../src/index.js";
import { SPEC_PROPERTIES, STRUCTURED_REQUEST } from "../fixtures/spec-examples.js";

const server = "forms";

function one(property: unknown, required = true): FormField {
  const schema = {
    type: "object",
    properties: { field: property },
    ...(required ? { required: ["field"] } : {}),
  };
  const fields = questionsForElicitation(schema, { server });
  if (fields.isErr()) throw new Error(fields.error.message);
  return fields.value[0] as FormField;
}

describe("questionsForElicitation: each MCP property kind", () => {
  it.each([
    ["plain string", { type: "string" }, true, { type: "text" }, undefined, undefined],
    ["optional string", { type: "string" }, false, { type: "text" }, undefined, undefined],
    [
      "string with default",
      { type: "string", default: "x" },
      true,
      { type: "text" },
      "x",
      undefined,
    ],
    [
      "spec string (length, pattern, format)",
      SPEC_PROPERTIES.string,
      true,
      {
        type: "schema",
        schema: {
          type: "string",
          minLength: 3,
          maxLength: 50,
          pattern: "^[A-Za-z]+$",
          format: "email",
        },
      },
      // The spec's own default breaks its pattern: dropped, never pre-filled.
      undefined,
      undefined,
    ],
    [
      "string with a format only",
      { type: "string", format: "date" },
      true,
      { type: "schema", schema: { type: "string", format: "date" } },
      undefined,
      undefined,
    ],
    [
      "optional constrained string takes null",
      { type: "string", maxLength: 3 },
      false,
      { type: "schema", schema: { anyOf: [{ type: "string", maxLength: 3 }, { type: "null" }] } },
      undefined,
      undefined,
    ],
    [
      "spec number",
      SPEC_PROPERTIES.number,
      true,
      { type: "schema", schema: { type: "number", minimum: 0, maximum: 100 } },
      50,
      undefined,
    ],
    [
      "integer without bounds",
      { type: "integer" },
      true,
      { type: "schema", schema: { type: "integer" } },
      undefined,
      undefined,
    ],
    [
      "number default out of bounds is dropped",
      { type: "number", maximum: 1, default: 5 },
      true,
      { type: "schema", schema: { type: "number", maximum: 1 } },
      undefined,
      undefined,
    ],
    ["spec boolean", SPEC_PROPERTIES.boolean, true, { type: "boolean" }, false, undefined],
    [
      "spec enum",
      SPEC_PROPERTIES.enum,
      true,
      { type: "select", options: ["Red", "Green", "Blue"] },
      "Red",
      undefined,
    ],
    [
      "spec titled enum shows titles",
      SPEC_PROPERTIES.titledEnum,
      true,
      { type: "select", options: ["Red", "Green", "Blue"] },
      "Red",
      { Red: "#FF0000", Green: "#00FF00", Blue: "#0000FF" },
    ],
    [
      "legacy enumNames show as titles",
      { type: "string", enum: ["a", "b"], enumNames: ["Alpha", "Beta"] },
      true,
      { type: "select", options: ["Alpha", "Beta"] },
      undefined,
      { Alpha: "a", Beta: "b" },
    ],
    [
      "repeated titles fall back to values",
      {
        type: "string",
        oneOf: [
          { const: "a", title: "Same" },
          { const: "b", title: "Same" },
        ],
      },
      true,
      { type: "select", options: ["a", "b"] },
      undefined,
      undefined,
    ],
    [
      "multi-select without bounds",
      { type: "array", items: { type: "string", enum: ["x", "y"] }, default: ["y"] },
      true,
      { type: "multi_select", options: ["x", "y"] },
      ["y"],
      undefined,
    ],
    [
      "spec multi-select with bounds",
      SPEC_PROPERTIES.multiSelect,
      true,
      {
        type: "schema",
        schema: {
          type: "array",
          items: { type: "string", enum: ["Red", "Green", "Blue"] },
          uniqueItems: true,
          minItems: 1,
          maxItems: 2,
        },
      },
      ["Red", "Green"],
      undefined,
    ],
    [
      "spec titled multi-select",
      SPEC_PROPERTIES.titledMultiSelect,
      true,
      {
        type: "schema",
        schema: {
          type: "array",
          items: { type: "string", enum: ["Red", "Green", "Blue"] },
          uniqueItems: true,
          minItems: 1,
          maxItems: 2,
        },
      },
      ["Red", "Green"],
      { Red: "#FF0000", Green: "#00FF00", Blue: "#0000FF" },
    ],
  ])("%s", (_name, property, required, answerType, defaultAnswer, values) => {
    const field = one(property, required as boolean);
    expect(field.question.answer_type).toEqual(answerType);
    expect(field.question.default).toEqual(defaultAnswer);
    expect(field.values).toEqual(values);
    expect(field.required).toBe(required);
    if (defaultAnswer !== undefined) {
      expect(validateAnswer(field.question.answer_type, defaultAnswer).isOk()).toBe(true);
    }
  });

  it("an optional choice offers a way to leave it out, which no option of the server's takes", () => {
    const plain = one({ type: "string", enum: ["low", "high"] }, false);
    expect(plain.question.answer_type).toEqual({
      type: "select",
      options: ["low", "high", "(skip)"],
    });
    expect(plain.skip).toBe("(skip)");
    expect(plain.question.context).toContain('Optional: choose "(skip)" to skip it.');
    const taken = one({ type: "string", enum: ["(skip)", "(skip 2)", "go"] }, false);
    expect(taken.skip).toBe("(skip 3)");
    // A required choice has no such option: the person chooses one of the server's.
    expect(one({ type: "string", enum: ["low", "high"] }).skip).toBeUndefined();
  });

  it("an optional yes/no stays a yes/no prompt", () => {
    expect(one({ type: "boolean", default: true }, false).question).toMatchObject({
      answer_type: { type: "boolean" },
      default: true,
    });
  });

  it("names the server in every question, then the description, then how to skip", () => {
    const field = one(
      { type: "string", title: "Nick", description: "What friends call you" },
      false,
    );
    expect(field.question.text).toBe("Nick");
    expect(field.question.context).toBe(
      'MCP server "forms"\nWhat friends call you\nOptional: leave it empty to skip it.',
    );
    expect(one({ type: "boolean" }).question.text).toBe("field");
  });

  it("keeps the server's field order, the spec's structured example included", () => {
    const fields = questionsForElicitation(STRUCTURED_REQUEST.requestedSchema, { server });
    expect(
      fields._unsafeUnwrap().map((f) => [f.name, f.required, f.question.answer_type.type]),
    ).toEqual([
      ["name", true, "text"],
      ["email", true, "schema"],
      ["age", false, "schema"],
    ]);
  });

  it("an empty form is no questions", () => {
    expect(
      questionsForElicitation({ type: "object", properties: {} }, { server })._unsafeUnwrap(),
    ).toEqual([]);
    expect(questionsForElicitation({ type: "object" }, { server })._unsafeUnwrap()).toEqual([]);
  });
});

describe("questionsForElicitation: schemas outside the subset", () => {
  const many = Object.fromEntries(
    Array.from({ length: MAX_FORM_FIELDS + 1 }, (_, i) => [`f${i}`, { type: "string" }]),
  );
  it.each([
    ["not an object", "hello", "requestedSchema: expected an object schema"],
    ["not type object", { type: "array" }, 'requestedSchema.type: expected "object"'],
    [
      "nested object",
      { type: "object", properties: { a: { type: "object" } } },
      'requestedSchema.properties["a"].type: expected "string"',
    ],
    [
      "a $ref",
      { type: "object", properties: { a: { $ref: "#/x" } } },
      'requestedSchema.properties["a"].type',
    ],
    [
      "array of objects",
      { type: "object", properties: { a: { type: "array", items: { type: "object" } } } },
      'requestedSchema.properties["a"].items.type: expected "string"',
    ],
    [
      "unknown keyword",
      { type: "object", properties: { a: { type: "number", exclusiveMinimum: 0 } } },
      'requestedSchema.properties["a"].exclusiveMinimum: is outside',
    ],
    [
      "unknown top-level keyword",
      { type: "object", properties: {}, allOf: [] },
      "requestedSchema.allOf: is outside",
    ],
    [
      "bad format",
      { type: "object", properties: { a: { type: "string", format: "ipv4" } } },
      "expected one of email, uri, date, date-time",
    ],
    [
      "bad pattern",
      { type: "object", properties: { a: { type: "string", pattern: "(" } } },
      "expected a valid regular expression",
    ],
    [
      "negative length",
      { type: "object", properties: { a: { type: "string", minLength: -1 } } },
      "expected a whole number ≥ 0",
    ],
    [
      "infinite bound",
      { type: "object", properties: { a: { type: "number", maximum: "9" } } },
      "expected a number",
    ],
    [
      "empty enum",
      { type: "object", properties: { a: { type: "string", enum: [] } } },
      "offers no choices",
    ],
    [
      "repeated enum",
      { type: "object", properties: { a: { type: "string", enum: ["x", "x"] } } },
      "repeats a choice",
    ],
    [
      "enumNames of another length",
      { type: "object", properties: { a: { type: "string", enum: ["x"], enumNames: [] } } },
      "enumNames: expected one string per enum value",
    ],
    [
      "oneOf without const",
      { type: "object", properties: { a: { type: "string", oneOf: [{ title: "x" }] } } },
      "oneOf[0]: expected {const: string",
    ],
    [
      "required names no property",
      { type: "object", properties: {}, required: ["ghost"] },
      'names "ghost"',
    ],
    [
      "too many fields",
      { type: "object", properties: many },
      `at most ${MAX_FORM_FIELDS} are asked`,
    ],
    [
      "non-string title",
      { type: "object", properties: { a: { type: "string", title: 3 } } },
      "title: expected a string",
    ],
  ])("%s", (_name, schema, message) => {
    const result = questionsForElicitation(schema, { server });
    expect(result.isErr()).toBe(true);
    expect(result._unsafeUnwrapErr().kind).toBe("unsupported-schema");
    expect(result._unsafeUnwrapErr().message).toContain(message);
  });
});

describe("elicitationContent", () => {
  const schema = {
    type: "object",
    properties: {
      name: { type: "string" },
      nick: { type: "string" },
      age: { type: "integer" },
      color: SPEC_PROPERTIES.titledEnum,
      colors: SPEC_PROPERTIES.titledMultiSelect,
      ok: { type: "boolean" },
      level: { type: "string", enum: ["low", "high"] },
      agree: { type: "boolean" },
    },
    required: ["name", "color", "ok"],
  };
  // Parsed, as it arrives from a server: a literal `__proto__` key would set the prototype.
  const parsed = JSON.parse(
    JSON.stringify(schema).replace('"ok":', '"__proto__":{"type":"string"},"ok":'),
  );
  const fields = questionsForElicitation(parsed, { server })._unsafeUnwrap();

  it.each([
    [
      "maps titles back to values, leaves empty optional fields out",
      { name: "Ada", nick: "", age: null, color: "Green", colors: ["Red", "Blue"], ok: false },
      { name: "Ada", color: "#00FF00", colors: ["#FF0000", "#0000FF"], ok: false },
    ],
    [
      "keeps an empty required text",
      { name: "", color: "Red", ok: true },
      { name: "", color: "#FF0000", ok: true },
    ],
    ["unanswered fields are absent", { name: "x" }, { name: "x" }],
    [
      "an optional choice skipped, and an optional yes/no answered null, are left out",
      { name: "x", color: "Red", ok: true, level: "(skip)", agree: null },
      { name: "x", color: "#FF0000", ok: true },
    ],
    [
      "an optional choice chosen, and an optional yes/no answered, are sent",
      { name: "x", color: "Red", ok: true, level: "low", agree: false },
      { name: "x", color: "#FF0000", ok: true, level: "low", agree: false },
    ],
  ])("%s", (_name, answers, content) => {
    const map = new Map(Object.entries(answers as Record<string, JsonValue>));
    expect(elicitationContent(fields, map)).toEqual(content);
  });

  it('keeps a field named "__proto__" as a field', () => {
    const content = elicitationContent(fields, new Map([["__proto__", "x"]]));
    expect(Object.keys(content)).toEqual(["__proto__"]);
    expect(Object.getPrototypeOf(content)).toBe(Object.prototype);
  });
});
