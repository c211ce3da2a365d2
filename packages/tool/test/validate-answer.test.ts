import { describe, expect, it } from "vitest";
import { type AnswerType, validateAnswer } from "../src/index.js";

// Whether text holds no lone surrogate (what String.prototype.isWellFormed, ES2024, tells).
const isWellFormed = (text: string) => !/\p{Cs}/u.test(text);

// An object that holds itself, which JSON cannot write.
const cyclic = (): unknown => {
  const value: Record<string, unknown> = {};
  value.self = value;
  return value;
};

const colours: AnswerType = { type: "select", options: ["red", "green", "blue"] };
const toppings: AnswerType = { type: "multi_select", options: ["cheese", "ham", "olives"] };
const person: AnswerType = {
  type: "schema",
  schema: {
    type: "object",
    properties: { name: { type: "string" }, age: { type: "integer", minimum: 0 } },
    required: ["name"],
    additionalProperties: false,
  },
};

describe("validateAnswer accepts", () => {
  it.each<[string, AnswerType, unknown]>([
    ["true", { type: "boolean" }, true],
    ["false", { type: "boolean" }, false],
    ["an option", colours, "green"],
    ["an empty multi-selection", toppings, []],
    ["distinct options", toppings, ["olives", "cheese"]],
    ["text", { type: "text" }, "hello\nworld"],
    ["an empty text", { type: "text" }, ""],
    ["a secret", { type: "secret" }, "hunter2"],
    ["a schema match", person, { name: "Ada", age: 36 }],
    ["anything for an empty schema", { type: "schema", schema: {} }, [1, { a: null }]],
  ])("%s", (_name, answerType, value) => {
    const checked = validateAnswer(answerType, value);
    expect(checked.isOk() && checked.value).toEqual(value);
  });
});

