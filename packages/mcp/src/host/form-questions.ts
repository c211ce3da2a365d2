import type { JsonObject, JsonValue } from "@jp/conversation";
import { type AnswerType, type Question, validateAnswer } from "@jp/tool";
import { err, ok, type Result } from "neverthrow";
import type { UnsupportedElicitation } from "../errors.js";
import { cutText, describeValue, isPlainObject, quoted } from "../internal/json.js";

/**
 * One field of an MCP elicitation form, as the question that asks it. The id is left to the
 * caller, which keeps ids unique within a tool call.
 */
export interface FormField {
  /** The property name: the key of this field's value in the `accept` content. */
  readonly name: string;
  readonly required: boolean;
  readonly question: Omit<Question, "id">;
  /**
   * For choices shown by their titles: each option label and the value the server gets for it.
   * Absent when the labels are the values themselves.
   */
  readonly values?: Readonly<Record<string, string>>;
  /**
   * For an optional choice: the option that leaves the field out (`(skip)`, or a longer label
   * when an option of the server's is already called that). Absent for a required field.
   */
  readonly skip?: string;
}

/** The option added to an optional choice: choosing it leaves the field out of the content. */
export const SKIP_OPTION = "(skip)";

/** The string formats MCP elicitation forms may use (all checked by the answer validator). */
export const ELICITATION_STRING_FORMATS = ["email", "uri", "date", "date-time"] as const;

/** A form with more fields than this is refused: a person fills forms, not questionnaires. */
export const MAX_FORM_FIELDS = 32;
/** A choice with more options than this is refused. */
export const MAX_FORM_OPTIONS = 256;
/**
 * The longest text a person is shown as a question or its context (an elicitation's message, a
 * field's description or default) and the longest `pattern`, in characters: a few screens.
 */
export const MAX_TEXT_LENGTH = 4096;
/** The longest name a form may use (a field's name or title, a choice's value or title). */
export const MAX_LABEL_LENGTH = 256;

// The texts of a property a person is shown (or that test their answer), and their limits.
const LENGTHS: readonly (readonly [string, number])[] = [
  ["title", MAX_LABEL_LENGTH],
  ["description", MAX_TEXT_LENGTH],
  ["default", MAX_TEXT_LENGTH],
  ["pattern", MAX_TEXT_LENGTH],
];

// Keywords that only annotate: accepted anywhere and ignored.
const ANNOTATIONS = ["title", "description", "$comment", "examples", "deprecated", "readOnly"];
const TOP_LEVEL_KEYS = ["type", "properties", "required", "$schema", "additionalProperties"];
const KEYS_BY_TYPE: Readonly<Record<string, readonly string[]>> = {
  string: ["minLength", "maxLength", "pattern", "format", "enum", "enumNames", "oneOf"],
  number: ["minimum", "maximum"],
  integer: ["minimum", "maximum"],
  boolean: [],
  array: ["items", "minItems", "maxItems", "uniqueItems"],
};

type Checked<T> = Result<T, UnsupportedElicitation>;

function unsupported(path: string, reason: string): Checked<never> {
  return err({
    kind: "unsupported-schema",
    message: `requestedSchema${path}: ${reason}`,
  });
}

// A key the server sent, as an error names it: cut short, since nothing bounds its length, and
// its controls and invisible characters escaped (the error reaches the host's log).
function keyName(key: string): string {
  return quoted(cutText(key, 64)).slice(1, -1);
}

function tooLarge(path: string, reason: string): Checked<never> {
  return err({ kind: "too-large", message: `requestedSchema${path}: ${reason}` });
}

/** Why `value`, a string, is longer than `limit` characters, or undefined when it is not. */
export function overLength(value: unknown, limit: number): string | undefined {
  if (typeof value !== "string" || value.length <= limit) return undefined;
  return `is ${value.length} characters long; at most ${limit} are shown`;
}

