import { describe, expect, it } from "vitest";
import {
  entriesText,
  hasInexactInteger,
  inexactEntries,
  RawEntry,
} from "../../src/internal/exact-numbers.js";

describe("inexactEntries", () => {
  it("finds the entries holding an integer a double rounds, or -0, by index", () => {
    const text = `[{"a":1},{"b":[1,{"c":12345678901234567890}]},{"d":-0},{"e":-0.5,"f":1e30,"g":9007199254740992}]`;
    const found = inexactEntries(text);
    expect([...found.keys()]).toStrictEqual([1, 2]);
    expect(found.get(1)?.text).toBe(`{"b":[1,{"c":12345678901234567890}]}`);
  });

  it("looks past numbers inside strings, escaped quotes included", () => {
    const text = `[{"s":"12345678901234567890 \\" -0 \\\\"},{"t":"\\"","n":12345678901234567891}]`;
    expect(JSON.parse(text)).toHaveLength(2);
    expect([...inexactEntries(text).keys()]).toStrictEqual([1]);
  });

  it("tells whether a whole file holds such an integer", () => {
    expect(hasInexactInteger(`{"n":18446744073709551615}`)).toBe(true);
    expect(hasInexactInteger(`{"n":"18446744073709551615","m":-0.0}`)).toBe(false);
  });
});

describe("entriesText", () => {
  it("is JSON.stringify's text with the raw entries written as they are", () => {
    const entries = [{ a: [1, { b: "x" }] }, [], { c: {} }];
    expect(entriesText(entries)).toBe(`${JSON.stringify(entries, null, 2)}\n`);
    expect(entriesText([])).toBe("[]\n");
    expect(entriesText([{ a: 1 }, new RawEntry(`{"n":-0}`)])).toBe(
      `[\n  {\n    "a": 1\n  },\n  {"n":-0}\n]\n`,
    );
  });
});