describe("validateAnswer refuses", () => {
  it.each<[string, AnswerType, unknown, string]>([
    ["a string for a boolean", { type: "boolean" }, "yes", 'expected true or false, got "yes"'],
    ["null for a boolean", { type: "boolean" }, null, "expected true or false, got null"],
    [
      "an array holding null for a boolean",
      { type: "boolean" },
      [null, { a: null }],
      'expected true or false, got [null,{"a":null}]',
    ],
    [
      "an unknown option",
      colours,
      "purple",
      'expected one of "red", "green", "blue", got "purple"',
    ],
    ["a number for a select", colours, 1, 'expected one of "red", "green", "blue", got 1'],
    [
      "a string for a multi_select",
      toppings,
      "ham",
      'expected an array of distinct choices from "cheese", "ham", "olives", got "ham"',
    ],
    [
      "an unknown choice",
      toppings,
      ["ham", "pineapple"],
      'item 1: expected one of "cheese", "ham", "olives", got "pineapple"',
    ],
    [
      "a non-string choice",
      toppings,
      [true],
      'item 0: expected one of "cheese", "ham", "olives", got true',
    ],
    [
      "a repeated choice",
      toppings,
      ["ham", "olives", "ham"],
      'item 2: "ham" is chosen twice; each choice may appear only once',
    ],
    ["a number for text", { type: "text" }, 42, "expected a string, got 42"],
    ["an object for text", { type: "text" }, { a: 1 }, 'expected a string, got {"a":1}'],
    ["a number for a secret", { type: "secret" }, 1234, "expected a string, got number"],
    ["undefined", { type: "text" }, undefined, "expected a JSON value, got undefined"],
    [
      "a nested non-JSON value",
      { type: "text" },
      { a: [Number.NaN] },
      "a[0]: expected a JSON value, got NaN",
    ],
    ["a Map", { type: "schema", schema: {} }, new Map(), "expected a JSON value, got Map"],
    [
      "a non-JSON array item",
      { type: "schema", schema: {} },
      [1, () => 2],
      "[1]: expected a JSON value, got function",
    ],
    [
      "a schema mismatch",
      person,
      { name: "Ada", age: 36.5 },
      "does not match the JSON Schema: /age: must be integer",
    ],
    [
      "several schema mismatches",
      person,
      { age: -1, nick: "A" },
      "does not match the JSON Schema: (root): must have required property 'name'; " +
        '(root): must NOT have additional properties ("nick"); /age: must be >= 0',
    ],
    [
      "an enum mismatch",
      { type: "schema", schema: { enum: ["a", "b"] } },
      "c",
      'does not match the JSON Schema: (root): must be equal to one of the allowed values (allowed: "a", "b")',
    ],
    [
      "a const mismatch, naming the allowed value",
      { type: "schema", schema: { const: "yes" } },
      "no",
      'does not match the JSON Schema: (root): must be equal to constant (allowed: "yes")',
    ],
    [
      "a cycle (only possible from code)",
      { type: "text" },
      cyclic(),
      "self: expected a JSON value, got a cycle",
    ],
    [
      "a non-JSON value under a key that is not an identifier",
      { type: "text" },
      { "my key": Number.NaN },
      '["my key"]: expected a JSON value, got NaN',
    ],
    [
      "a non-JSON value under a key of an array item",
      { type: "text" },
      [1, { a: Number.NaN }],
      "[1].a: expected a JSON value, got NaN",
    ],
    [
      "an object without a constructor",
      { type: "text" },
      Object.create(Object.create(null)),
      "expected a JSON value, got object",
    ],
    [
      "an instance of an anonymous class",
      { type: "text" },
      new (class {})(),
      "expected a JSON value, got object",
    ],
    [
      "an object whose constructor's name is not a string",
      { type: "text" },
      Object.create({ constructor: { name: 42 } }),
      "expected a JSON value, got object",
    ],
    [
      "a format mismatch (ajv-formats)",
      { type: "schema", schema: { type: "string", format: "email" } },
      "not an address",
      'does not match the JSON Schema: (root): must match format "email"',
    ],
  ])("%s", (_name, answerType, value, message) => {
    const checked = validateAnswer(answerType, value);
    expect(checked.isErr() && checked.error).toEqual({ kind: "invalid-answer", message });
  });

  it("cuts long values in the message", () => {
    const checked = validateAnswer({ type: "boolean" }, "x".repeat(500));
    const message = checked.isErr() ? checked.error.message : "";
    expect(message).toBe(`expected true or false, got "${"x".repeat(58)}…`);
  });

  // The "got …" part holds 60 characters: the opening quote and 58 of the value, then "…".
  // A character beyond U+FFFF is kept whole, so the message stays valid text for a provider's
  // JSON and for a saved conversation.
  it.each([
    ["ends just before an emoji", `${"x".repeat(58)}😀😀`, `"${"x".repeat(58)}…`],
    ["would end inside an emoji", `${"x".repeat(57)}😀😀`, `"${"x".repeat(57)}😀…`],
    ["ends just after an emoji", `${"x".repeat(56)}😀${"x".repeat(9)}`, `"${"x".repeat(56)}😀x…`],
    ["is all emoji", "😀".repeat(100), `"${"😀".repeat(58)}…`],
  ])("a long value's cut %s is well-formed", (_name, value, got) => {
    const checked = validateAnswer({ type: "boolean" }, value);
    const message = checked.isErr() ? checked.error.message : "";
    expect(isWellFormed(message)).toBe(true);
    expect(message).toBe(`expected true or false, got ${got}`);
  });

  it("writes a value of exactly 60 characters whole, emoji counted as one each", () => {
    const ascii = validateAnswer({ type: "boolean" }, "x".repeat(58));
    expect(ascii.isErr() && ascii.error.message).toBe(
      `expected true or false, got "${"x".repeat(58)}"`,
    );
    // 58 emoji and the two quotes: 60 characters in 118 UTF-16 code units.
    const emoji = validateAnswer({ type: "boolean" }, "😀".repeat(58));
    expect(emoji.isErr() && emoji.error.message).toBe(
      `expected true or false, got "${"😀".repeat(58)}"`,
    );
  });

  it("names all of exactly twenty options without counting any more", () => {
    const options = Array.from({ length: 20 }, (_, i) => `o${i}`);
    const checked = validateAnswer({ type: "select", options }, "none");
    expect(checked.isErr() && checked.error.message).toBe(
      `expected one of ${options.map((o) => `"${o}"`).join(", ")}, got "none"`,
    );
  });

  it("spells out the first five schema mismatches and counts the rest", () => {
    const required = (names: string[]): AnswerType => ({
      type: "schema",
      schema: { required: names },
    });
    const missing = (names: string[]) =>
      names.map((name) => `(root): must have required property '${name}'`).join("; ");
    const five = validateAnswer(required(["a", "b", "c", "d", "e"]), {});
    expect(five.isErr() && five.error.message).toBe(
      `does not match the JSON Schema: ${missing(["a", "b", "c", "d", "e"])}`,
    );
    const seven = validateAnswer(required(["a", "b", "c", "d", "e", "f", "g"]), {});
    expect(seven.isErr() && seven.error.message).toBe(
      `does not match the JSON Schema: ${missing(["a", "b", "c", "d", "e"])} (and 2 more)`,
    );
  });

  it("a long option made of emoji is named whole in the list of options", () => {
    const option = "😀".repeat(81);
    const checked = validateAnswer({ type: "select", options: [option] }, "none");
    const message = checked.isErr() ? checked.error.message : "";
    expect(isWellFormed(message)).toBe(true);
    expect(message).toBe(`expected one of "${"😀".repeat(58)}…, got "none"`);
  });

  it("names the first twenty of a long list of options and counts the rest", () => {
    const options = Array.from({ length: 1_000 }, (_, i) => `o${i}`);
    const named = options
      .slice(0, 20)
      .map((o) => `"${o}"`)
      .join(", ");
    const single = validateAnswer({ type: "select", options }, "none");
    expect(single.isErr() && single.error.message).toBe(
      `expected one of ${named} (and 980 more), got "none"`,
    );
    const multi = validateAnswer({ type: "multi_select", options }, ["o1", "none"]);
    expect(multi.isErr() && multi.error.message).toBe(
      `item 1: expected one of ${named} (and 980 more), got "none"`,
    );
  });
});

