import fc from "fast-check";
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
    expect(hasInexactInteger(`{"n":"18446744073709551615","m":-0.5}`)).toBe(false);
    expect(hasInexactInteger(`{"n":"18446744073709551615","m":-0.0}`)).toBe(true);
  });
});

// Spellings JSON.parse reads as -0 (`-00` is no JSON: JSON.parse refuses it, so no file holds it).
const NEGATIVE_ZEROS = [
  "-0",
  "-0.0",
  "-0.000",
  "-0e0",
  "-0E+3",
  "-0.0e-5",
  "-1e-400",
  "-1E-0000400",
  "-2.4e-324",
  "-1234e-327",
  "-0.5e-400",
  `-0.${"0".repeat(330)}1`,
  `-0.${"0".repeat(224)}1e-99`,
];
// Numbers next to those that JSON.parse gives back exactly.
const NOT_NEGATIVE_ZEROS = [
  "0",
  "0.0",
  "0e0",
  "1e-400",
  "-0.5",
  "-0.05",
  "-10",
  "-100.0",
  "-1e-5",
  "-2.5e-324",
  "-1e-323",
  `-0.${"0".repeat(223)}1e-99`,
];

// A long number's text in a test's name: `-0.000…0001e-99 (230 characters)`.
const shown = (text: string) =>
  text.length <= 20 ? text : `${text.slice(0, 7)}…${text.slice(-8)} (${text.length} characters)`;

describe("a negative zero, however spelled", () => {
  it.each(NEGATIVE_ZEROS.filter((text) => text !== "-0").map((text) => [shown(text), text]))(
    "%s makes its entry found, with its text as it is",
    (_shown, spelling) => {
      const entry = `{"a":[1,{"b":${spelling}}],"c":2}`;
      const text = `[{"a":1},${entry},{"d":-0.5}]`;
      const found = inexactEntries(text);
      expect([...found.keys()]).toStrictEqual([1]);
      expect(found.get(1)?.text).toBe(entry);
      expect(hasInexactInteger(`{"m":${spelling}}`)).toBe(true);
    },
  );

  it("counts at the very end of the text", () => {
    for (const spelling of NEGATIVE_ZEROS) {
      expect(Object.is(JSON.parse(spelling), -0)).toBe(true);
      expect(hasInexactInteger(spelling)).toBe(true);
      expect(inexactEntries(`[[${spelling}]]`).size).toBe(1);
    }
  });

  it("does not count inside a string, a key included", () => {
    const strings = NEGATIVE_ZEROS.map((spelling) => `"${spelling}"`);
    for (const text of strings) {
      expect(hasInexactInteger(`{"s":${text}}`)).toBe(false);
      expect(hasInexactInteger(`{${text}:1}`)).toBe(false);
    }
    const text = `[{"s":["-0.0","x -1e-400 y"],"-0.0":1},{"-0e0":{"-0.0":-0.0}},{"\\"-0.0":0}]`;
    expect(JSON.parse(text)).toHaveLength(3);
    expect([...inexactEntries(text).keys()]).toStrictEqual([1]);
  });

  it("leaves the entries of numbers that are not -0, beside one that is", () => {
    const others = NOT_NEGATIVE_ZEROS.map((spelling) => `{"n":[${spelling}]}`);
    const text = `[${others.join(",")},{"z":-0.0}]`;
    expect([...inexactEntries(text).keys()]).toStrictEqual([others.length]);
    for (const spelling of NOT_NEGATIVE_ZEROS) {
      expect(Object.is(JSON.parse(spelling), -0)).toBe(false);
      expect(hasInexactInteger(`{"n":${spelling},"z":-0.0}`)).toBe(true);
      expect(hasInexactInteger(`{"n":${spelling}}`)).toBe(false);
    }
  });

  it("is found exactly when JSON.parse reads -0 or rounds an integer, for any number text", () => {
    const digits = (min: number, max: number, zeros: boolean) =>
      fc
        .array(fc.constantFrom(...(zeros ? "0000000123456789" : "0123456789")), {
          minLength: min,
          maxLength: max,
        })
        .map((d) => d.join(""));
    const number = fc
      .tuple(
        fc.boolean(),
        fc.oneof(fc.constant("0"), fc.tuple(fc.constantFrom(..."123456789"), digits(0, 20, false))),
        fc.option(digits(1, 8, true), { nil: undefined }),
        fc.option(
          fc.tuple(fc.constantFrom("e", "E"), fc.constantFrom("", "+", "-"), digits(1, 4, false)),
          { nil: undefined },
        ),
      )
      .map(([negative, whole, fraction, exponent]) => {
        const int = typeof whole === "string" ? whole : whole.join("");
        const frac = fraction === undefined ? "" : `.${fraction}`;
        const exp = exponent === undefined ? "" : exponent.join("");
        return `${negative ? "-" : ""}${int}${frac}${exp}`;
      });
    fc.assert(
      fc.property(number, (token) => {
        const value = JSON.parse(token) as number;
        const integer = /^-?[0-9]+$/.test(token);
        const expected = Object.is(value, -0) || (integer && String(value) !== token);
        expect(hasInexactInteger(`{"n":${token}}`)).toBe(expected);
        expect(inexactEntries(`[{"a":1},{"n":[${token}]}]`).has(1)).toBe(expected);
      }),
      { numRuns: 3000 },
    );
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
