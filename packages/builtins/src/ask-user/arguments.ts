import type { JsonValue } from "@jp/conversation";
import { type AnswerType, defineQuestion, type Question } from "@jp/tool";
import { err, ok, type Result } from "neverthrow";

/** The answer types the model may ask for. */
export const ASK_USER_ANSWER_TYPES = [
  "boolean",
  "select",
  "multi_select",
  "text",
  "schema",
] as const;
type AnswerTypeName = (typeof ASK_USER_ANSWER_TYPES)[number];

/** Gates a question on an earlier answer: asked only when that answer equals `equals`. */
export interface When {
  readonly question_id: string;
  readonly equals: JsonValue;
}

/** One validated question of a form. */
export interface FormQuestion {
  readonly question: Question;
  readonly when?: When;
}

/**
 * What the model asked for: one question (RFD 083's shape, answered as
 * `{"answer_type", "answer"}`), or a form (RFD D30's `questions`, answered as `{id: answer}`).
 */
export type AskUserRequest =
  | { readonly shape: "single"; readonly question: Question }
  | { readonly shape: "form"; readonly questions: readonly FormQuestion[] };

/** The id of the single question (its answer's slot in `conversation.tools.ask_user.questions`). */
export const SINGLE_QUESTION_ID = "answer";

type Problem = string;
type Fields = Readonly<Record<string, unknown>>;

const isRecord = (v: unknown): v is Fields =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const show = (v: unknown) =>
  typeof v === "string" ? JSON.stringify(v) : (JSON.stringify(v) ?? String(v));
const TYPE_LIST = ASK_USER_ANSWER_TYPES.map((t) => `"${t}"`).join(", ");

/**
 * Validates `ask_user`'s arguments. Every refusal says what to change, so the model can correct
 * its call; nothing here is asked before the whole submission is valid.
 */
export function parseAskUserArguments(input: unknown): Result<AskUserRequest, Problem> {
  if (!isRecord(input)) return err("the arguments must be a JSON object");
  const args = withoutNulls(input);
  const hasSingle = args.question !== undefined;
  const hasForm = args.questions !== undefined;
  if (hasSingle && hasForm) {
    return err("give either `question` (one question) or `questions` (a form), not both");
  }
  if (hasForm) return parseForm(args.questions);
  return parseSingle(args);
}

function parseSingle(args: Fields): Result<AskUserRequest, Problem> {
  const { question } = args;
  if (typeof question !== "string" || question.trim() === "") {
    return err(
      "`question` is required and must be a non-empty string (or send a form in `questions`)",
    );
  }
  if (/[\r\n]/.test(question)) {
    return err("`question` must be a single line; put multi-line material in `context`");
  }
  const built = buildQuestion(SINGLE_QUESTION_ID, question, args, "");
  return built.map((q) => ({ shape: "single" as const, question: q }));
}

function parseForm(questions: unknown): Result<AskUserRequest, Problem> {
  if (!Array.isArray(questions) || questions.length === 0) {
    return err("`questions` must be a non-empty array of questions");
  }
  const parsed: FormQuestion[] = [];
  for (let i = 0; i < questions.length; i++) {
    const entry = parseFormEntry(questions[i], i, parsed);
    if (entry.isErr()) return err(entry.error);
    parsed.push(entry.value);
  }
  return ok({ shape: "form", questions: parsed });
}

function parseFormEntry(
  entry: unknown,
  i: number,
  earlier: readonly FormQuestion[],
): Result<FormQuestion, Problem> {
  const at = `questions[${i}]`;
  if (!isRecord(entry)) {
    return err(`${at} must be an object with \`id\`, \`text\` and \`answer_type\``);
  }
  const raw = withoutNulls(entry);
  const { id, text } = raw;
  if (typeof id !== "string" || id === "")
    return err(`${at}.id is required and must be a non-empty string`);
  if (!/^[A-Za-z0-9_-]+$/.test(id)) {
    return err(`${at}.id ${show(id)} may only contain letters, digits, "_" and "-"`);
  }
  if (earlier.some((q) => q.question.id === id)) {
    return err(`${at}.id ${show(id)} is used by an earlier question; every id must be unique`);
  }
  if (typeof text !== "string" || text.trim() === "") {
    return err(`${at}.text is required and must be a non-empty string`);
  }
  if (/[\r\n]/.test(text))
    return err(`${at}.text must be a single line; put multi-line material in \`context\``);
  if (raw.answer_type === undefined)
    return err(`${at}.answer_type is required: one of ${TYPE_LIST}`);
  const question = buildQuestion(id, text, raw, `${at}.`);
  if (question.isErr()) return err(question.error);
  const when = parseWhen(raw.when, `${at}.when`, earlier);
  if (when.isErr()) return err(when.error);
  return ok(
    when.value === undefined
      ? { question: question.value }
      : { question: question.value, when: when.value },
  );
}

