import { describe, expect, it } from "vitest";
import { compileSchema } from "../../src/internal/schema-cache.js";
import { stableStringify } from "../../src/internal/stable-json.js";

describe("compileSchema", () => {
  it("compiles structurally equal schemas once", () => {
    const first = compileSchema({ type: "object", properties: { a: { type: "string" } } });
    const second = compileSchema({ properties: { a: { type: "string" } }, type: "object" });
    expect(first.ok).toBe(true);
    expect(second).toBe(first);
  });

  it("caches a compile failure too", () => {
    const first = compileSchema({ type: 12 });
    expect(first.ok).toBe(false);
    expect(compileSchema({ type: 12 })).toBe(first);
  });

  it("stays bounded, dropping the least recently used schema", () => {
    const marker = { const: "lru-marker" };
    const original = compileSchema(marker);
    for (let i = 0; i < 300; i++) compileSchema({ const: `filler-${i}` });
    expect(compileSchema(marker)).not.toBe(original);
  });

  it("does not depend on later mutation of the schema object", () => {
    const schema: Record<string, string> = { type: "string", title: "mutation-check" };
    const compiled = compileSchema(schema);
    schema.type = "number";
    expect(compiled.ok && compiled.validate("text")).toBe(true);
  });
});

describe("stableStringify", () => {
  it.each<[Parameters<typeof stableStringify>[0], string]>([
    [{ b: 1, a: [true, null, { d: "x", c: 2 }] }, '{"a":[true,null,{"c":2,"d":"x"}],"b":1}'],
    ["s", '"s"'],
    [[], "[]"],
    [JSON.parse('{"__proto__": 1}'), '{"__proto__":1}'],
  ])("%j → %s", (value, text) => {
    expect(stableStringify(value)).toBe(text);
  });
});
