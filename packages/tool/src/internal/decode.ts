import { err, ok, type Result } from "neverthrow";
import type { z } from "zod";
import type { DecodeError } from "../errors.js";
import { describeJson, quoteList, typeName } from "./describe.js";

/**
 * Runs a zod schema over foreign input and turns the first issue into a {@link DecodeError} whose
 * message starts with `root` and the path, e.g. `question.answer_type.options[1]: …`.
 */
// The try/catch is the "never throws" guarantee of every decoder: zod itself does not throw, but
// hostile input can (a getter that throws, a Proxy), and a decoder must still answer with a value.
export function decodeWith<T>(
  schema: z.ZodType<T>,
  input: unknown,
  root: string,
): Result<T, DecodeError> {
  try {
    const parsed = schema.safeParse(input, { error: issueMessage });
    if (parsed.success) return ok(parsed.data);
    const [first, ...rest] = parsed.error.issues;
    if (first === undefined) return err(decodeError(root, [], "invalid input"));
    const path = first.path.filter((key) => typeof key !== "symbol");
    const more =
      rest.length === 0 ? "" : ` (and ${rest.length} more problem${plural(rest.length)})`;
    return err(decodeError(root, path, `${first.message}${more}`));
  } catch (cause) {
    const reason = cause instanceof Error ? cause.message : typeName(cause);
    return err(decodeError(root, [], `could not be decoded: ${reason}`));
  }
}

/** Builds a {@link DecodeError} whose message is `<root><path>: <reason>`. */
export function decodeError(root: string, path: (string | number)[], reason: string): DecodeError {
  return { kind: "decode", message: `${root}${formatPath(path)}: ${reason}`, path };
}

/** `["answer_type", "options", 1]` → `.answer_type.options[1]`. */
export function formatPath(path: readonly (string | number)[]): string {
  return path
    .map((key) => {
      if (typeof key === "number") return `[${key}]`;
      return /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
    })
    .join("");
}

/**
 * Per-parse zod error map: readable "expected …, got …" texts. Messages set on a schema itself
 * (refinements) take precedence over this map, so they are passed through untouched.
 */
function issueMessage(issue: z.core.$ZodRawIssue): string | undefined {
  switch (issue.code) {
    case "invalid_type":
      if (issue.input === undefined) return `is missing (expected ${article(issue.expected)})`;
      return `expected ${article(issue.expected)}, got ${typeName(issue.input)}`;
    case "invalid_value":
      return `expected ${oneOf(issue.values)}, got ${describeJson(issue.input)}`;
    case "invalid_union":
      return unionMessage(issue);
    default:
      return undefined;
  }
}

function unionMessage(
  issue: z.core.$ZodRawIssue<z.core.$ZodIssueInvalidUnion>,
): string | undefined {
  // zod reports an unknown discriminator at the discriminator's path, with the whole object as
  // input; show the offending tag, or say that it is missing.
  const { discriminator, options } = issue as { discriminator?: unknown; options?: unknown };
  if (typeof discriminator !== "string" || !Array.isArray(options)) return undefined;
  const input = issue.input as Record<string, unknown> | undefined;
  const tag = input?.[discriminator];
  const expected = `expected ${oneOf(options)}`;
  return tag === undefined ? `is missing (${expected})` : `${expected}, got ${describeJson(tag)}`;
}

function oneOf(values: readonly unknown[]): string {
  const texts = values.map((value) => (typeof value === "string" ? value : String(value)));
  return texts.length === 1 ? quoteList(texts) : `one of ${quoteList(texts)}`;
}

function article(expected: string): string {
  const noArticle = ["null", "undefined", "nan"];
  if (noArticle.includes(expected)) return expected;
  return /^[aeiou]/.test(expected) ? `an ${expected}` : `a ${expected}`;
}

function plural(count: number): string {
  return count === 1 ? "" : "s";
}
