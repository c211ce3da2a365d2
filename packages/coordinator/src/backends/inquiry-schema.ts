import type { JsonObject, JsonValue } from "@jp/conversation";
import type { AnswerType, Question } from "@jp/tool";
import { err, ok, type Result } from "neverthrow";
import type { InquiryError } from "./inquiry-backend.js";

/**
 * The structured-output schema an LLM answers a question with, as JP builds it:
 * `{"type":"object","properties":{"answer":S},"required":["answer"],"additionalProperties":false}`.
 * `S` is `{"type":"boolean"}`, `{"type":"string","enum":options}` (select), `{"type":"string"}`
 * (text), an array of distinct options (multi_select), or the question's own JSON Schema.
 *
 * Total: a `secret` question is an `Err` (kind `other`), since a secret is never routed to an
 * LLM whatever the configuration says; so is a select without options, which no answer fits.
 * An embedded schema's `$schema` moves to the root and its local `$ref`s (`#/…`) are rebased
 * under `#/properties/answer`, so that they still point where they did.
 *
 * @example
 * ```ts
 * inquirySchemaFor({ type: "select", options: ["a", "b"] });
 * // ok({ type: "object", properties: { answer: { type: "string", enum: ["a", "b"] } },
 * //      required: ["answer"], additionalProperties: false })
 * ```
 */
export function inquirySchemaFor(answerType: AnswerType): Result<JsonObject, InquiryError> {
  switch (answerType.type) {
    case "boolean":
      return ok(wrap({ type: "boolean" }));
    case "text":
      return ok(wrap({ type: "string" }));
    case "select":
      if (answerType.options.length === 0) return err(noOptions());
      return ok(wrap({ type: "string", enum: [...answerType.options] }));
    case "multi_select":
      if (answerType.options.length === 0) return err(noOptions());
      return ok(
        wrap({
          type: "array",
          items: { type: "string", enum: [...answerType.options] },
          uniqueItems: true,
        }),
      );
    case "secret":
      return err({
        kind: "other",
        message: "a secret question is never sent to an LLM: only a human may answer it",
      });
    case "schema":
      return embedSchema(answerType.schema);
    default:
      // Reachable only from untyped callers.
      return err({ kind: "other", message: `unknown answer type ${JSON.stringify(answerType)}` });
  }
}

/**
 * The text of the inquiry request, JP's prompt with the question's `context` added above the
 * question when it has one. JP drops it, but the context is often what the question is about (a
 * diff to apply), and an LLM cannot answer "apply the patch shown above?" without seeing it.
 * Options are not listed: the schema's `enum` carries them.
 *
 * @example
 * ```ts
 * inquiryPromptText("fs_modify_file", { text: "Apply the patch?" });
 * // "The tool `fs_modify_file` requires additional input.\n\nApply the patch?\n\n" +
 * // "Provide your answer based on the conversation context."
 * ```
 */
export function inquiryPromptText(
  toolName: string,
  question: Pick<Question, "text" | "context">,
): string {
  const parts = [`The tool \`${toolName}\` requires additional input.`];
  if (question.context !== undefined && question.context.trim() !== "") {
    parts.push(question.context);
  }
  parts.push(question.text, "Provide your answer based on the conversation context.");
  return parts.join("\n\n");
}

function wrap(answer: JsonValue, dialect?: string): JsonObject {
  return {
    ...(dialect === undefined ? {} : { $schema: dialect }),
    type: "object",
    properties: { answer },
    required: ["answer"],
    additionalProperties: false,
  };
}

function noOptions(): InquiryError {
  return { kind: "other", message: "the question offers no options to choose from" };
}

/** Where the question's schema sits inside the wrapper, as a JSON Pointer fragment. */
const ANSWER_POINTER = "#/properties/answer";

/** Keywords whose value is one schema or an array of schemas (drafts 07 to 2020-12). */
const SCHEMA_KEYWORDS = new Set([
  "additionalItems",
  "additionalProperties",
  "allOf",
  "anyOf",
  "contains",
  "contentSchema",
  "else",
  "if",
  "items",
  "not",
  "oneOf",
  "prefixItems",
  "propertyNames",
  "then",
  "unevaluatedItems",
  "unevaluatedProperties",
]);

/** Keywords whose value maps names to schemas. */
const SCHEMA_MAP_KEYWORDS = new Set([
  "$defs",
  "definitions",
  "dependencies",
  "dependentSchemas",
  "patternProperties",
  "properties",
]);

function embedSchema(schema: JsonObject): Result<JsonObject, InquiryError> {
  const { $schema: dialect, ...body } = schema;
  try {
    const answer = rebaseSchema(typeof dialect === "string" ? body : schema);
    return ok(wrap(answer, typeof dialect === "string" ? dialect : undefined));
  } catch (cause) {
    // Only a pathologically deep schema gets here (stack overflow).
    const reason = cause instanceof Error ? cause.message : String(cause);
    return err({ kind: "other", message: `the question's JSON Schema cannot be used: ${reason}` });
  }
}

/**
 * Rewrites local JSON Pointer refs, walking known schema positions only so that data (`enum`,
 * `const`, `default`, unknown keywords) is never touched. A schema with its own `$id` is a
 * separate resource whose refs resolve against it: it is left as it is.
 */
function rebaseSchema(schema: JsonValue): JsonValue {
  if (!isObject(schema) || Object.hasOwn(schema, "$id")) return schema;
  // `Object.fromEntries` defines keys, so a `"__proto__"` property name stays a plain key.
  return Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [key, rebaseKeyword(key, value)]),
  );
}

function rebaseKeyword(key: string, value: JsonValue): JsonValue {
  if (key === "$ref" && typeof value === "string") {
    return value === "#" || value.startsWith("#/") ? ANSWER_POINTER + value.slice(1) : value;
  }
  if (SCHEMA_KEYWORDS.has(key))
    return Array.isArray(value) ? value.map(rebaseSchema) : rebaseSchema(value);
  if (SCHEMA_MAP_KEYWORDS.has(key) && isObject(value)) {
    return Object.fromEntries(
      Object.entries(value).map(([name, item]) => [name, rebaseSchema(item)]),
    );
  }
  return value;
}

function isObject(value: JsonValue): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
