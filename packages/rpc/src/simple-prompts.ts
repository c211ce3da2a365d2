import type {
  DeliverPromptRequest,
  PermissionPromptRequest,
  PromptRequest,
  QuestionPromptRequest,
} from "@jp/coordinator";
import { err, ok, type Result } from "neverthrow";
import type { PromptReply } from "./protocol.js";

// How a prompt reaches a client that announced `prompts: "simple"` (or speaks Opal's protocol):
// Opal's `client/ask_user`, a question string with optional choices, answered by one string.
// What that cannot express is refused here rather than approximated; the reason reaches the
// model, so it says what this person can answer.

/**
 * How `client/ask_user` params are written: `jp` leaves `choices` out for a free-text answer;
 * `opal` always sends it (`[]` for free text), as Opal's own server does.
 */
export type SimpleDialect = "jp" | "opal";

/** A prompt as a `client/ask_user` call: what to send and how to read the answer back. */
export interface AskUserPlan {
  readonly question: string;
  /** Absent (`jp`) or empty (`opal`) for a free-text answer. */
  readonly choices?: readonly string[];
  /** The reply an answer stands for; an error when the answer means nothing for this prompt. */
  readonly decode: (answer: string) => Result<PromptReply, string>;
}

type AnswerType = QuestionPromptRequest["question"]["answer_type"];
type JsonValue = Extract<PromptReply, { type: "answer" }>["value"];

/** How one answer type travels: its choices and how the answer string maps back. */
export type SimpleQuestionRule =
  | {
      readonly choices: (answerType: AnswerType) => readonly string[] | undefined;
      readonly decode: (answer: string) => JsonValue;
    }
  | { readonly unsupported: string };

const normalise = (answer: string) => answer.trim().toLowerCase();

/** Answers read as yes and no, case-insensitively. A `Map`, so `"constructor"` matches nothing. */
export const YES_NO_WORDS: ReadonlyMap<string, boolean> = new Map([
  ["yes", true],
  ["y", true],
  ["true", true],
  ["no", false],
  ["n", false],
  ["false", false],
]);

/**
 * The question rules, per answer type. An unrecognised boolean answer is passed on as the raw
 * string: the coordinator rejects it and asks again with the reason, which the question text
 * then carries.
 */
export const SIMPLE_QUESTION_RULES: Readonly<Record<AnswerType["type"], SimpleQuestionRule>> = {
  boolean: {
    choices: () => ["yes", "no"],
    decode: (answer) => YES_NO_WORDS.get(normalise(answer)) ?? answer,
  },
  select: {
    choices: (answerType) => (answerType.type === "select" ? answerType.options : []),
    decode: (answer) => answer,
  },
  text: { choices: () => undefined, decode: (answer) => answer },
  multi_select: {
    unsupported:
      "a multi_select question takes several choices, and their client returns a single answer",
  },
  secret: {
    unsupported:
      "a secret question needs hidden input, which their client does not promise (so the question was not sent)",
  },
  schema: {
    unsupported:
      "a schema question needs a structured JSON answer, and their client returns one line of text",
  },
};

/** The answer types a simple client can answer, in table order, e.g. `boolean, select and text`. */
export function answerableTypes(): string {
  const types = Object.entries(SIMPLE_QUESTION_RULES)
    .filter(([, rule]) => !("unsupported" in rule))
    .map(([type]) => type);
  return types.length < 2
    ? types.join("")
    : `${types.slice(0, -1).join(", ")} and ${types.at(-1) as string}`;
}

/** Which words pick which reply for the two-way permission and delivery prompts. */
const TWO_WAY: Readonly<Record<"permission" | "deliver", readonly [string, string]>> = {
  permission: ["run", "skip"],
  deliver: ["deliver", "skip"],
};

/**
 * Plans a prompt for a simple client, or says why it cannot be shown to one, in words for the
 * model that name what this person can answer. A permission or delivery prompt in `edit` mode
 * is refused: editing needs a rich client.
 *
 * @example
 * planAskUser(request).map((plan) => ({ question: plan.question, choices: plan.choices }));
 */
export function planAskUser(
  request: PromptRequest,
  dialect: SimpleDialect = "jp",
): Result<AskUserPlan, string> {
  switch (request.kind) {
    case "question":
      return planQuestion(request, dialect);
    case "permission":
    case "deliver":
      return planTwoWay(request);
  }
}

function planQuestion(
  request: QuestionPromptRequest,
  dialect: SimpleDialect,
): Result<AskUserPlan, string> {
  const { question } = request;
  const rule = SIMPLE_QUESTION_RULES[question.answer_type.type];
  if ("unsupported" in rule) {
    return err(`this person can only answer ${answerableTypes()} questions: ${rule.unsupported}`);
  }
  const header = request.prompt_label === undefined ? "" : `${request.prompt_label}: `;
  const text = [
    question.context,
    `${header}${question.text}`,
    request.error === undefined ? undefined : `(${request.error})`,
  ]
    .filter((part) => part !== undefined && part !== "")
    .join("\n\n");
  const choices = rule.choices(question.answer_type) ?? (dialect === "opal" ? [] : undefined);
  return ok({
    question: text,
    ...(choices === undefined ? {} : { choices }),
    decode: (answer) => ok({ type: "answer", value: rule.decode(answer) }),
  });
}

function planTwoWay(
  request: PermissionPromptRequest | DeliverPromptRequest,
): Result<AskUserPlan, string> {
  if (request.mode === "edit") {
    const [yes, no] = TWO_WAY[request.kind];
    return err(
      `this person can only answer "${yes}" or "${no}" here: a ${request.kind} prompt in edit mode needs an editor, which their client lacks`,
    );
  }
  const [yes, no] = TWO_WAY[request.kind];
  const replies = new Map<string, PromptReply>([
    [yes, request.kind === "permission" ? { type: "run" } : { type: "deliver" }],
    [no, { type: "skip" }],
  ]);
  return ok({
    question: twoWayQuestion(request),
    choices: [yes, no],
    decode: (answer) => {
      const word = normalise(answer);
      const yesNo = YES_NO_WORDS.get(word);
      const reply = replies.get(yesNo === undefined ? word : yesNo ? yes : no);
      return reply === undefined
        ? err(`expected "${yes}" or "${no}", got ${JSON.stringify(answer)}`)
        : ok(reply);
    },
  });
}

function twoWayQuestion(request: PermissionPromptRequest | DeliverPromptRequest): string {
  if (request.kind === "permission") {
    const source = request.tool_source === undefined ? "" : ` (${request.tool_source})`;
    return `Run the tool "${request.tool_name}"${source} with arguments ${JSON.stringify(request.arguments)}?`;
  }
  const what = request.is_error ? "error result" : "result";
  return `Deliver this ${what} of the tool "${request.tool_name}" to the assistant?\n\n${request.content}`;
}
