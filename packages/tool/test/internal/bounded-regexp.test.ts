import { describe, expect, it } from "vitest";
import { type AnswerType, validateAnswer } from "../../src/index.js";
import { boundedRegExp } from "../../src/internal/bounded-regexp.js";

// A schema's `pattern` comes from a model or an MCP server. `^(a+)+$` backtracks exponentially on
// a run of "a" that does not end the string: unbounded, 40 of them take minutes.
const CATASTROPHIC = "^(a+)+$";
const stalling = `${"a".repeat(40)}!`;

const pattern = (p: string): AnswerType => ({
  type: "schema",
  schema: { type: "string", pattern: p },
});

describe("a schema's pattern is tested with a time limit", () => {
  it("an answer that makes a hostile pattern backtrack is refused at once, the pattern named at fault", () => {
    // Without the limit this call runs for minutes (and the test past its time limit).
    const checked = validateAnswer(pattern(CATASTROPHIC), stalling);
    expect(checked.isErr() && checked.error.message).toBe(
      `does not match the JSON Schema: (root): must match pattern "${CATASTROPHIC}" (testing this pattern ran out of time, so no answer can pass it: the schema needs a simpler pattern)`,
    );
    // A matching answer is refused too, and says why: the person (or model) can stop retrying.
    const matching = validateAnswer(pattern(CATASTROPHIC), "aaa");
    expect(matching.isErr() && matching.error.message).toContain("ran out of time");
  });

  it("an answer a sound pattern refuses says only that it does not match", () => {
    const checked = validateAnswer(pattern("^[0-9]+$"), "12a");
    expect(checked.isErr() && checked.error.message).toBe(
      'does not match the JSON Schema: (root): must match pattern "^[0-9]+$"',
    );
  });

  it("a test held past the first limit (a busy machine) is confirmed under the longer one, not given up", () => {
    // A first limit of 1 ms stands for a machine that stalls a sound test: ~2^22 backtracking
    // steps take milliseconds, past 1 ms and well within the confirming limit.
    const engine = boundedRegExp(CATASTROPHIC, "u", { first: 1, confirm: 10_000 });
    expect(engine.test(`${"a".repeat(22)}!`)).toBe(false);
    // Not given up: the pattern still tells a match.
    expect(engine.test("aaa")).toBe(true);
  });

  it("an answer of many strings pays the limit once, not once per string", () => {
    const many: AnswerType = {
      type: "schema",
      schema: { type: "array", items: { type: "string", pattern: "^(b+)+$" } },
    };
    // 500 strings × 20 ms would stall the host for ten seconds; the test's own time limit
    // (5 s) fails it if each string paid.
    const strings = Array.from({ length: 500 }, () => `${"b".repeat(40)}!`);
    expect(validateAnswer(many, strings).isErr()).toBe(true);
  });

  it("a pattern that could backtrack tells matching answers from others while it keeps in time", () => {
    expect(validateAnswer(pattern("^(c+)+$"), "cccc").isOk()).toBe(true);
    expect(validateAnswer(pattern("^(c+)+$"), "ccd").isErr()).toBe(true);
  });

  it("once out of time, the pattern refuses every later answer at once, matching ones too", () => {
    expect(validateAnswer(pattern("^(d+)+$"), `${"d".repeat(40)}!`).isErr()).toBe(true);
    expect(validateAnswer(pattern("^(d+)+$"), "dddd").isErr()).toBe(true);
  });

  it("each pattern of a schema is its own (several in one schema, and across schemas)", () => {
    const both: AnswerType = {
      type: "schema",
      schema: {
        type: "object",
        properties: {
          word: { type: "string", pattern: "^[a-z]+$" },
          code: { type: "string", pattern: "^[0-9]{3}$" },
        },
        patternProperties: { "^x-": { type: "string", pattern: "^ok$" } },
      },
    };
    expect(validateAnswer(both, { word: "hello", code: "123", "x-a": "ok" }).isOk()).toBe(true);
    expect(validateAnswer(both, { word: "Hello", code: "123" }).isErr()).toBe(true);
    expect(validateAnswer(both, { word: "hello", code: "12" }).isErr()).toBe(true);
    expect(validateAnswer(both, { word: "hello", code: "123", "x-a": "no" }).isErr()).toBe(true);
    expect(validateAnswer(pattern("^[A-Z]+$"), "HELLO").isOk()).toBe(true);
    expect(validateAnswer(pattern("^[A-Z]+$"), "hello").isErr()).toBe(true);
  });

  it("a pattern keeps its out-of-time reason after another pattern runs out of time too", () => {
    const first = pattern("^(e+)+$");
    const second = pattern("^(f+)+$");
    expect(validateAnswer(first, `${"e".repeat(40)}!`).isErr()).toBe(true);
    expect(validateAnswer(second, `${"f".repeat(40)}!`).isErr()).toBe(true);
    const again = validateAnswer(first, "eee");
    expect(again.isErr() && again.error.message).toContain("ran out of time");
  });

  it("a pattern with unicode classes keeps the schema's unicode reading", () => {
    expect(validateAnswer(pattern("^\\p{Lu}+$"), "ÄÖÜ").isOk()).toBe(true);
    expect(validateAnswer(pattern("^\\p{Lu}+$"), "äöü").isErr()).toBe(true);
  });
});