/**
 * Maps an MCP form elicitation's `requestedSchema` onto questions, one per field, in the order
 * the server listed them. `server` names the server to the person in each question's context.
 * Never throws: a schema outside MCP's flat subset is an `unsupported-schema` error naming the
 * offending path.
 *
 * | MCP property | answer type |
 * | --- | --- |
 * | `string` | `text` (optional: an empty answer leaves the field out) |
 * | `string` with `minLength` / `maxLength` / `pattern` / `format` | `schema` |
 * | `number`, `integer` (with `minimum` / `maximum`) | `schema` |
 * | `boolean` | `boolean` |
 * | `enum`, `oneOf` of `{const, title}`, legacy `enumNames` | `select` (titles shown; optional: a `(skip)` option) |
 * | `array` of `enum` / `anyOf` items | `multi_select`; with `minItems` / `maxItems`, `schema` |
 *
 * An optional `schema` field also takes `null`, and an optional choice its `(skip)` option, which
 * leave it out: a person is never made to choose among options none of which applies. A `default`
 * that fits becomes the question's default (pre-filled); one that does not is dropped.
 *
 * @example
 * const fields = questionsForElicitation(
 *   { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
 *   { server: "github" },
 * );
 */
export function questionsForElicitation(
  requestedSchema: unknown,
  options: { readonly server: string },
): Checked<readonly FormField[]> {
  if (!isPlainObject(requestedSchema)) {
    return unsupported("", `expected an object schema, got ${describeValue(requestedSchema)}`);
  }
  for (const key of Object.keys(requestedSchema)) {
    if (!TOP_LEVEL_KEYS.includes(key) && !ANNOTATIONS.includes(key)) {
      return unsupported(`.${keyName(key)}`, "is outside MCP's elicitation schema subset");
    }
  }
  if (requestedSchema.type !== "object") {
    return unsupported(".type", `expected "object", got ${describeValue(requestedSchema.type)}`);
  }
  const properties = requestedSchema.properties ?? {};
  if (!isPlainObject(properties)) {
    return unsupported(".properties", `expected an object, got ${describeValue(properties)}`);
  }
  const required = requestedSchema.required ?? [];
  if (!Array.isArray(required) || !required.every((name) => typeof name === "string")) {
    return unsupported(".required", "expected an array of property names");
  }
  const names = Object.keys(properties);
  if (names.length > MAX_FORM_FIELDS) {
    return unsupported(
      ".properties",
      `has ${names.length} fields; at most ${MAX_FORM_FIELDS} are asked`,
    );
  }
  // Checked first: every other refusal names the field.
  const long = names.find((name) => name.length > MAX_LABEL_LENGTH);
  if (long !== undefined) {
    return tooLarge(
      ".properties",
      `has a field name ${long.length} characters long; at most ${MAX_LABEL_LENGTH} are shown`,
    );
  }
  const unknown = required.find((name) => !Object.hasOwn(properties, name));
  if (unknown !== undefined) {
    return unsupported(".required", `names ${describeValue(unknown)}, which is not a property`);
  }
  const fields: FormField[] = [];
  for (const name of names) {
    const field = fieldFor(name, properties[name], required.includes(name), options.server);
    if (field.isErr()) return err(field.error);
    fields.push(field.value);
  }
  return ok(fields);
}

/** What a property maps to before the question is assembled. */
interface Mapped {
  readonly answerType: AnswerType;
  readonly values?: Readonly<Record<string, string>>;
  readonly skip?: string;
  /** Turns the property's `default` into an answer, or undefined when there is none. */
  readonly defaultAnswer?: JsonValue;
}

