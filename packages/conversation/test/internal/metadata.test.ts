import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeMetadata, metadataSchema } from "../../src/conversation-files.js";

const value = fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.array(fc.string()));
const metadata = fc.record(
  {
    title: value,
    last_activated_at: value,
    pinned_at: value,
    archived_at: fc.string(),
    expires_at: fc.string(),
    labels: fc.oneof(fc.array(fc.string()), fc.array(value)),
    __proto__: fc.string(),
    custom: fc.jsonValue(),
  },
  { requiredKeys: [] },
);

describe("decodeMetadata", () => {
  it("reads metadata.json exactly as the schema does, key order included", () => {
    fc.assert(
      fc.property(metadata, fc.boolean(), (generated, stamped) => {
        // Through JSON, as the file is read: `__proto__` becomes an own key.
        const json: unknown = JSON.parse(
          JSON.stringify(stamped ? { ...generated, last_activated_at: "2026-01-01" } : generated),
        );
        const fast = decodeMetadata(json);
        const slow = metadataSchema().safeParse(json);
        expect(fast.isOk()).toBe(slow.success);
        if (fast.isOk() && slow.success) {
          expect(fast.value).toStrictEqual(slow.data);
          expect(JSON.stringify(fast.value)).toBe(JSON.stringify(slow.data));
        }
      }),
      { numRuns: 1000 },
    );
  });
});
