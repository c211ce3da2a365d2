import { isJsonValue, isPlainObject } from "../json.js";

// A fast structural check that an entry is already a valid event in canonical form. When it is,
// decoding returns the object itself and encoding writes it as it is: no schema run, no copy.
// Anything else (legacy shapes, defaults spelled out, nulls, foreign fields inside nested
// objects, invalid data) takes the zod schemas, which stay the single source of truth: a
// property test checks that whatever this accepts, the schemas decode to a deep-equal event.

type Obj = Record<string, unknown>;

const isString = (v: unknown): v is string => typeof v === "string";
const optionalString = (v: unknown) => v === undefined || typeof v === "string";
const isJsonObject = (v: unknown) => isPlainObject(v) && isJsonValue(v);

function hasOnly(o: Obj, allowed: readonly string[]): boolean {
  for (const key in o) if (!allowed.includes(key)) return false;
  return true;
}

/** Whether `v` is a canonical `source` of an inquiry request. */
export function isSource(v: unknown): boolean {
  if (!isPlainObject(v)) return false;
  switch (v.source) {
    case "tool":
    case "other":
      return isString(v.name) && hasOnly(v, ["source", "name"]);
    case "assistant":
    case "user":
      return hasOnly(v, ["source"]);
    default:
      return false;
  }
}

function isOption(v: unknown): boolean {
  if (!isPlainObject(v) || !("value" in v) || !isJsonValue(v.value)) return false;
  return optionalString(v.description);
}

/** Whether `v` is a canonical `answer_type` of a question (its options' own keys unchecked). */
export function isAnswerType(v: unknown): boolean {
  if (!isPlainObject(v)) return false;
  switch (v.type) {
    case "boolean":
    case "text":
    case "secret":
      return hasOnly(v, ["type"]);
    case "select":
    case "multi_select":
      return (
        Array.isArray(v.options) && v.options.every(isOption) && hasOnly(v, ["type", "options"])
      );
    case "schema":
      return isJsonObject(v.schema) && hasOnly(v, ["type", "schema"]);
    default:
      return false;
  }
}

function isQuestion(v: unknown): boolean {
  if (!isPlainObject(v) || !isString(v.text) || !isAnswerType(v.answer_type)) return false;
  if ("default" in v && (v.default === null || !isJsonValue(v.default))) return false;
  if ("context" in v && !isString(v.context)) return false;
  if ("exclusive" in v && v.exclusive !== true) return false;
  return !("persistence" in v) || v.persistence === "none";
}

function isInquiryResponse(o: Obj): boolean {
  if (!isString(o.id)) return false;
  switch (o.outcome) {
    case "answered":
      return "answer" in o && isJsonValue(o.answer);
    case "cancelled":
      return isString(o.reason);
    case "redacted":
      return !("answer" in o);
    default:
      return false;
  }
}

function isChatResponse(o: Obj): boolean {
  if ("message" in o) return isString(o.message);
  if ("reasoning" in o) return isString(o.reasoning);
  return "data" in o && isJsonValue(o.data);
}

const fieldChecks: Readonly<Record<string, (o: Obj) => boolean>> = {
  turn_start: () => true,
  chat_request: (o) =>
    isString(o.content) &&
    (o.schema === undefined || isJsonObject(o.schema)) &&
    optionalString(o.author),
  chat_response: isChatResponse,
  tool_call_request: (o) => isString(o.id) && isString(o.name) && isJsonObject(o.arguments),
  tool_call_response: (o) =>
    isString(o.id) && isString(o.content) && typeof o.is_error === "boolean",
  inquiry_request: (o) => isString(o.id) && isSource(o.source) && isQuestion(o.question),
  inquiry_response: isInquiryResponse,
  config_delta: (o) => isJsonObject(o.delta),
};

/**
 * Whether `value` is a known event (or config delta) that is valid and already canonical.
 * `false` means "take the full decoder", not "invalid".
 */
export function isCanonicalEvent(value: unknown): boolean {
  if (!isPlainObject(value) || !isString(value.timestamp) || !isString(value.type)) return false;
  const check = Object.hasOwn(fieldChecks, value.type) ? fieldChecks[value.type] : undefined;
  if (check === undefined || !check(value)) return false;
  const { metadata } = value;
  return metadata === undefined || (isJsonObject(metadata) && Object.keys(metadata).length > 0);
}
