import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { jsonText } from "../../src/internal/json-text.js";

const nested = (depth: number, leaf: unknown = 1): unknown => {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = i % 2 === 0 ? [value] : { k: value };
  return value;
};

describe("jsonText", () => {
  it("writes what JSON.stringify writes, compact and indented, up to 32 levels", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), fc.constantFrom(0, 2, 4), (value, indent) => {
        expect(jsonText(value, indent)).toBe(JSON.stringify(value, null, indent));
      }),
      { numRuns: 400 },
    );
  });

  it.each([
    { name: "empty containers", value: { a: [], b: {}, c: [{}] } },
    { name: "-0 and exponents", value: [-0, 1e21, 1.5e-7] },
    { name: "escapes", value: { 'quote"\n': "line\u2028\u0000" } },
    { name: "a __proto__ key", value: JSON.parse('{"__proto__":[1]}') },
    { name: "32 levels", value: nested(32) },
  ])("$name: same text as JSON.stringify", ({ value }) => {
    expect(jsonText(value, 2)).toBe(JSON.stringify(value, null, 2));
    expect(jsonText(value)).toBe(JSON.stringify(value));
  });

  it("past 32 levels writes the rest on one line, still parsing back to the same value", () => {
    const value = nested(40, "leaf");
    const text = jsonText(value, 2);
    expect(JSON.parse(text)).toStrictEqual(value);
    const lines = text.split("\n");
    // 32 opening lines, one line holding the deeper levels, 32 closing lines.
    expect(lines).toHaveLength(65);
    expect(lines[32]).toBe(`${" ".repeat(64)}${JSON.stringify(nested(8, "leaf"))}`);
  });

  it("a value 100,000 levels deep is text of linear size, not a stack overflow", () => {
    const value = nested(100_000);
    const text = jsonText(value, 2);
    expect(text.length).toBeLessThan(1_000_000);
    expect(jsonText(value).length).toBe(100_000 * 2 + 50_000 * 4 + 1);
  });
});
