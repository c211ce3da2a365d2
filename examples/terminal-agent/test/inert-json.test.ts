import { describe, expect, it } from "vitest";
import { inertJson } from "../src/transcript.js";

describe("the --pending listing's JSON", () => {
  it("writes what a terminal may act on as \\u escapes, and parses back to the same value", () => {
    // An 8-bit CSI, DEL, a bidi override, a line separator and a tag character (beyond U+FFFF).
    const value = { text: "a\u009b2J\u007f\u202eb\u2028\u{e0041}c", plain: "ok — é" };
    const json = inertJson(value);
    expect(json).toContain("a\\u009b2J\\u007f\\u202eb\\u2028\\udb40\\udc41c");
    expect(json).toContain("ok — é");
    expect(json).not.toMatch(/[\u007f-\u009f\u202e\u2028]|\udb40/);
    expect(JSON.parse(json)).toEqual(value);
  });
});
