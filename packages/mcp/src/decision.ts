import type { CancellationReason, JsonObject } from "@jp/conversation";

/** How an elicitation ended without content: MCP's two refusals. */
export type ElicitationRefusal = "decline" | "cancel";

/**
 * Who made an elicitation's decision: the `person` at a prompt, or the `host` (a detached
 * policy, a configured answer, a deadline, a failure) without the person deciding.
 */
export type DecidedBy = "person" | "host";

/** The MCP action a recorded cancellation becomes, and who made that decision. */
export interface ElicitationDecision {
  readonly action: ElicitationRefusal;
  readonly by: DecidedBy;
}

/**
 * The `_meta` key under which this SDK tells an MCP server who decided an elicitation:
 * `{"by": "person" | "host", "reason"?: <recorded reason>}`. A server that reads it can tell a
 * person's decline from a policy's; one that does not loses nothing.
 */
export const DECISION_META_KEY = "jp.inquiry/decision";

/**
 * What an MCP server is told when the coordinator closes one of its questions without an answer,
 * by the recorded cancellation reason. Only the person's own choices are `by: "person"`; a
 * refusal by policy is a `decline`, a question nobody could answer is a `cancel`. `back` and
 * `invalid_answer` are missing: the question is asked again.
 */
export const ELICITATION_DECISIONS: Readonly<Record<string, ElicitationDecision>> = {
  // The person dismissed the prompt without choosing.
  user: { action: "cancel", by: "person" },
  // The person left the form to answer the assistant in words: an explicit no to the form.
  reply: { action: "decline", by: "person" },
  // The person ended the turn from this prompt.
  end_turn: { action: "cancel", by: "person" },
  // Nobody answered in time, the host shut down, or another prompt ended the turn.
  timeout: { action: "cancel", by: "host" },
  interrupted: { action: "cancel", by: "host" },
  turn_ended: { action: "cancel", by: "host" },
  // The prompt could not be shown (a disconnected client, a failing backend).
  backend_error: { action: "cancel", by: "host" },
  // Refused by configuration or the detached policy: nobody was asked.
  no_prompt_backend: { action: "decline", by: "host" },
  assistant_routing_denied: { action: "decline", by: "host" },
  invalid_static_answer: { action: "decline", by: "host" },
};

/** Reasons after which the coordinator asks the same question again. */
const REASKED: readonly string[] = ["back", "invalid_answer"];

/**
 * The decision for a recorded cancellation, or `undefined` when the question will be asked again.
 * A reason this table does not know (one written by a newer version) is a `cancel` by the host:
 * it never reads as the person's decision.
 */
export function decisionFor(reason: CancellationReason): ElicitationDecision | undefined {
  if (REASKED.includes(reason)) return undefined;
  return Object.hasOwn(ELICITATION_DECISIONS, reason)
    ? ELICITATION_DECISIONS[reason]
    : { action: "cancel", by: "host" };
}

/** The `_meta` object that carries a decision to the server. */
export function decisionMeta(by: DecidedBy, reason?: string): JsonObject {
  return { [DECISION_META_KEY]: reason === undefined ? { by } : { by, reason } };
}