function fieldFor(
  name: string,
  property: unknown,
  required: boolean,
  server: string,
): Checked<FormField> {
  const path = `.properties[${quoted(name)}]`;
  if (!isPlainObject(property)) {
    return unsupported(path, `expected a property schema, got ${describeValue(property)}`);
  }
  const { type } = property;
  const allowed = typeof type === "string" ? KEYS_BY_TYPE[type] : undefined;
  if (allowed === undefined) {
    return unsupported(
      `${path}.type`,
      `expected "string", "number", "integer", "boolean" or "array", got ${describeValue(type)}`,
    );
  }
  for (const key of Object.keys(property)) {
    if (key !== "type" && key !== "default" && !allowed.includes(key) && !ANNOTATIONS.includes(key))
      return unsupported(`${path}.${keyName(key)}`, `is outside MCP's elicitation schema subset`);
  }
  for (const key of ["title", "description"]) {
    if (property[key] !== undefined && typeof property[key] !== "string")
      return unsupported(`${path}.${key}`, "expected a string");
  }
  for (const [key, limit] of LENGTHS) {
    const reason = overLength(property[key], limit);
    if (reason !== undefined) return tooLarge(`${path}.${key}`, reason);
  }
  const mapped = mapProperty(path, property, required);
  if (mapped.isErr()) return err(mapped.error);
  const { answerType, values, skip, defaultAnswer } = mapped.value;
  const title = typeof property.title === "string" && property.title !== "" ? property.title : name;
  const context = [`MCP server "${server}"`];
  if (typeof property.description === "string" && property.description !== "")
    context.push(property.description);
  const hint = optionalHint(answerType, required, skip);
  if (hint !== undefined) context.push(hint);
  const question: Omit<Question, "id"> = {
    text: title,
    context: context.join("\n"),
    answer_type: answerType,
  };
  const fits = defaultAnswer !== undefined && validateAnswer(answerType, defaultAnswer).isOk();
  return ok({
    name,
    required,
    question: fits ? { ...question, default: defaultAnswer } : question,
    ...(values === undefined ? {} : { values }),
    ...(skip === undefined ? {} : { skip }),
  });
}

function optionalHint(
  answerType: AnswerType,
  required: boolean,
  skip: string | undefined,
): string | undefined {
  if (required) return undefined;
  if (answerType.type === "text") return "Optional: leave it empty to skip it.";
  if (answerType.type === "schema") return "Optional: answer null to skip it.";
  if (skip !== undefined) return `Optional: choose "${skip}" to skip it.`;
  return undefined;
}

function mapProperty(path: string, property: JsonObject, required: boolean): Checked<Mapped> {
  switch (property.type) {
    case "boolean":
      // Yes or no, optional or not: a third answer would take the person's plain yes/no prompt
      // away, and an optional yes/no left out means no more than "no".
      return ok({ answerType: { type: "boolean" }, ...defaultOf(property.default) });
    case "number":
    case "integer":
      return mapNumber(path, property, required);
    case "array":
      return mapArray(path, property, required);
    default:
      return mapString(path, property, required);
  }
}

function defaultOf(value: JsonValue | undefined): { defaultAnswer?: JsonValue } {
  return value === undefined ? {} : { defaultAnswer: value };
}

function mapNumber(path: string, property: JsonObject, required: boolean): Checked<Mapped> {
  const schema: JsonObject = { type: property.type as string };
  for (const key of ["minimum", "maximum"]) {
    const bound = property[key];
    if (bound === undefined) continue;
    if (typeof bound !== "number" || !Number.isFinite(bound))
      return unsupported(`${path}.${key}`, `expected a number, got ${describeValue(bound)}`);
    schema[key] = bound;
  }
  return ok({ answerType: schemaType(schema, required), ...defaultOf(property.default) });
}

