import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { AtRestReader, toDisk } from "../../src/internal/at-rest.js";

// Strings at rest are read without a regex pass and decoded once; what they read as is held to
// the plain rule: base64 (the regex) of UTF-8 (a fatal decoder) is decoded, anything else kept.
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

function byTheRule(text: string): string {
  if (!BASE64.test(text)) return text;
  try {
    return utf8.decode(Buffer.from(text, "base64"));
  } catch {
    return text;
  }
}

const b64 = (bytes: Uint8Array | string) =>
  (typeof bytes === "string" ? Buffer.from(bytes, "utf8") : Buffer.from(bytes)).toString("base64");

// Base64 and near misses: text, bytes (often not UTF-8), long and short, with a character
// changed, inserted or dropped, from the url-safe alphabet, padding in the middle, whitespace.
const text = fc.string({ unit: "grapheme", maxLength: 120 });
const encoded = fc.oneof(
  text.map(b64),
  fc.uint8Array({ maxLength: 200 }).map(b64),
  fc.string({ unit: "grapheme", minLength: 200, maxLength: 400 }).map(b64),
);
const mutated = fc
  .tuple(encoded, fc.nat(), fc.constantFrom("-", "_", "=", " ", "\n", "!", "é", "A", "/", ""))
  .map(([s, at, c]) => {
    const i = s.length === 0 ? 0 : at % s.length;
    return at % 2 === 0 ? s.slice(0, i) + c + s.slice(i + 1) : s.slice(0, i) + c + s.slice(i);
  });
const anyString = fc.oneof(encoded, mutated, text, fc.string({ unit: "binary", maxLength: 40 }));

describe("strings at rest", () => {
  it("read as the rule reads them, and exact only when encoding gives them back", () => {
    fc.assert(
      fc.property(anyString, (s) => {
        const reader = new AtRestReader();
        const read = reader.decode(s);
        expect(read).toBe(byTheRule(s));
        const writesBack = Buffer.from(read, "utf8").toString("base64") === s;
        expect(reader.exact).toBe(read !== s || s === "" ? writesBack : false);
      }),
      { numRuns: 3000 },
    );
  });

  it.each([
    { name: "the empty string", stored: "", read: "", exact: true },
    { name: "one padding character", stored: b64("ab"), read: "ab", exact: true },
    { name: "two padding characters", stored: b64("a"), read: "a", exact: true },
    { name: "non-zero bits before the padding", stored: "QR==", read: "A", exact: false },
    { name: "the url-safe alphabet", stored: "-_-_", read: "-_-_", exact: false },
    { name: "padding in the middle", stored: "QQ==QQ==", read: "QQ==QQ==", exact: false },
    { name: "base64 of bytes that are not UTF-8", stored: "abcd", read: "abcd", exact: false },
    { name: "a byte-order mark, kept", stored: b64("\ufeffhi"), read: "\ufeffhi", exact: true },
    {
      name: "text past the short path",
      stored: b64("é".repeat(300)),
      read: "é".repeat(300),
      exact: true,
    },
    { name: "plain text", stored: "not base64!", read: "not base64!", exact: false },
  ])("$name", ({ stored, read, exact }) => {
    const reader = new AtRestReader();
    expect(reader.decode(stored)).toBe(read);
    expect(reader.exact).toBe(exact);
  });

  it("an entry that is exact is what toDisk writes for what was read", () => {
    const entries = fc.oneof(
      fc.record({
        timestamp: fc.constant("t"),
        type: fc.constant("tool_call_request"),
        id: fc.constant("a"),
        name: fc.constant("x"),
        arguments: fc.dictionary(
          fc.string(),
          fc.oneof(anyString, fc.integer(), fc.array(anyString)),
        ),
      }),
      fc.record({
        timestamp: fc.constant("t"),
        type: fc.constant("tool_call_response"),
        id: fc.constant("a"),
        content: anyString,
        is_error: fc.boolean(),
      }),
      fc.record({
        timestamp: fc.constant("t"),
        type: fc.constant("chat_response"),
        message: anyString,
        metadata: fc.dictionary(fc.string(), anyString),
      }),
    );
    fc.assert(
      fc.property(entries, (entry) => {
        const reader = new AtRestReader();
        const read = reader.fromDisk(entry);
        if (reader.exact) expect(JSON.stringify(toDisk(read))).toBe(JSON.stringify(entry));
      }),
      { numRuns: 1000 },
    );
  });

  it("an entry with nothing at rest is read as the very same object", () => {
    const entry = { timestamp: "t", type: "chat_request", content: b64("hello") };
    const reader = new AtRestReader();
    expect(reader.fromDisk(entry)).toBe(entry);
    expect(reader.exact).toBe(true);
  });
});
