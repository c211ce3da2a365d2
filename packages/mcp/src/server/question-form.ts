import type { JsonObject, JsonValue } from "@jp/conversation";
import { type AnswerError, type Question, validateAnswer } from "@jp/tool";
import { err, ok, type Result } from "neverthrow";
import { questionsForElicitation } from "../host/form-questions.js";
import { cutText, isPlainObject } from "../internal/json.js";

/**
 * How a question travels to an MCP client as a form elicitation, and how the accepted content
 * reads back as its answer.
 * - `field`: one field named `answer` holds the answer.
 * - `json`: one text field `answer` holds the answer as JSON text (a schema no flat form can
 *   express; the answer is parsed and checked against the schema on return).
 * - `object`: the question's schema is itself a flat form; the content is the answer.
 */
export type QuestionReading = "field" | "json" | "object";

/** A question as an MCP form elicitation. */
export interface QuestionForm {
  readonly message: string;
  readonly requestedSchema: JsonObject;
  readonly reading: QuestionReading;
}

/**
 * A question that must not or cannot travel as a form. `secret`: MCP forbids secrets in forms;
 * they go by URL mode, which needs the host's secret page.
 */
export interface UnaskableQuestion {
  readonly kind: "secret";
  readonly message: string;
}

const FIELD = "answer";

/**
 * Maps one of our questions onto an MCP form elicitation (the inverse of
 * `questionsForElicitation`, for serving our tools to MCP clients). Pure; never throws.
 *
 * | answer type | form |
 * | --- | --- |
 * | `boolean`, `text` | one `boolean` / `string` field |
 * | `select` | one `string` field with `enum` |
 * | `multi_select` | one `array` field with `items.enum` |
 * | `schema`, a primitive MCP forms can express | that schema as the one field |
 * | `schema`, a flat object of such primitives | the schema itself as the form |
 * | `schema`, anything else (nesting, `$ref`, unions…) | a text field taking the answer as JSON |
 * | `secret` | refused: `secret` (secrets go by URL mode, never by form) |
 *
 * The question's `context` follows its text in the message; a default that fits pre-fills the
 * field. `error` (a previous answer's problem) is added to the message.
 */
export function elicitationForQuestion(
  question: Question,
  options: { readonly error?: string } = {},
): Result<QuestionForm, UnaskableQuestion> {
  const parts = [question.text];
  if (question.context !== undefined && question.context !== "") parts.push(question.context);
  if (options.error !== undefined)
    parts.push(`Your previous answer was not accepted: ${options.error}`);
  const message = parts.join("\n\n");
  const answerType = question.answer_type;
  const fits =
    question.default !== undefined && validateAnswer(answerType, question.default).isOk();
  const fallback = fits ? { default: question.default as JsonValue } : {};
  const one = (field: JsonObject, reading: QuestionReading = "field"): QuestionForm => ({
    message,
    requestedSchema: {
      type: "object",
      properties: { [FIELD]: { title: "Answer", ...field, ...fallback } },
      required: [FIELD],
    },
    reading,
  });
  switch (answerType.type) {
    case "boolean":
      return ok(one({ type: "boolean" }));
    case "text":
      return ok(one({ type: "string" }));
    case "select":
      return ok(one({ type: "string", enum: [...answerType.options] }));
    case "multi_select":
      return ok(one({ type: "array", items: { type: "string", enum: [...answerType.options] } }));
    case "secret":
      return err({
        kind: "secret",
        message:
          `question "${question.id}" asks for a secret, which MCP does not allow in a form; ` +
          "ask for it another way, or serve this tool where a secret page is configured",
      });
    case "schema":
      return ok(schemaForm(question, answerType.schema, message, fallback));
  }
}

function schemaForm(
  question: Question,
  schema: JsonObject,
  message: string,
  fallback: { default?: JsonValue },
): QuestionForm {
  // A schema the client side would accept as a form is one MCP forms express.
  const asField = { type: "object", properties: { [FIELD]: schema }, required: [FIELD] };
  if (questionsForElicitation(asField, { server: "" }).isOk()) {
    return {
      message,
      requestedSchema: {
        ...asField,
        properties: { [FIELD]: { title: "Answer", ...schema, ...fallback } },
      },
      reading: "field",
    };
  }
  if (schema.type === "object" && questionsForElicitation(schema, { server: "" }).isOk()) {
    return { message, requestedSchema: withDefaults(schema, question.default), reading: "object" };
  }
  const text = JSON.stringify(schema);
  const description = `A JSON value matching this JSON Schema: ${cutText(text, 1500)}`;
  const prefill =
    fallback.default === undefined ? {} : { default: JSON.stringify(fallback.default) };
  return {
    message,
    requestedSchema: {
      type: "object",
      properties: { [FIELD]: { type: "string", title: "Answer (JSON)", description, ...prefill } },
      required: [FIELD],
    },
    reading: "json",
  };
}

// An object default pre-fills each field it has a value for.
function withDefaults(schema: JsonObject, value: JsonValue | undefined): JsonObject {
  if (!isPlainObject(value) || !isPlainObject(schema.properties)) return schema;
  const properties: JsonObject = {};
  for (const [name, property] of Object.entries(schema.properties)) {
    properties[name] =
      isPlainObject(property) && Object.hasOwn(value, name)
        ? { ...property, default: value[name] as JsonValue }
        : (property as JsonValue);
  }
  return { ...schema, properties };
}

/**
 * The answer an accepted form's content gives the question, checked against the question's answer
 * type. The error says what did not fit, fit to show the person when asking again.
 */
export function answerFromContent(
  question: Question,
  form: Pick<QuestionForm, "reading">,
  content: unknown,
): Result<JsonValue, AnswerError> {
  const fields = isPlainObject(content) ? content : {};
  let value: unknown;
  if (form.reading === "object") value = fields;
  else if (form.reading === "field") value = fields[FIELD];
  else {
    const text = fields[FIELD];
    if (typeof text !== "string") return invalid("expected the answer as JSON text");
    try {
      value = JSON.parse(text);
    } catch {
      return invalid("the answer is not valid JSON");
    }
  }
  if (value === undefined) return invalid("no answer was given");
  return validateAnswer(question.answer_type, value);
}

function invalid(message: string): Result<never, AnswerError> {
  return err({ kind: "invalid-answer", message });
}
