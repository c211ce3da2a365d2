import { describe, expect, it } from "vitest";
import { type AnswerType, decodeAnswerType } from "../src/index.js";

describe("decodeAnswerType", () => {
  // Every spelling JP ever wrote, and the tagged form it reads as.
  it.each<[string, unknown, AnswerType]>([
    ["tagged boolean", { type: "boolean" }, { type: "boolean" }],
    [
      "tagged select",
      { type: "select", options: ["a", "b"] },
      { type: "select", options: ["a", "b"] },
    ],
    [
      "tagged multi_select",
      { type: "multi_select", options: ["a"] },
      { type: "multi_select", options: ["a"] },
    ],
    ["tagged text", { type: "text" }, { type: "text" }],
    ["tagged secret", { type: "secret" }, { type: "secret" }],
    [
      "tagged schema",
      { type: "schema", schema: { type: "integer" } },
      { type: "schema", schema: { type: "integer" } },
    ],
    ["legacy Boolean", "Boolean", { type: "boolean" }],
    ["legacy Text", "Text", { type: "text" }],
    ["legacy Secret", "Secret", { type: "secret" }],
    ["legacy Select", { Select: { options: ["y", "n"] } }, { type: "select", options: ["y", "n"] }],
    [
      "legacy MultiSelect",
      { MultiSelect: { options: ["x"] } },
      { type: "multi_select", options: ["x"] },
    ],
    [
      "legacy Schema",
      { Schema: { schema: { type: "string" } } },
      { type: "schema", schema: { type: "string" } },
    ],
    ["extra fields dropped", { type: "text", options: ["ignored"] }, { type: "text" }],
  ])("%s decodes to the tagged form", (_name, json, expected) => {
    const decoded = decodeAnswerType(json);
    expect(decoded.isOk() && decoded.value).toEqual(expected);
  });

  it.each<[string, unknown, string, (string | number)[]]>([
    [
      "an unknown tag",
      { type: "colour" },
      'answer_type.type: expected one of "boolean", "select", "multi_select", "text", "secret", "schema", got "colour"',
      ["type"],
    ],
    [
      "a missing tag",
      {},
      'answer_type.type: is missing (expected one of "boolean", "select", "multi_select", "text", "secret", "schema")',
      ["type"],
    ],
    [
      "an unknown legacy name",
      "Colour",
      'answer_type: expected an answer type such as {"type":"text"} or "Text", got "Colour"',
      [],
    ],
    [
      "a non-string option",
      { type: "select", options: ["a", 1] },
      "answer_type.options[1]: expected a string, got number",
      ["options", 1],
    ],
    [
      "select without options",
      { type: "select" },
      "answer_type.options: is missing (expected an array)",
      ["options"],
    ],
    [
      "a schema that is not an object",
      { type: "schema", schema: [1] },
      "answer_type.schema: expected an object, got array",
      ["schema"],
    ],
    [
      "null",
      null,
      'answer_type: expected an answer type such as {"type":"text"} or "Text", got null',
      [],
    ],
    [
      "a schema holding a non-JSON value (from code)",
      { type: "schema", schema: { a: Number.NaN } },
      "answer_type.schema.a: expected a JSON value, got NaN",
      ["schema", "a"],
    ],
    [
      "a name that only exists on Object.prototype",
      "toString",
      'answer_type: expected an answer type such as {"type":"text"} or "Text", got "toString"',
      [],
    ],
  ])("refuses %s with a path", (_name, json, message, path) => {
    const decoded = decodeAnswerType(json);
    expect(decoded.isErr() && decoded.error).toEqual({ kind: "decode", message, path });
  });
});
