import type { JsonValue } from "@jp/conversation";
import { type AnswerType, defineQuestion, type Question, validateAnswer } from "@jp/tool";
import { err, ok, type Result } from "neverthrow";
import { cutText } from "../cut-text.js";

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
// A value of the model's, as JSON cut to 80 characters: an error quotes what it refers to, not a
// megabyte the model sent (a refusal goes back into the model's context).
const show = (v: unknown) => {
  const text = stringified(v);
  return cutText(text, 80);
};
// A value nested too deeply for JSON.stringify is named by its kind: the refusal still says
// what to change.
function stringified(v: unknown): string {
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return Array.isArray(v) ? "a deeply nested list" : "a deeply nested object";
  }
}
const TYPE_LIST = ASK_USER_ANSWER_TYPES.map((t) => `"${t}"`).join(", ");

// The arguments each level accepts: anything else is refused by name, never silently ignored.
const SINGLE_ARGUMENTS = ["question", "context", "answer_type", "options", "schema", "default"];
const FORM_QUESTION_ARGUMENTS = [
  "id",
  "text",
  "context",
  "answer_type",
  "options",
  "schema",
  "default",
  "when",
];
const WHEN_ARGUMENTS = ["question_id", "equals"];

// What a model used to another tool's shape sends instead (Opal's `choices`), and what to send.
const CHOICES_HINT = 'for a list of choices, use `answer_type: "select"` with `options`';
const TYPE_HINT = "the kind of answer goes in `answer_type`";
const SINGLE_HINTS = new Map([
  ["choices", CHOICES_HINT],
  ["type", TYPE_HINT],
  ["text", "the question goes in `question`"],
]);
const FORM_QUESTION_HINTS = new Map([
  ["choices", CHOICES_HINT],
  ["type", TYPE_HINT],
  ["question", "a form question goes in `text`"],
]);

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
  if (hasForm) {
    const unknown = unknownArguments(args, ["questions"], "", new Map());
    if (unknown.length > 0) {
      return err(
        `${names(unknown)} ${unknown.length === 1 ? "is" : "are"} not accepted beside \`questions\`: a form takes only \`questions\`; put each question's ${codeList(SINGLE_ARGUMENTS.slice(1))} inside its entry`,
      );
    }
    return parseForm(args.questions);
  }
  const unknown = unknownArguments(args, SINGLE_ARGUMENTS, "", SINGLE_HINTS);
  if (unknown.length > 0) {
    return err(
      `${unknownList(unknown)}; ask_user accepts ${codeList(SINGLE_ARGUMENTS)}, or a form in \`questions\``,
    );
  }
  return parseSingle(args);
}

/** An argument the level does not accept, as `at` + key, with a hint when one is known. */
interface Unknown {
  readonly name: string;
  readonly hint: string | undefined;
}

function unknownArguments(
  fields: Fields,
  accepted: readonly string[],
  at: string,
  hints: ReadonlyMap<string, string>,
): Unknown[] {
  return Object.keys(fields)
    .filter((key) => !accepted.includes(key))
    .map((key) => ({ name: `${at}${key}`, hint: hints.get(key) }));
}

// "unknown argument `choices` (for a list of choices, …)".
function unknownList(unknown: readonly Unknown[]): string {
  const hints = [...new Set(unknown.flatMap(({ hint }) => (hint === undefined ? [] : [hint])))];
  const why = hints.length === 0 ? "" : ` (${hints.join("; ")})`;
  return `unknown argument${unknown.length === 1 ? "" : "s"} ${names(unknown)}${why}`;
}

// The names, cut after five: a model that sends fifty keys needs the first few to see its mistake.
function names(unknown: readonly Unknown[]): string {
  const shown = unknown.slice(0, 5).map(({ name }) => code(name));
  return `${shown.join(", ")}${unknown.length > 5 ? ` and ${unknown.length - 5} more` : ""}`;
}