function parseWhen(
  raw: unknown,
  at: string,
  earlier: readonly FormQuestion[],
): Result<When | undefined, Problem> {
  if (raw === undefined) return ok(undefined);
  if (!isRecord(raw) || typeof raw.question_id !== "string" || !("equals" in raw)) {
    return err(`${at} must be {"question_id": <an earlier question's id>, "equals": <value>}`);
  }
  const ids = earlier.map((q) => q.question.id);
  if (!ids.includes(raw.question_id)) {
    const known =
      ids.length === 0 ? "there are no earlier questions" : `earlier ids: ${ids.join(", ")}`;
    return err(
      `${at}.question_id ${show(raw.question_id)} does not name an earlier question (${known}); a \`when\` may only refer to questions before it`,
    );
  }
  return ok({ question_id: raw.question_id, equals: raw.equals as JsonValue });
}

// Some providers send `null` for every optional argument the model did not use: read it as absent.
function withoutNulls(fields: Fields): Fields {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== null));
}

// The answer type, options, schema, default and context of one question, as the tool authors
// it: human-only and never remembered (RFD 083).
function buildQuestion(
  id: string,
  text: string,
  raw: Fields,
  at: string,
): Result<Question, Problem> {
  const answerType = parseAnswerType(raw, at);
  if (answerType.isErr()) return err(answerType.error);
  const context = raw.context;
  if (context !== undefined && typeof context !== "string")
    return err(`\`${at}context\` must be a string`);
  const defined = defineQuestion({
    id,
    text,
    answer_type: answerType.value,
    exclusive: true,
    persistence: "none",
    ...(context === undefined || context === "" ? {} : { context }),
    ...(raw.default === undefined || raw.default === null
      ? {}
      : { default: raw.default as JsonValue }),
  });
  // The builder's messages start with the field ("default is not a valid answer: …"); name the
  // fields as the model wrote them (`options`, `schema`), not as the built question nests them.
  return defined.mapErr((e) => `${at}${e.message.replace(/answer_type\.(options|schema)/g, "$1")}`);
}

function parseAnswerType(raw: Fields, at: string): Result<AnswerType, Problem> {
  const name = raw.answer_type ?? "text";
  if (typeof name !== "string" || !(ASK_USER_ANSWER_TYPES as readonly string[]).includes(name)) {
    return err(`\`${at}answer_type\` must be one of ${TYPE_LIST}; got ${show(name)}`);
  }
  const type = name as AnswerTypeName;
  const takesOptions = type === "select" || type === "multi_select";
  const { options, schema } = raw;
  if (!takesOptions && options !== undefined) {
    return err(
      `\`${at}options\` is only allowed when \`answer_type\` is "select" or "multi_select"; remove it or change \`answer_type\``,
    );
  }
  if (type !== "schema" && schema !== undefined) {
    return err(
      `\`${at}schema\` is only allowed when \`answer_type\` is "schema"; remove it or change \`answer_type\``,
    );
  }
  if (takesOptions) {
    if (
      !Array.isArray(options) ||
      options.length === 0 ||
      !options.every((o) => typeof o === "string")
    ) {
      return err(
        `\`${at}options\` is required when \`answer_type\` is "${type}": a non-empty list of strings`,
      );
    }
    return ok({ type, options: options as string[] });
  }
  if (type === "schema") {
    if (!isRecord(schema))
      return err(
        `\`${at}schema\` is required when \`answer_type\` is "schema": a JSON Schema object`,
      );
    return ok({ type, schema: schema as Record<string, JsonValue> });
  }
  return ok({ type });
}