describe("secret answers", () => {
  it.each<[string, unknown]>([
    ["a number", 987654321],
    ["an object", { password: "hunter2" }],
    ["an array", ["hunter2"]],
    ["a boolean", true],
    ["a non-JSON value", { password: "hunter2", at: new Date(0) }],
  ])("never echo the value: %s", (_name, value) => {
    const checked = validateAnswer({ type: "secret" }, value);
    const message = checked.isErr() ? checked.error.message : "accepted";
    expect(message).toMatch(/^expected a string, got \w+$/);
    expect(message).not.toContain("hunter2");
    expect(message).not.toContain("987654321");
  });
});

describe("schema answers", () => {
  it.each<[string, Record<string, unknown>, string]>([
    ["an unknown type", { type: "whole number" }, "schema is invalid"],
    [
      "an unresolvable $ref",
      { $ref: "https://example.invalid/schema.json" },
      "can't resolve reference",
    ],
    ["a bad pattern", { type: "string", pattern: "(" }, "Invalid regular expression"],
  ])("an uncompilable schema (%s) is invalid-schema, not a throw", (_name, schema, reason) => {
    const answerType = { type: "schema", schema } as AnswerType;
    const checked = validateAnswer(answerType, "anything");
    expect(checked.isErr() && checked.error.kind).toBe("invalid-schema");
    expect(checked.isErr() && checked.error.message).toContain(
      "the JSON Schema does not compile: ",
    );
    expect(checked.isErr() && checked.error.message).toContain(reason);
  });

  it("validates draft-07 schemas (schemars, MCP) as well as 2020-12 ones", () => {
    const draft07: AnswerType = {
      type: "schema",
      schema: {
        $schema: "http://json-schema.org/draft-07/schema#",
        type: "array",
        items: [{ type: "string" }],
      },
    };
    const draft2020: AnswerType = {
      type: "schema",
      schema: {
        $schema: "https://json-schema.org/draft/2020-12/schema",
        type: "array",
        prefixItems: [{ type: "string" }],
      },
    };
    expect(validateAnswer(draft07, ["a", 1]).isOk()).toBe(true);
    expect(validateAnswer(draft07, [1]).isErr()).toBe(true);
    expect(validateAnswer(draft2020, ["a", 1]).isOk()).toBe(true);
    expect(validateAnswer(draft2020, [1]).isErr()).toBe(true);
  });

  it("gives the same verdicts for structurally equal schemas written in another key order", () => {
    const reordered: AnswerType = {
      type: "schema",
      schema: {
        additionalProperties: false,
        required: ["name"],
        properties: { age: { minimum: 0, type: "integer" }, name: { type: "string" } },
        type: "object",
      },
    };
    for (const value of [{ name: "Ada" }, { name: "Ada", age: 1.5 }, {}, "x"]) {
      expect(validateAnswer(reordered, value)).toEqual(validateAnswer(person, value));
    }
  });

  it("keeps schemas with the same $id apart", () => {
    const asString: AnswerType = {
      type: "schema",
      schema: { $id: "https://example.com/answer.json", type: "string" },
    };
    const asNumber: AnswerType = {
      type: "schema",
      schema: { $id: "https://example.com/answer.json", type: "number" },
    };
    expect(validateAnswer(asString, "a").isOk()).toBe(true);
    expect(validateAnswer(asNumber, 1).isOk()).toBe(true);
    expect(validateAnswer(asNumber, "a").isErr()).toBe(true);
  });

  it("follows local and recursive $refs", () => {
    const tree: AnswerType = {
      type: "schema",
      schema: {
        $defs: { node: { type: "array", items: { $ref: "#/$defs/node" } } },
        $ref: "#/$defs/node",
      },
    };
    expect(validateAnswer(tree, [[], [[]]]).isOk()).toBe(true);
    const refused = validateAnswer(tree, [[1]]);
    expect(refused.isErr() && refused.error.message).toBe(
      "does not match the JSON Schema: /0/0: must be array",
    );
  });

  it.each([
    ["2020-12", { $async: true, type: "integer" }],
    [
      "draft-07",
      { $schema: "http://json-schema.org/draft-07/schema#", $async: true, type: "integer" },
    ],
  ])("refuses an $async (%s) schema instead of passing every answer", async (_name, schema) => {
    const rejections: unknown[] = [];
    const onRejection = (reason: unknown) => rejections.push(reason);
    process.on("unhandledRejection", onRejection);
    try {
      const checked = validateAnswer({ type: "schema", schema } as AnswerType, "not a number");
      expect(checked.isErr() && checked.error.kind).toBe("invalid-schema");
      expect(checked.isErr() && checked.error.message).toContain('"$async"');
      // An async validator's promise would reject after the check returned.
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(rejections).toEqual([]);
    } finally {
      process.off("unhandledRejection", onRejection);
    }
  });

  it.each<[string, AnswerType, unknown]>([
    ["a select", { type: "select", options: [] }, "a"],
    ["a multi_select, even for an empty choice", { type: "multi_select", options: [] }, []],
  ])("answers with invalid-schema for %s without options", (_name, answerType, value) => {
    const checked = validateAnswer(answerType, value);
    expect(checked.isErr() && checked.error).toEqual({
      kind: "invalid-schema",
      message: "the question offers no options to choose from",
    });
  });

  it("answers with invalid-schema for an answer type it does not know (an untyped caller)", () => {
    const checked = validateAnswer({ type: "colour" } as unknown as AnswerType, "red");
    expect(checked.isErr() && checked.error).toEqual({
      kind: "invalid-schema",
      message: 'unknown answer type {"type":"colour"}',
    });
  });

  it("answers with invalid-schema for a schema too deeply nested to read, not a throw", () => {
    let schema: Record<string, unknown> = {};
    for (let i = 0; i < 100_000; i++) schema = { not: schema };
    const checked = validateAnswer({ type: "schema", schema } as AnswerType, "x");
    expect(checked.isErr() && checked.error).toEqual({
      kind: "invalid-schema",
      message: "the JSON Schema does not compile: the schema is too deeply nested",
    });
  });
});

