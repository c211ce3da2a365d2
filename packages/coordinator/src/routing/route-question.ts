import type { JsonValue } from "@jp/conversation";
import { isExclusive, type Question, reusePolicy, validateAnswer } from "@jp/tool";
import { configPath } from "../config/resolve.js";
import type { DetachedMode, QuestionConfig } from "../config/schema.js";
import {
  assistantDeniedMessage,
  DETACHED_CAUSES,
  DETACHED_CAUSES_FOR_HOSTS,
  invalidStaticAnswerMessage,
  noHumanMessage,
} from "./messages.js";

/** Why a question was refused; each is recorded as the `cancelled` response's reason. */
export type RefusalReason =
  | "invalid_static_answer"
  | "no_prompt_backend"
  | "assistant_routing_denied";

/** Who answers a question. The coordinator records the outcome of whichever route ran. */
export type Route =
  | { readonly type: "static"; readonly answer: JsonValue }
  | { readonly type: "remembered"; readonly answer: JsonValue }
  | { readonly type: "prompt" }
  | { readonly type: "inquiry" }
  | { readonly type: "default"; readonly answer: JsonValue }
  | {
      readonly type: "refuse";
      readonly reason: RefusalReason;
      /** What the model reads: short, and honest about who decided. */
      readonly message: string;
      /** What the host reads: the cause and the configuration key that would change it. */
      readonly explanation: string;
    };

/** Why no human can be asked (see {@link RouteInput.unreachable}). */
export type UnreachableCause = keyof typeof DETACHED_CAUSES;

/** Everything {@link routeQuestion} decides from. */
export interface RouteInput {
  readonly toolName: string;
  readonly question: Question;
  /** `conversation.tools.<tool>.questions.<id>`, if configured. */
  readonly config?: QuestionConfig | undefined;
  /** Whether a human can answer now (false under `--non-interactive`). */
  readonly humanReachable: boolean;
  /** The tool's detached policy for the `tool` prompt kind. */
  readonly detached: DetachedMode;
  /** The answer remembered this turn for `<tool>.<question id>`, if any. */
  readonly remembered?: JsonValue | undefined;
  /**
   * Why no human is reachable, when none is: `--non-interactive`, no prompt backend, or the
   * backend says nobody is there (the default). Only changes the wording of refusals.
   */
  readonly unreachable?: UnreachableCause | undefined;
  /**
   * Where the question's configured answer was written: `"own"` (`questions.<id>`, the
   * default) or `"*"` (`questions."*"`), so a misfit names the key the user actually wrote.
   */
  readonly answerFrom?: "own" | "*";
}

type Rule = (input: RouteInput) => Route | undefined;

/** The question may only be answered by a human: `secret`, or effectively `exclusive`. */
export function isHumanOnly(question: Question, config: QuestionConfig | undefined): boolean {
  // A config override may soften `exclusive`, never the secret guard.
  if (question.answer_type.type === "secret") return true;
  return config?.exclusive ?? isExclusive(question);
}

/** The configured target: a map of assistant overrides means `assistant`. */
export function targetOf(config: QuestionConfig | undefined): "user" | "assistant" {
  const target = config?.target ?? "user";
  return target === "user" ? "user" : "assistant";
}

const key = (toolName: string, rest: string) => `${configPath([toolName])}.${rest}`;
const questionKey = (toolName: string, id: string) => `${configPath([toolName, "questions", id])}`;

const staticAnswer: Rule = ({ toolName, question, config, answerFrom }) => {
  if (config?.answer === undefined) return undefined;
  const checked = validateAnswer(question.answer_type, config.answer);
  if (checked.isOk()) return { type: "static", answer: checked.value };
  const written = answerFrom === "*" ? "*" : question.id;
  const message = invalidStaticAnswerMessage(toolName, written, checked.error.message);
  return {
    type: "refuse",
    reason: "invalid_static_answer",
    message,
    explanation: `${questionKey(toolName, written)}.answer does not fit question "${question.id}": ${checked.error.message}. Correct or remove it.`,
  };
};

const rememberedAnswer: Rule = ({ question, remembered }) => {
  if (remembered === undefined || question.answer_type.type === "secret") return undefined;
  if (reusePolicy(question) !== "turn") return undefined;
  // Remembered for `<tool>.<question id>`: another call may ask that id with other options.
  return validateAnswer(question.answer_type, remembered).isOk()
    ? { type: "remembered", answer: remembered }
    : undefined;
};