function mapString(path: string, property: JsonObject, required: boolean): Checked<Mapped> {
  if (property.enum !== undefined || property.oneOf !== undefined) {
    const choices = choicesOf(path, property);
    if (choices.isErr()) return err(choices.error);
    const { options, values } = choices.value;
    const answer = property.default === undefined ? undefined : labelOf(property.default, values);
    const skip = required ? undefined : skipLabel(options);
    return ok({
      answerType: { type: "select", options: skip === undefined ? options : [...options, skip] },
      ...(values === undefined ? {} : { values }),
      ...(skip === undefined ? {} : { skip }),
      ...defaultOf(answer),
    });
  }
  const schema: JsonObject = { type: "string" };
  for (const key of ["minLength", "maxLength"]) {
    const bound = property[key];
    if (bound === undefined) continue;
    if (typeof bound !== "number" || !Number.isInteger(bound) || bound < 0)
      return unsupported(
        `${path}.${key}`,
        `expected a whole number ≥ 0, got ${describeValue(bound)}`,
      );
    schema[key] = bound;
  }
  const { pattern, format } = property;
  if (pattern !== undefined) {
    if (typeof pattern !== "string" || !compiles(pattern))
      return unsupported(`${path}.pattern`, "expected a valid regular expression");
    schema.pattern = pattern;
  }
  if (format !== undefined) {
    if (!(ELICITATION_STRING_FORMATS as readonly unknown[]).includes(format))
      return unsupported(
        `${path}.format`,
        `expected one of ${ELICITATION_STRING_FORMATS.join(", ")}, got ${describeValue(format)}`,
      );
    schema.format = format as string;
  }
  const plain = Object.keys(schema).length === 1;
  return ok({
    answerType: plain ? { type: "text" } : schemaType(schema, required),
    ...defaultOf(property.default),
  });
}

function mapArray(path: string, property: JsonObject, required: boolean): Checked<Mapped> {
  const { items } = property;
  if (!isPlainObject(items)) {
    return unsupported(`${path}.items`, "expected the schema of the choices (enum or anyOf)");
  }
  for (const key of Object.keys(items)) {
    if (!["type", "enum", "anyOf", ...ANNOTATIONS].includes(key))
      return unsupported(
        `${path}.items.${keyName(key)}`,
        "is outside MCP's elicitation schema subset",
      );
  }
  if (items.type !== undefined && items.type !== "string") {
    return unsupported(`${path}.items.type`, `expected "string", got ${describeValue(items.type)}`);
  }
  const listed: JsonObject = {};
  if (items.enum !== undefined) listed.enum = items.enum;
  if (items.anyOf !== undefined) listed.oneOf = items.anyOf;
  const choices = choicesOf(`${path}.items`, listed, "anyOf");
  if (choices.isErr()) return err(choices.error);
  const { options, values } = choices.value;
  const bounds: JsonObject = {};
  for (const key of ["minItems", "maxItems"]) {
    const bound = property[key];
    if (bound === undefined) continue;
    if (typeof bound !== "number" || !Number.isInteger(bound) || bound < 0)
      return unsupported(
        `${path}.${key}`,
        `expected a whole number ≥ 0, got ${describeValue(bound)}`,
      );
    bounds[key] = bound;
  }
  const fallback = property.default;
  const answer = Array.isArray(fallback)
    ? fallback.map((value) => labelOf(value, values) ?? null)
    : undefined;
  const answerType: AnswerType =
    Object.keys(bounds).length === 0
      ? { type: "multi_select", options }
      : schemaType(
          {
            type: "array",
            items: { type: "string", enum: options },
            uniqueItems: true,
            ...bounds,
          },
          required,
        );
  return ok({ answerType, ...(values === undefined ? {} : { values }), ...defaultOf(answer) });
}

interface Choices {
  readonly options: string[];
  readonly values?: Readonly<Record<string, string>>;
}