describe("validateAnswer and deeply nested answers", () => {
  // `levels` arrays within one another around "x": `nest(2)` is [["x"]].
  const nest = (levels: number): unknown => {
    let value: unknown = "x";
    for (let i = 0; i < levels; i++) value = [value];
    return value;
  };
  const deep =
    "nested more than 100 levels deep (arrays and objects within one another); an answer may be nested at most 100 levels deep";
  const anything: AnswerType = { type: "schema", schema: {} };
  // The error, or "accepted": never the deep value itself, which a failure could not print.
  const refusal = (type: AnswerType, value: unknown) => {
    const checked = validateAnswer(type, value);
    return checked.isOk() ? "accepted" : checked.error;
  };

  it("accepts an answer nested exactly 100 levels deep, which can be written as JSON", () => {
    const checked = validateAnswer(anything, nest(100));
    expect(checked.isOk()).toBe(true);
    expect(JSON.parse(JSON.stringify(checked._unsafeUnwrap()))).toEqual(nest(100));
  });

  it("accepts null as the innermost value at exactly 100 levels", () => {
    let value: unknown = null;
    for (let i = 0; i < 100; i++) value = [value];
    expect(refusal(anything, value)).toBe("accepted");
  });

  it("refuses one nested 101 levels deep, saying how deep an answer may be", () => {
    expect(refusal(anything, nest(101))).toEqual({
      kind: "invalid-answer",
      message: deep,
    });
  });

  it.each<[string, AnswerType]>([
    ["schema", anything],
    ["text", { type: "text" }],
    ["select", colours],
    ["multi_select", toppings],
    ["boolean", { type: "boolean" }],
  ])("refuses a %s answer nested 200,000 levels deep with the same reason", (_name, type) => {
    expect(refusal(type, nest(200_000))).toEqual({
      kind: "invalid-answer",
      message: deep,
    });
  });

  it("counts objects as levels too", () => {
    let value: unknown = 1;
    for (let i = 0; i < 101; i++) value = { a: value };
    expect(refusal(anything, value)).toEqual({ kind: "invalid-answer", message: deep });
  });

  it("names a deep secret by its type only", () => {
    expect(refusal({ type: "secret" }, nest(200_000))).toEqual({
      kind: "invalid-answer",
      message: "expected a string, got array",
    });
  });
});
