import type { PromptRequest, QuestionPromptRequest, ReplyFor } from "@jp/coordinator";
import { type PromptReply, REPLY_SCHEMAS } from "@jp/rpc";
import { validateAnswer } from "@jp/tool";

/** One problem with a field of a schema answer, located by JSON pointer (`""` is the root). */
export interface FieldProblem {
  readonly path: string;
  readonly message: string;
}

/** Why the page's reply was not accepted; shown beside the field so the person can correct it. */
export interface ReplyProblem {
  readonly message: string;
  /** For schema answers: the problems by field, when the validator named the fields. */
  readonly fields?: readonly FieldProblem[];
}

/** A reply the page posted, checked against the prompt it answers. */
export type CheckedReply<R extends PromptRequest> =
  | { readonly ok: true; readonly reply: ReplyFor<R> }
  | { readonly ok: false; readonly problem: ReplyProblem };

/** The question controls a reply type needs; `answer` and `cancelled` are always allowed. */
const CONTROL_OF_REPLY: Readonly<Record<string, keyof QuestionPromptRequest["controls"]>> = {
  back: "back",
  reply: "reply",
  end_turn: "end_turn",
};

/** Words for the controls in refusals. */
const CONTROL_WORDS: Readonly<Record<keyof QuestionPromptRequest["controls"], string>> = {
  back: "Back",
  reply: "Reply",
  end_turn: "End Turn",
  remember: "remember for this turn",
};

/**
 * Checks what the page posted as the reply to `request`: the reply's shape for the prompt's
 * kind, that a control used is one the prompt offered, and that an answer fits the question's
 * answer type (`validateAnswer`, the same check the coordinator applies). Messages never quote
 * the posted values, so a secret answer cannot reach one.
 */
export function checkReply<R extends PromptRequest>(request: R, body: unknown): CheckedReply<R> {
  const parsed = REPLY_SCHEMAS[request.kind].safeParse(body);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => {
      const where = issue.path.length === 0 ? "" : `${issue.path.join(".")}: `;
      return `${where}${issue.message}`;
    });
    return refuse(`not a ${request.kind} reply (${issues.join("; ")})`);
  }
  const reply: PromptReply = parsed.data;
  if (request.kind === "question") {
    const problem = checkQuestionReply(request, reply);
    if (problem !== undefined) return { ok: false, problem };
  }
  return { ok: true, reply: reply as ReplyFor<R> };
}

function checkQuestionReply(
  request: QuestionPromptRequest,
  reply: PromptReply,
): ReplyProblem | undefined {
  const control = CONTROL_OF_REPLY[reply.type];
  if (control !== undefined && !request.controls[control]) {
    return { message: `${CONTROL_WORDS[control]} is not offered for this question` };
  }
  if (reply.type !== "answer") return undefined;
  if ("remember" in reply && reply.remember === true && !request.controls.remember) {
    return { message: `${CONTROL_WORDS.remember} is not offered for this question` };
  }
  const checked = validateAnswer(request.question.answer_type, reply.value);
  // A schema that does not compile is the tool's fault, not the person's: the coordinator, which
  // checks every answer again, records that honestly, so the answer is passed on.
  if (checked.isOk() || checked.error.kind === "invalid-schema") return undefined;
  const { message } = checked.error;
  return request.question.answer_type.type === "schema"
    ? { message, fields: fieldProblems(message) }
    : { message };
}

const SCHEMA_PREFIX = "does not match the JSON Schema: ";

/**
 * Splits `validateAnswer`'s schema message (`/age: must be integer; /name: must be string`) into
 * problems by field, so the page can show each next to its input. Parts it cannot place go to
 * the root (`""`).
 */
export function fieldProblems(message: string): FieldProblem[] {
  if (!message.startsWith(SCHEMA_PREFIX)) return [{ path: "", message }];
  const body = message.slice(SCHEMA_PREFIX.length).replace(/ \(and \d+ more\)$/, "");
  return body.split("; ").map((part) => {
    const match = /^(\(root\)|\/[^:]*): (.*)$/s.exec(part);
    if (match === null) return { path: "", message: part };
    const [, where = "", what = part] = match;
    return { path: where === "(root)" ? "" : where, message: what };
  });
}

function refuse(message: string): { readonly ok: false; readonly problem: ReplyProblem } {
  return { ok: false, problem: { message } };
}