// `enum` (with legacy `enumNames`) or `oneOf`/`anyOf` of `{const, title}`. Options show titles
// when every choice has a distinct one; the answer is mapped back to the value.
function choicesOf(path: string, property: JsonObject, titled = "oneOf"): Checked<Choices> {
  let pairs: { value: string; title?: string }[];
  if (property.enum !== undefined) {
    const { enum: values, enumNames: names } = property;
    if (!Array.isArray(values) || !values.every((value) => typeof value === "string"))
      return unsupported(`${path}.enum`, "expected an array of strings");
    if (names !== undefined) {
      const fits =
        Array.isArray(names) &&
        names.length === values.length &&
        names.every((title) => typeof title === "string");
      if (!fits) return unsupported(`${path}.enumNames`, "expected one string per enum value");
    }
    pairs = values.map((value, i) => {
      const title = Array.isArray(names) ? names[i] : undefined;
      return typeof title === "string" ? { value, title } : { value };
    });
  } else {
    const list = property.oneOf;
    if (!Array.isArray(list))
      return unsupported(`${path}.${titled}`, "expected an array of {const, title} choices");
    pairs = [];
    for (const [i, choice] of list.entries()) {
      const ok =
        isPlainObject(choice) &&
        typeof choice.const === "string" &&
        (choice.title === undefined || typeof choice.title === "string") &&
        Object.keys(choice).every((key) => ["const", "title", "description"].includes(key));
      if (!ok)
        return unsupported(`${path}.${titled}[${i}]`, "expected {const: string, title?: string}");
      const { const: value, title } = choice as { const: string; title?: string };
      pairs.push(title === undefined ? { value } : { value, title });
    }
  }
  if (pairs.length === 0) return unsupported(path, "offers no choices");
  for (const [i, pair] of pairs.entries()) {
    const reason =
      overLength(pair.value, MAX_LABEL_LENGTH) ?? overLength(pair.title, MAX_LABEL_LENGTH);
    if (reason !== undefined) return tooLarge(`${path} choice ${i + 1}`, reason);
  }
  if (pairs.length > MAX_FORM_OPTIONS)
    return unsupported(
      path,
      `offers ${pairs.length} choices; at most ${MAX_FORM_OPTIONS} are shown`,
    );
  const values = pairs.map((pair) => pair.value);
  if (new Set(values).size !== values.length) return unsupported(path, "repeats a choice");
  const titles = pairs.map((pair) => pair.title);
  const showTitles =
    titles.every((title): title is string => title !== undefined && title !== "") &&
    new Set(titles).size === titles.length;
  if (!showTitles) return ok({ options: values });
  return ok({
    options: titles,
    values: Object.fromEntries(pairs.map((pair) => [pair.title as string, pair.value])),
  });
}

function labelOf(
  value: JsonValue,
  values: Readonly<Record<string, string>> | undefined,
): string | undefined {
  if (typeof value !== "string") return undefined;
  if (values === undefined) return value;
  return Object.keys(values).find((label) => values[label] === value);
}

// The skip option's label: one no option of the server's already has.
function skipLabel(options: readonly string[]): string {
  let label = SKIP_OPTION;
  for (let n = 2; options.includes(label); n++) label = `(skip ${n})`;
  return label;
}

// An optional field's schema also takes null, the person's way to leave it out.
function schemaType(schema: JsonObject, required: boolean): AnswerType {
  return {
    type: "schema",
    schema: required ? schema : { anyOf: [schema, { type: "null" }] },
  };
}

function compiles(pattern: string): boolean {
  try {
    new RegExp(pattern, "u");
    return true;
  } catch {
    return false;
  }
}

/**
 * The `accept` content for answers to a form's fields, keyed by field name: choice labels become
 * their values, and an optional field answered empty (`""` for text, `null` otherwise) is left
 * out.
 */
export function elicitationContent(
  fields: readonly FormField[],
  answers: ReadonlyMap<string, JsonValue>,
): JsonObject {
  const entries: [string, JsonValue][] = [];
  for (const field of fields) {
    const answer = answers.get(field.name);
    if (answer === undefined) continue;
    const value = fieldContent(field, answer);
    if (value !== undefined) entries.push([field.name, value]);
  }
  // fromEntries defines own properties, so a field named "__proto__" stays a field.
  return Object.fromEntries(entries);
}

/** What one field's answer sends in the `accept` content, or undefined when it is left out. */
export function fieldContent(field: FormField, answer: JsonValue): JsonValue | undefined {
  if (!field.required && (answer === null || answer === "")) return undefined;
  if (field.skip !== undefined && answer === field.skip) return undefined;
  return wireValue(answer, field.values);
}

function wireValue(
  answer: JsonValue,
  values: Readonly<Record<string, string>> | undefined,
): JsonValue {
  if (values === undefined) return answer;
  const map = (item: JsonValue): JsonValue =>
    typeof item === "string" && Object.hasOwn(values, item) ? (values[item] as string) : item;
  return Array.isArray(answer) ? answer.map(map) : map(answer);
}