// A key is the model's text: quoted as JSON (and cut) unless it is a plain name.
function code(name: string): string {
  if (/^[A-Za-z0-9_.[\]-]{1,80}$/.test(name)) return `\`${name}\``;
  return JSON.stringify(cutText(name, 81));
}

function codeList(names: readonly string[]): string {
  const quoted = names.map((name) => `\`${name}\``);
  return `${quoted.slice(0, -1).join(", ")} and ${quoted.at(-1)}`;
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
  // Earlier questions by id: checking an entry's id and `when` costs the same in a form of a
  // thousand questions as in a form of three.
  const earlier = new Map<string, FormQuestion>();
  for (let i = 0; i < questions.length; i++) {
    const entry = parseFormEntry(questions[i], i, earlier);
    if (entry.isErr()) return err(entry.error);
    earlier.set(entry.value.question.id, entry.value);
  }
  return ok({ shape: "form", questions: [...earlier.values()] });
}

function parseFormEntry(
  entry: unknown,
  i: number,
  earlier: ReadonlyMap<string, FormQuestion>,
): Result<FormQuestion, Problem> {
  const at = `questions[${i}]`;
  if (!isRecord(entry)) {
    return err(`${at} must be an object with \`id\`, \`text\` and \`answer_type\``);
  }
  const raw = withoutNulls(entry);
  const unknown = unknownArguments(raw, FORM_QUESTION_ARGUMENTS, `${at}.`, FORM_QUESTION_HINTS);
  if (unknown.length > 0) {
    return err(
      `${unknownList(unknown)}; a question in \`questions\` accepts ${codeList(FORM_QUESTION_ARGUMENTS)}`,
    );
  }
  const { id, text } = raw;
  if (typeof id !== "string" || id === "")
    return err(`${at}.id is required and must be a non-empty string`);
  if (!/^[A-Za-z0-9_-]+$/.test(id)) {
    return err(`${at}.id ${show(id)} may only contain letters, digits, "_" and "-"`);
  }
  if (earlier.has(id)) {
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
  const when = parseWhen(raw.when, `${at}.when`, id, earlier);
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
  gated: string,
  earlier: ReadonlyMap<string, FormQuestion>,
): Result<When | undefined, Problem> {
  if (raw === undefined) return ok(undefined);
  if (!isRecord(raw) || typeof raw.question_id !== "string" || !("equals" in raw)) {
    return err(`${at} must be {"question_id": <an earlier question's id>, "equals": <value>}`);
  }
  const target = earlier.get(raw.question_id);
  if (target === undefined) {
    const known =
      earlier.size === 0 ? "there are no earlier questions" : `earlier ids: ${idList(earlier)}`;
    return err(
      `${at}.question_id ${show(raw.question_id)} does not name an earlier question (${known}); a \`when\` may only refer to questions before it`,
    );
  }
  const unknown = unknownArguments(withoutNulls(raw), WHEN_ARGUMENTS, `${at}.`, new Map());
  if (unknown.length > 0) {
    return err(
      `${unknownList(unknown)}; a \`when\` accepts only \`question_id\` and \`equals\` (an answer equal to \`equals\` asks the question)`,
    );
  }
  const impossible = impossibleGate(target, raw.equals);
  if (impossible !== undefined) {
    return err(`${at}.equals ${impossible}, so ${show(gated)} would never be asked`);
  }
  return ok({ question_id: raw.question_id, equals: raw.equals as JsonValue });
}

// The earlier ids, cut after twenty: in a form of thousands the list would drown the message.
function idList(earlier: ReadonlyMap<string, FormQuestion>): string {
  const shown: string[] = [];
  for (const id of earlier.keys()) {
    if (shown.length === 20) break;
    shown.push(cutText(id, 80));
  }
  const hidden = earlier.size - shown.length;
  return `${shown.join(", ")}${hidden > 0 ? ` and ${hidden} more` : ""}`;
}

/**
 * Why a gate on `target` can never open, if it cannot: `equals` is not an answer `target`
 * accepts (wrong type, not among its options), or is `null` for a question that is never
 * skipped (a skipped question's answer is `null`).
 */
function impossibleGate(target: FormQuestion, equals: unknown): Problem | undefined {
  const { id, answer_type } = target.question;
  if (equals === null) {
    if (target.when !== undefined) return undefined;
    return `is null, which matches only a question skipped by its own \`when\`, but ${show(id)} has no \`when\` and is always answered`;
  }
  const checked = validateAnswer(answer_type, equals);
  if (checked.isOk()) return undefined;
  const asSet = answer_type.type === "multi_select" ? ", compared as a set" : "";
  return `can never match: ${show(id)} is a ${answer_type.type} question${asSet} (${checked.error.message})`;
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
  // The builder's messages start with the field ("default is not a valid answer: …", or a path
  // such as "question.default: …"); name the fields as the model wrote them (`default`, `options`,
  // `schema`), not as the built question nests them.
  return defined.mapErr(
    (e) =>
      `${at}${e.message.replace(/^question\./, "").replace(/answer_type\.(options|schema)/g, "$1")}`,
  );
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
    const unseen = optionsProblem(options as string[], at);
    if (unseen !== undefined) return err(unseen);
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

/**
 * Why some options cannot be shown to a person as they are: a blank option cannot be seen or
 * picked, and whitespace around an option cannot be seen or typed back, so two options that differ
 * only by it look the same, as do two written with different code points for the same letters
 * (Unicode normalization). Every blank or padded option is named (up to twenty), so that one
 * correction fixes them all.
 */
function optionsProblem(options: readonly string[], at: string): Problem | undefined {
  const blank: number[] = [];
  const padded: number[] = [];
  const byText = new Map<string, number>();
  const byForm = new Map<string, number>();
  let twins: [number, number] | undefined;
  let lookalikes: [number, number] | undefined;
  for (let i = 0; i < options.length; i++) {
    const option = options[i] as string;
    const text = option.trim();
    if (text === "") {
      blank.push(i);
      continue;
    }
    if (text !== option) padded.push(i);
    const first = byText.get(text);
    if (first === undefined) byText.set(text, i);
    else if (twins === undefined && options[first] !== option) twins = [first, i];
    // The same letters written with other code points (a composed "é" and "e" + U+0301) look the
    // same on every screen.
    const form = text.normalize("NFC");
    const same = byForm.get(form);
    if (same === undefined) byForm.set(form, i);
    else if (lookalikes === undefined && (options[same] as string).trim() !== text) {
      lookalikes = [same, i];
    }
  }
  const name = (i: number) => `\`${at}options[${i}]\``;
  if (blank.length > 0) {
    return `\`${at}options\` must not hold blank options, which a person cannot see or pick: remove ${listed(blank, name)}`;
  }
  if (twins !== undefined) {
    const [a, b] = twins;
    return `${name(a)} ${show(options[a])} and ${name(b)} ${show(options[b])} differ only by leading or trailing whitespace, which a person cannot see: keep one, without the whitespace`;
  }
  if (lookalikes !== undefined) {
    const [a, b] = lookalikes;
    return `${name(a)} ${show(options[a])} and ${name(b)} ${show(options[b])} are the same text written with different Unicode code points (a composed and a decomposed accent, for example), which a person cannot tell apart: keep one`;
  }
  if (padded.length > 0) {
    const fix = (i: number) => `${name(i)} as ${show((options[i] as string).trim())}`;
    return `\`${at}options\` must not start or end with whitespace, which a person cannot see or type back as shown: send ${listed(padded, fix)}`;
  }
  return undefined;
}

// "a, b and c", cut after twenty: "a, b, … t and 980 more".
function listed(indices: readonly number[], render: (i: number) => string): string {
  const shown = indices.slice(0, 20).map(render);
  const hidden = indices.length - shown.length;
  if (hidden > 0) return `${shown.join(", ")} and ${hidden} more`;
  return shown.length === 1
    ? (shown[0] as string)
    : `${shown.slice(0, -1).join(", ")} and ${shown.at(-1)}`;
}
