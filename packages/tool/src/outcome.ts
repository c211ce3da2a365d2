import { err, ok, type Result } from "neverthrow";
import type { z } from "zod";
import type { DecodeError } from "./errors.js";
import { canonicalQuestion } from "./internal/canonical-question.js";
import { decodeError, decodeWith } from "./internal/decode.js";
import { isPlainObject } from "./internal/json-check.js";
import { lazy, lazySchema, zod } from "./internal/lazy.js";
import { encodeQuestion, type Question, questionSchemas } from "./question.js";

// Built on first use (see internal/lazy.ts): importing the package does not load zod.
const outcomeSchemas = lazy(() => {
  const z = zod();
  return {
    outcome: z.discriminatedUnion("type", [
      z.object({ type: z.literal("success"), content: z.string() }),
      z.object({
        type: z.literal("error"),
        message: z.string(),
        trace: z.array(z.string()).default([]),
        transient: z.boolean().default(false),
      }),
      z.object({ type: z.literal("needs_input"), question: questionSchemas().question }),
    ]),
  };
});

/**
 * The zod schema of an {@link Outcome}. Decoding tolerates an `error` without `trace` (read as
 * `[]`) or without `transient` (read as `false`), and a `needs_input` question in any shape
 * {@link questionSchema} reads.
 */
export const outcomeSchema = lazySchema(() => outcomeSchemas().outcome);

/**
 * What a tool run ends with, as one JSON object on stdout: `success` with its content, `error`
 * with a message, a cause trace and whether a retry may help, or `needs_input` with a question.
 */
export type Outcome = z.infer<typeof outcomeSchema>;

/** Options of {@link failure}. */
export interface FailureOptions {
  /** The chain of causes, outermost first; default `[]`. */
  readonly trace?: readonly string[];
  /** Whether retrying the same call may succeed (a timeout, a busy resource); default `false`. */
  readonly transient?: boolean;
}

/** A successful outcome carrying the tool's content. */
export function success(content: string): Extract<Outcome, { type: "success" }> {
  return { type: "success", content };
}

/** A failed outcome; `transient` defaults to `false` (JP's `Outcome::fail`). */
export function failure(
  message: string,
  options: FailureOptions = {},
): Extract<Outcome, { type: "error" }> {
  return {
    type: "error",
    message,
    trace: [...(options.trace ?? [])],
    transient: options.transient ?? false,
  };
}

/** An outcome asking a human (or an assistant) the question before the tool can go on. */
export function needsInput(question: Question): Extract<Outcome, { type: "needs_input" }> {
  return { type: "needs_input", question: encodeQuestion(question) };
}

/**
 * Decodes an outcome from foreign JSON. Never throws.
 *
 * @example
 * ```ts
 * const result = decodeOutcome({ type: "error", message: "boom" });
 * if (result.isOk()) console.log(result.value); // { type: "error", message: "boom", trace: [], transient: false }
 * else console.log(result.error.message);
 * ```
 */
export function decodeOutcome(json: unknown): Result<Outcome, DecodeError> {
  const canonical = canonicalOutcome(json);
  if (canonical !== undefined) return ok(canonical);
  return decodeWith(outcomeSchemas().outcome, json, "outcome");
}

const OUTCOME_KEYS: Readonly<Record<string, readonly string[]>> = {
  success: ["type", "content"],
  error: ["type", "message", "trace", "transient"],
  needs_input: ["type", "question"],
};

// A tool's well-formed outcome, read without loading the schemas; anything else (unknown fields,
// invalid data) takes them, and a property test holds this to them.
function canonicalOutcome(json: unknown): Outcome | undefined {
  try {
    if (!isPlainObject(json) || typeof json.type !== "string") return undefined;
    const keys = Object.hasOwn(OUTCOME_KEYS, json.type) ? OUTCOME_KEYS[json.type] : undefined;
    if (keys === undefined) return undefined;
    for (const key in json) if (!keys.includes(key)) return undefined;
    switch (json.type) {
      case "success":
        return typeof json.content === "string"
          ? { type: "success", content: json.content }
          : undefined;
      case "error": {
        const { message, trace, transient } = json;
        if (typeof message !== "string") return undefined;
        if (trace !== undefined && !isStringArray(trace)) return undefined;
        if (transient !== undefined && typeof transient !== "boolean") return undefined;
        return failure(message, { trace: trace ?? [], transient: transient ?? false });
      }
      default: {
        const question = canonicalQuestion(json.question, true);
        return question === undefined ? undefined : { type: "needs_input", question };
      }
    }
  } catch {
    // Hostile input (a throwing getter, a Proxy): the schemas give the error.
    return undefined;
  }
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}

/** Parses a tool's stdout as JSON and decodes it as an outcome. Never throws. */
export function parseOutcome(stdout: string): Result<Outcome, DecodeError> {
  let json: unknown;
  try {
    json = JSON.parse(stdout);
  } catch (cause) {
    const reason = cause instanceof Error ? cause.message : "invalid JSON";
    return err(decodeError("outcome", [], `not valid JSON: ${reason}`));
  }
  return decodeOutcome(json);
}

/** The canonical wire JSON of an outcome (a `needs_input` question is written canonically). */
export function encodeOutcome(outcome: Outcome): Outcome {
  switch (outcome.type) {
    case "success":
      return { type: "success", content: outcome.content };
    case "error":
      return failure(outcome.message, { trace: outcome.trace, transient: outcome.transient });
    case "needs_input":
      return needsInput(outcome.question);
  }
}
