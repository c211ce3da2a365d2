import { err, ok, type Result } from "neverthrow";
import type { AnswerType } from "./answer-type.js";
import type { AnswerError } from "./errors.js";
import { formatPath } from "./internal/decode.js";
import { describeJson, quoteList, typeName } from "./internal/describe.js";
import { findNonJson } from "./internal/json-check.js";
import { compileSchema, renderAjvErrors } from "./internal/schema-cache.js";
import type { JsonValue } from "./json.js";

type Checked = Result<JsonValue, AnswerError>;

/**
 * How deeply arrays and objects may be nested in an answer. No real answer comes near it, and
 * what a conversation records and writes (JSON text, the checks and copies of this SDK, which
 * recurse) stays far from the call stack's limit, which such code reaches a few thousand levels
 * deep.
 */
const MAX_ANSWER_DEPTH = 100;
type Of<T extends AnswerType["type"]> = Extract<AnswerType, { type: T }>;

/**
 * Checks that `value` is a valid answer to a question of `answerType` and returns it typed as
 * JSON. The error message says what was expected and what came, so a model can correct itself;
 * for `secret` answers it names only the type received, never the value. An answer whose arrays
 * and objects are nested more than 100 levels deep is refused as well.
 *
 * @example
 * ```ts
 * const result = validateAnswer({ type: "select", options: ["red", "green"] }, "blue");
 * if (result.isErr()) console.log(result.error.message);
 * // expected one of "red", "green", got "blue"
 * ```
 */
export function validateAnswer(answerType: AnswerType, value: unknown): Checked {
  const problem = findNonJson(value, MAX_ANSWER_DEPTH);
  if (problem !== undefined) {
    // Even a malformed secret must not leak: name the type only.
    if (answerType.type === "secret") return invalid(`expected a string, got ${typeName(value)}`);
    const where =
      problem.path.length === 0 ? "" : `${formatPath(problem.path).replace(/^\./, "")}: `;
    return invalid(`${where}${problem.reason}`);
  }
  const json = value as JsonValue;
  switch (answerType.type) {
    case "boolean":
      return typeof json === "boolean"
        ? ok(json)
        : invalid(`expected true or false, got ${describeJson(json)}`);
    case "select":
      return checkSelect(answerType, json);
    case "multi_select":
      return checkMultiSelect(answerType, json);
    case "text":
      return typeof json === "string"
        ? ok(json)
        : invalid(`expected a string, got ${describeJson(json)}`);
    case "secret":
      return typeof json === "string"
        ? ok(json)
        : invalid(`expected a string, got ${typeName(json)}`);
    case "schema":
      return checkSchema(answerType, json);
    default:
      // Reachable only from untyped callers; the answer type, not the answer, is at fault.
      return err({
        kind: "invalid-schema",
        message: `unknown answer type ${describeJson(answerType)}`,
      });
  }
}

function checkSelect({ options }: Of<"select">, value: JsonValue): Checked {
  if (options.length === 0) return noOptions();
  if (typeof value === "string" && options.includes(value)) return ok(value);
  return invalid(`expected one of ${quoteList(options)}, got ${describeJson(value)}`);
}

function checkMultiSelect({ options }: Of<"multi_select">, value: JsonValue): Checked {
  if (options.length === 0) return noOptions();
  if (!Array.isArray(value)) {
    return invalid(
      `expected an array of distinct choices from ${quoteList(options)}, got ${describeJson(value)}`,
    );
  }
  // A set of the options, so that checking many choices against many options stays linear.
  const offered = new Set(options);
  const chosen = new Set<string>();
  for (const [index, item] of value.entries()) {
    if (typeof item !== "string" || !offered.has(item)) {
      return invalid(
        `item ${index}: expected one of ${quoteList(options)}, got ${describeJson(item)}`,
      );
    }
    if (chosen.has(item)) {
      return invalid(
        `item ${index}: ${describeJson(item)} is chosen twice; each choice may appear only once`,
      );
    }
    chosen.add(item);
  }
  return ok(value);
}

function checkSchema({ schema }: Of<"schema">, value: JsonValue): Checked {
  const compiled = compileSchema(schema);
  if (!compiled.ok) {
    return err({
      kind: "invalid-schema",
      message: `the JSON Schema does not compile: ${compiled.message}`,
    });
  }
  try {
    if (compiled.validate(value)) return ok(value);
    return invalid(
      `does not match the JSON Schema: ${renderAjvErrors(compiled.validate.errors ?? [])}`,
    );
  } catch (cause) {
    // A validator can still fail at run time (e.g. a stack overflow on a very deep answer).
    const reason = cause instanceof Error ? cause.message : typeName(cause);
    return invalid(`could not be checked against the JSON Schema: ${reason}`);
  }
}

function noOptions(): Checked {
  return err({ kind: "invalid-schema", message: "the question offers no options to choose from" });
}

function invalid(message: string): Checked {
  return err({ kind: "invalid-answer", message });
}