const assistantTarget: Rule = ({ toolName, question, config }) => {
  if (targetOf(config) !== "assistant") return undefined;
  if (!isHumanOnly(question, config)) return { type: "inquiry" };
  return {
    type: "refuse",
    reason: "assistant_routing_denied",
    message: assistantDeniedMessage(toolName),
    explanation: `${questionKey(toolName, question.id)}.target sends question "${question.id}" to the assistant, but ${humanOnlyWhy(input(toolName, question, config))}`,
  };
};

const humanPrompt: Rule = ({ humanReachable }) => (humanReachable ? { type: "prompt" } : undefined);

function input(toolName: string, question: Question, config: QuestionConfig | undefined) {
  return { toolName, question, config };
}

/** Why only a person may answer, and whether configuration can change that. */
function humanOnlyWhy({
  toolName,
  question,
  config,
}: Pick<RouteInput, "toolName" | "question" | "config">): string {
  if (question.answer_type.type === "secret") {
    return `question "${question.id}" asks for a secret, which only a person may answer (no setting changes this).`;
  }
  const where =
    config?.exclusive === true
      ? `${questionKey(toolName, question.id)}.exclusive is true`
      : `the tool marks question "${question.id}" exclusive`;
  return `${where}, so only a person may answer it; set ${questionKey(toolName, question.id)}.exclusive = false to allow the assistant.`;
}

const noHuman = (input: RouteInput, why: string): Route => {
  const unreachable = input.unreachable ?? "not_reachable";
  return {
    type: "refuse",
    reason: "no_prompt_backend",
    message: noHumanMessage(input.toolName, DETACHED_CAUSES[unreachable]),
    explanation: `${input.toolName}: question "${input.question.id}" was not asked because ${DETACHED_CAUSES_FOR_HOSTS[unreachable]}, and ${why}`,
  };
};

const DETACHED_KEY = (toolName: string) => key(toolName, "detached.tool");

/** RFD 049's detached modes for a tool question, as ARCHITECTURE.md reads `auto`. */
const DETACHED: Readonly<Record<DetachedMode, Rule>> = {
  auto: (input) =>
    isHumanOnly(input.question, input.config)
      ? noHuman(input, humanOnlyWhy(input))
      : { type: "inquiry" },
  defaults: (input) => {
    const { toolName, question } = input;
    const mode = `${DETACHED_KEY(toolName)} is "defaults"`;
    // A secret's default is a display hint, never an answer: without a human it always fails.
    if (question.answer_type.type === "secret") {
      return noHuman(input, `${mode}, but ${humanOnlyWhy(input)}`);
    }
    if (question.default === undefined) {
      return noHuman(
        input,
        `${mode}, but the question has no default; give it one or set ${DETACHED_KEY(toolName)} = "auto".`,
      );
    }
    const checked = validateAnswer(question.answer_type, question.default);
    return checked.isOk()
      ? { type: "default", answer: checked.value }
      : noHuman(
          input,
          `${mode}, but the question's default does not fit it (${checked.error.message}).`,
        );
  },
  deny: (input) =>
    noHuman(
      input,
      `the detached policy for tool questions is "deny" (the default when nothing is configured); set ${DETACHED_KEY(input.toolName)} to "auto" or "defaults" to run without a person.`,
    ),
};

const detachedPolicy: Rule = (input) => DETACHED[input.detached](input);

/**
 * The precedence, first match wins: a configured answer (validated, even for exclusive
 * questions), a remembered answer, an explicit assistant target, a reachable human, then the
 * detached policy. The table is data: change a rule by changing its entry.
 */
export const ROUTING_RULES: readonly Rule[] = [
  staticAnswer,
  rememberedAnswer,
  assistantTarget,
  humanPrompt,
  detachedPolicy,
];

/**
 * Decides who answers a tool's question. Pure: the same input always gives the same route.
 *
 * @example
 * routeQuestion({ toolName: "git", question, humanReachable: false, detached: "deny" });
 * // { type: "refuse", reason: "no_prompt_backend", message: "git cannot run because …" }
 */
export function routeQuestion(input: RouteInput): Route {
  for (const rule of ROUTING_RULES) {
    const route = rule(input);
    if (route !== undefined) return route;
  }
  // The detached rule always answers; reaching here means the table lost its last rule.
  throw new Error("routeQuestion: no routing rule matched");
}
