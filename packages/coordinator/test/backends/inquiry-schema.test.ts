import type { JsonObject, JsonValue } from "@jp/conversation";
import type { AnswerType } from "@jp/tool";
import { Ajv } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { inquiryPromptText, inquirySchemaFor } from "../../src/backends/inquiry-schema.js";

const wrapped = (answer: JsonValue): JsonObject => ({
  type: "object",
  properties: { answer },
  required: ["answer"],
  additionalProperties: false,
});

const pointSchema: JsonObject = {
  type: "object",
  properties: { x: { type: "number" } },
  required: ["x"],
};

describe("inquirySchemaFor", () => {
  // [answer type, expected schema, an answer it accepts, an answer it refuses]
  it.each<[string, AnswerType, JsonObject, JsonValue, JsonValue]>([
    ["boolean", { type: "boolean" }, wrapped({ type: "boolean" }), true, "yes"],
    [
      "select",
      { type: "select", options: ["red", "green"] },
      wrapped({ type: "string", enum: ["red", "green"] }),
      "red",
      "blue",
    ],
    ["text", { type: "text" }, wrapped({ type: "string" }), "anything", 3],
    [
      "multi_select",
      { type: "multi_select", options: ["a", "b", "c"] },
      wrapped({
        type: "array",
        items: { type: "string", enum: ["a", "b", "c"] },
        uniqueItems: true,
      }),
      ["a", "c"],
      ["a", "a"],
    ],
    ["schema", { type: "schema", schema: pointSchema }, wrapped(pointSchema), { x: 1 }, { y: 1 }],
  ])("%s", (_name, answerType, expected, good, bad) => {
    const schema = inquirySchemaFor(answerType)._unsafeUnwrap();
    expect(schema).toEqual(expected);
    const validate = new Ajv2020({ strict: true }).compile(schema);
    expect(validate({ answer: good })).toBe(true);
    expect(validate({ answer: bad })).toBe(false);
    expect(validate({})).toBe(false);
    expect(validate({ answer: good, extra: 1 })).toBe(false);
  });

  it.each<[string, AnswerType, RegExp]>([
    ["a secret", { type: "secret" }, /secret question is never sent to an LLM/],
    ["a select without options", { type: "select", options: [] }, /no options/],
    ["a multi_select without options", { type: "multi_select", options: [] }, /no options/],
    ["an unknown type", { type: "color" } as unknown as AnswerType, /unknown answer type/],
  ])("refuses %s as an `other` error", (_name, answerType, message) => {
    const error = inquirySchemaFor(answerType)._unsafeUnwrapErr();
    expect(error.kind).toBe("other");
    expect(error.message).toMatch(message);
  });

  it("rebases local refs of an embedded schema so they still resolve", () => {
    const tree: JsonObject = {
      $defs: {
        node: { type: "object", properties: { children: { type: "array", items: { $ref: "#" } } } },
      },
      $ref: "#/$defs/node",
      properties: { default: { $ref: "#/$defs/node" } },
      default: { $ref: "#/data/not/a/ref" },
    };
    const schema = inquirySchemaFor({ type: "schema", schema: tree })._unsafeUnwrap();
    expect(schema.properties).toEqual({
      answer: {
        $defs: {
          node: {
            type: "object",
            properties: { children: { type: "array", items: { $ref: "#/properties/answer" } } },
          },
        },
        $ref: "#/properties/answer/$defs/node",
        properties: { default: { $ref: "#/properties/answer/$defs/node" } },
        default: { $ref: "#/data/not/a/ref" },
      },
    });
    // The schema under test leaves `type` out beside `properties` on purpose: no strict-mode noise.
    const validate = new Ajv2020({ strictTypes: false }).compile(schema);
    expect(validate({ answer: { children: [{ children: [] }] } })).toBe(true);
    expect(validate({ answer: { children: [{ children: 3 }] } })).toBe(false);
  });

  it("moves the embedded schema's $schema to the root (here draft-07)", () => {
    const legacy: JsonObject = {
      $schema: "http://json-schema.org/draft-07/schema#",
      definitions: { name: { type: "string", minLength: 1 } },
      type: "array",
      items: { $ref: "#/definitions/name" },
    };
    const schema = inquirySchemaFor({ type: "schema", schema: legacy })._unsafeUnwrap();
    expect(Object.keys(schema)[0]).toBe("$schema");
    expect(schema.$schema).toBe(legacy.$schema);
    expect(schema.properties).toEqual({
      answer: {
        definitions: { name: { type: "string", minLength: 1 } },
        type: "array",
        items: { $ref: "#/properties/answer/definitions/name" },
      },
    });
    const validate = new Ajv().compile(schema);
    expect(validate({ answer: ["ok"] })).toBe(true);
    expect(validate({ answer: [""] })).toBe(false);
  });

  it("leaves a schema with its own $id as it is (its refs resolve against it)", () => {
    const resource: JsonObject = {
      $id: "https://example.com/answer",
      $defs: { n: { type: "integer" } },
      // Not a `$ref` beside the `$id`: Ajv 8 overflows its stack on that when it is embedded.
      allOf: [{ $ref: "#/$defs/n" }],
    };
    const schema = inquirySchemaFor({ type: "schema", schema: resource })._unsafeUnwrap();
    expect(schema.properties).toEqual({ answer: resource });
    const validate = new Ajv2020().compile(schema);
    expect(validate({ answer: 2 })).toBe(true);
    expect(validate({ answer: 2.5 })).toBe(false);
  });
});

describe("inquiryPromptText", () => {
  it("is JP's text", () => {
    expect(inquiryPromptText("fs_modify_file", { text: "Do you want to apply the patch?" })).toBe(
      "The tool `fs_modify_file` requires additional input.\n\n" +
        "Do you want to apply the patch?\n\n" +
        "Provide your answer based on the conversation context.",
    );
  });

  it("adds the question's context above the question", () => {
    const question = { text: "Apply it?", context: "--- a.txt\n+++ a.txt\n-old\n+new" };
    expect(inquiryPromptText("fs_modify_file", question)).toBe(
      "The tool `fs_modify_file` requires additional input.\n\n" +
        "--- a.txt\n+++ a.txt\n-old\n+new\n\n" +
        "Apply it?\n\n" +
        "Provide your answer based on the conversation context.",
    );
  });

  it("skips a blank context", () => {
    expect(inquiryPromptText("t", { text: "Q?", context: "  " })).toBe(
      inquiryPromptText("t", { text: "Q?" }),
    );
  });
});
