import type { JsonValue } from "@jp/conversation";
import { isExclusive, type Question, reusePolicy, validateAnswer } from "@jp/tool";
import type { DetachedMode, QuestionConfig } from "../config/schema.js";
import { assistantDeniedMessage, invalidStaticAnswerMessage, noHumanMessage } from "./messages.js";

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
  | { readonly type: "refuse"; readonly reason: RefusalReason; readonly message: string };

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

const staticAnswer: Rule = ({ toolName, question, config }) => {
  if (config?.answer === undefined) return undefined;
  const checked = validateAnswer(question.answer_type, config.answer);
  if (checked.isOk()) return { type: "static", answer: checked.value };
  const message = invalidStaticAnswerMessage(toolName, question.id, checked.error.message);
  return { type: "refuse", reason: "invalid_static_answer", message };
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
  };
};

const humanPrompt: Rule = ({ humanReachable }) => (humanReachable ? { type: "prompt" } : undefined);

const noHuman = (toolName: string): Route => ({
  type: "refuse",
  reason: "no_prompt_backend",
  message: noHumanMessage(toolName),
});

/** RFD 049's detached modes for a tool question, as ARCHITECTURE.md reads `auto`. */
const DETACHED: Readonly<Record<DetachedMode, Rule>> = {
  auto: (input) =>
    isHumanOnly(input.question, input.config) ? noHuman(input.toolName) : { type: "inquiry" },
  defaults: ({ toolName, question }) => {
    // A secret's default is a display hint, never an answer: without a human it always fails.
    if (question.default === undefined || question.answer_type.type === "secret") {
      return noHuman(toolName);
    }
    const checked = validateAnswer(question.answer_type, question.default);
    return checked.isOk() ? { type: "default", answer: checked.value } : noHuman(toolName);
  },
  deny: ({ toolName }) => noHuman(toolName),
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
