import type { Context, Script } from "node:vm";

/**
 * How long one `pattern` test may run. A schema's `pattern` may come from a model (`ask_user`'s
 * `schema` questions) or an MCP server: a pattern such as `^(a+)+$` takes exponential time on
 * some inputs (catastrophic backtracking) and would stop the host's event loop for minutes. A
 * sound pattern tests an answer in microseconds.
 */
export const PATTERN_TEST_LIMIT_MS = 20;

/**
 * A test that ran out of {@link PATTERN_TEST_LIMIT_MS} is run once more with this limit before the
 * pattern is given up: a busy machine (a garbage collection, other processes on its cores) can
 * hold a sound pattern's test past 20 ms, and giving up would refuse every later answer.
 */
export const PATTERN_CONFIRM_LIMIT_MS = 250;

/** What Ajv's `code.regExp` option returns: something with `test`. */
interface RegExpLike {
  test(input: string): boolean;
  /** Ajv keeps one engine per distinct text: `/pattern/flags`, as a RegExp writes itself. */
  toString(): string;
}

let script: Script | undefined;

/** The patterns that ran out of time in this process (at most {@link MAX_STALLED} remembered). */
const stalledPatterns = new Set<string>();
const MAX_STALLED = 1_000;

/**
 * Whether `pattern` ran out of time in this process: every answer is refused against it, so an
 * error message says the pattern, not the answer, is at fault.
 */
export function patternStalled(pattern: unknown): boolean {
  return typeof pattern === "string" && stalledPatterns.has(pattern);
}

/**
 * Ajv's regular-expression engine for `pattern` and `patternProperties`: the language's own
 * engine, run in a `node:vm` context whose time limit interrupts a test that backtracks too long.
 * A test that runs out of time, and again under a longer limit (a busy machine can hold a sound
 * pattern's test past the first), fails (the answer is refused as not matching), and so does
 * every later test of that pattern, at once: a hostile pattern costs the limits once per process. Node.js has no linear-time engine without a native
 * addon (`re2`), whose prebuilt binaries are downloaded at install time; the time limit needs
 * none. Throws, as `new RegExp` does, for a pattern that does not compile (Ajv reports it).
 */
export const boundedRegExp = Object.assign(testedInTime, {
  // What Ajv's standalone code would name it by; this package does not generate standalone code.
  code: "boundedRegExp",
});

function testedInTime(
  pattern: string,
  flags: string,
  limits = { first: PATTERN_TEST_LIMIT_MS, confirm: PATTERN_CONFIRM_LIMIT_MS },
): RegExpLike {
  const regexp = new RegExp(pattern, flags);
  const vm = process.getBuiltinModule("node:vm");
  script ??= new vm.Script("regexp.test(input)");
  const context: Context = vm.createContext({ regexp, input: "" });
  // A pattern that ran out of time once is not run again: one answer (or a long array of them,
  // or an object of many properties) could otherwise pay the limit once per string.
  let stalled = false;
  const run = (input: string, timeout: number): boolean | undefined => {
    context.input = input;
    try {
      return (script as Script).runInContext(context, { timeout }) === true;
    } catch {
      return undefined; // out of time
    } finally {
      context.input = "";
    }
  };
  return {
    test(input: string): boolean {
      if (stalled) return false;
      const matched = run(input, limits.first) ?? run(input, limits.confirm);
      if (matched !== undefined) return matched;
      // Out of time twice: not a match, now and from now on.
      stalled = true;
      if (stalledPatterns.size >= MAX_STALLED) stalledPatterns.clear();
      stalledPatterns.add(pattern);
      return false;
    },
    toString: () => regexp.toString(),
  };
}
