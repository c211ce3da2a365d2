import { describe, expect, it } from "vitest";
import { describeJson, typeName } from "../../src/internal/describe.js";

describe("describeJson", () => {
  it.each<[unknown, string]>([
    ["red", '"red"'],
    [42, "42"],
    [null, "null"],
    [undefined, "nothing"],
    [[1, "a"], '[1,"a"]'],
    [{ a: 1 }, '{"a":1}'],
    ["x".repeat(100), `"${"x".repeat(58)}…`],
    [Number.NaN, "NaN"],
    [new Map(), "Map"],
    [() => 1, "function"],
    [10n, "bigint"],
  ])("%o → %s", (value, text) => {
    expect(describeJson(value)).toBe(text);
    expect(describeJson(value).length).toBeLessThanOrEqual(60);
  });

  it("falls back to the type name when JSON cannot render the value", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(describeJson(cyclic)).toBe("object");
    expect(describeJson({ big: 1n })).toBe("object");
  });
});

describe("typeName", () => {
  it.each<[unknown, string]>([
    ["s", "string"],
    [1, "number"],
    [true, "boolean"],
    [null, "null"],
    [[], "array"],
    [{}, "object"],
    [Object.create(null), "object"],
    [new Date(0), "Date"],
    [undefined, "undefined"],
  ])("%o → %s", (value, name) => {
    expect(typeName(value)).toBe(name);
  });
});

describe("describeJson of deeply nested values", () => {
  const nest = (levels: number): unknown => {
    let value: unknown = "x";
    for (let i = 0; i < levels; i++) value = [value];
    return value;
  };

  it("writes a value nested 100 levels deep", () => {
    expect(describeJson(nest(100))).toBe(`${"[".repeat(59)}…`);
  });

  it("names one nested deeper by its type, without writing it", () => {
    expect(describeJson(nest(101))).toBe("array");
    expect(describeJson(nest(200_000))).toBe("array");
  });

  it("counts objects as levels too", () => {
    const nestObjects = (levels: number): unknown => {
      let value: unknown = "x";
      for (let i = 0; i < levels; i++) value = { a: value };
      return value;
    };
    expect(describeJson(nestObjects(100))).toBe(`${'{"a":'.repeat(11)}{"a"…`);
    expect(describeJson(nestObjects(101))).toBe("object");
    expect(describeJson([nestObjects(100)])).toBe("array");
  });
});
