import type { AnswerType } from "../answer-type.js";
import type { JsonValue } from "../json.js";
import type { Question } from "../question.js";
import { findNonJson, isPlainObject } from "./json-check.js";

// A fast structural reading of a question that is already valid and canonical (what tools and
// `ask_user` build): the question the zod schemas would output, built without loading them.
// Anything else (legacy shapes, nulls, defaults spelled out, unknown fields, invalid data) returns
// `undefined` and takes the schemas, which stay the single source of truth: a property test
// checks that whatever this accepts, the schemas decode to the same question, key order included.

const QUESTION_KEYS = new Set([
  "id",
  "text",
  "context",
  "answer_type",
  "default",
  "exclusive",
  "persistence",
]);

/** Whether the object's own keys are all among `allowed` (and it has no others). */
function keysWithin(value: Record<string, unknown>, allowed: ReadonlySet<string>): boolean {
  for (const key in value) if (!allowed.has(key)) return false;
  return true;
}

const TYPE_ONLY = new Set(["type"]);
const WITH_OPTIONS = new Set(["type", "options"]);
const WITH_SCHEMA = new Set(["type", "schema"]);

function canonicalAnswerType(value: unknown): AnswerType | undefined {
  if (!isPlainObject(value)) return undefined;
  switch (value.type) {
    case "boolean":
    case "text":
    case "secret":
      return keysWithin(value, TYPE_ONLY) ? { type: value.type } : undefined;
    case "select":
    case "multi_select": {
      const { options } = value;
      if (!keysWithin(value, WITH_OPTIONS) || !Array.isArray(options)) return undefined;
      for (const option of options) if (typeof option !== "string") return undefined;
      return { type: value.type, options: [...(options as string[])] };
    }
    case "schema": {
      const { schema } = value;
      if (!keysWithin(value, WITH_SCHEMA) || !isPlainObject(schema)) return undefined;
      if (findNonJson(schema) !== undefined) return undefined;
      return {
        type: "schema",
        schema: schema as Extract<AnswerType, { type: "schema" }>["schema"],
      };
    }
    default:
      return undefined;
  }
}

/**
 * The question `input` decodes to, when it is already canonical; `undefined` otherwise. With
 * `checkId`, the id must also be a valid inquiry-id segment (non-empty, without "."), as
 * `decodeQuestion` requires; `defineQuestion` checks the id itself, to word its refusal.
 */
export function canonicalQuestion(input: unknown, checkId: boolean): Question | undefined {
  try {
    return read(input, checkId);
  } catch {
    // Hostile input (a throwing getter, a Proxy): the schemas give the error.
    return undefined;
  }
}

function read(input: unknown, checkId: boolean): Question | undefined {
  if (!isPlainObject(input) || !keysWithin(input, QUESTION_KEYS)) return undefined;
  const { id, text, context } = input;
  if (typeof id !== "string" || typeof text !== "string") return undefined;
  if (checkId && (id === "" || id.includes("."))) return undefined;
  const has = (key: string) => Object.hasOwn(input, key);
  if (has("context") && typeof context !== "string") return undefined;
  const answerType = canonicalAnswerType(input.answer_type);
  if (answerType === undefined) return undefined;
  // A null default reads as absent, and `undefined` is no JSON: both take the schemas.
  if (has("default") && (input.default === null || findNonJson(input.default) !== undefined)) {
    return undefined;
  }
  // Defaults spelled out (`exclusive: false`, `persistence: "turn"`) are dropped by the schemas.
  if (has("exclusive") && input.exclusive !== true) return undefined;
  if (has("persistence") && input.persistence !== "none") return undefined;
  return {
    id,
    text,
    ...(has("context") ? { context: context as string } : {}),
    answer_type: answerType,
    ...(has("default") ? { default: input.default as JsonValue } : {}),
    ...(has("exclusive") ? { exclusive: true } : {}),
    ...(has("persistence") ? { persistence: "none" as const } : {}),
  };
}
