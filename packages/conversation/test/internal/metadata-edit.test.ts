import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { withMetadataText } from "../../src/internal/metadata-edit.js";

const NONE = new Set<string>();

describe("withMetadataText", () => {
  it("leaves an entry without metadata as it is when there is none to write", () => {
    const text = `{"type":"x","n":12345678901234567891}`;
    expect(withMetadataText(text, undefined, new Set(["a"]))).toBe(text);
  });

  it("gives up on text it does not expect", () => {
    const meta = { a: "b" };
    // Two metadata members (JSON.parse keeps the last): not guessed at.
    expect(withMetadataText(`{"metadata":{},"type":"x","metadata":{}}`, meta, NONE)).toBe(
      undefined,
    );
    expect(withMetadataText(`{"type":"x"} `, meta, NONE)).toBe(undefined);
    expect(withMetadataText(`{"type":"x",}`, meta, NONE)).toBe(undefined);
    expect(withMetadataText(`{"type":"x"`, meta, NONE)).toBe(undefined);
    expect(withMetadataText(`{"type":"x\\"}`, meta, NONE)).toBe(undefined);
    expect(withMetadataText(`[{"type":"x"}]`, meta, NONE)).toBe(undefined);
    expect(withMetadataText(`{}`, meta, NONE)).toBe(undefined);
    expect(withMetadataText(`{"metadata":{"a":1}}`, undefined, NONE)).toBe(undefined);
  });

  it("writes a key the old metadata holds twice from the new value", () => {
    const text = `{"type":"x","metadata":{"a":1,"a":-0.0}}`;
    expect(withMetadataText(text, { a: 2 }, NONE)).toBe(`{"type":"x","metadata":{"a":2}}`);
  });

  it("always gives JSON reading as the entry with the new metadata", () => {
    const json = fc.jsonValue({ maxDepth: 2 });
    const entry = fc.dictionary(fc.string(), json, { minKeys: 1, maxKeys: 5 });
    const metadata = fc.option(fc.dictionary(fc.string(), json, { maxKeys: 4 }), {
      nil: undefined,
    });
    fc.assert(
      fc.property(entry, metadata, fc.boolean(), (value, meta, laidOut) => {
        const text = laidOut
          ? JSON.stringify(value, null, 2).replaceAll("\n", "\n  ")
          : JSON.stringify(value);
        const result = withMetadataText(text, meta, new Set(Object.keys(meta ?? {})));
        // Only an entry of nothing but metadata cannot lose it.
        if (result === undefined) {
          expect([Object.keys(value), meta]).toStrictEqual([["metadata"], undefined]);
          return;
        }
        const read = JSON.parse(result) as Record<string, unknown>;
        const { metadata: _, ...rest } = value;
        const { metadata: __, ...restRead } = read;
        expect(JSON.stringify(restRead)).toBe(JSON.stringify(rest));
        expect(JSON.stringify(read.metadata)).toBe(
          meta === undefined ? undefined : JSON.stringify(meta),
        );
      }),
    );
  });
});
