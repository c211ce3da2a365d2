import type { InquiryRequest, InquiryResponse } from "@jp/conversation";
import type { PromptRequest } from "../backends/prompt-backend.js";
import type { RefusalReason } from "../routing/route-question.js";

/** The states a tool call moves through (named, not flags). */
export type ToolCallState =
  | "queued"
  | "awaiting_permission"
  | "running"
  | "awaiting_input"
  | "awaiting_delivery"
  | "completed"
  /** Waits for a person at a prompt left pending; the call resumes with the turn. */
  | "suspended";

/**
 * What a prompt was answered with, without the answer itself (it may be a secret). `cancelled`
 * is the person's cancel (their reply, or their stop of the run); a prompt that ended without
 * them says how: `timeout` (nobody answered in time), `interrupted` (the host stopped the run),
 * `turn_ended` (the person ended the turn at another prompt) or `failed` (the backend failed).
 */
export type PromptOutcome =
  | "answer"
  | "back"
  | "reply"
  | "end_turn"
  | "cancelled"
  | "timeout"
  | "interrupted"
  | "turn_ended"
  | "failed"
  | "run"
  | "skip"
  | "edit"
  | "deliver";

/**
 * The coordinator's observable progress, for UIs and logs. Payloads never carry answers: an
 * answer may be a secret.
 */
export interface CoordinatorEvents {
  "tool-state": (event: {
    readonly tool_call_id: string;
    readonly tool_name: string;
    readonly state: ToolCallState;
    /** With `completed`: whether the response recorded for the call is an error. */
    readonly is_error?: boolean;
  }) => void;
  "inquiry-recorded": (event: { readonly event: InquiryRequest | InquiryResponse }) => void;
  "prompt-shown": (event: { readonly request: PromptRequest }) => void;
  "prompt-answered": (event: {
    readonly request: PromptRequest;
    readonly outcome: PromptOutcome;
  }) => void;
  /**
   * A prompt was refused without asking anyone (detached policy, a human-only question, a
   * misfit configured answer): `explanation` names the cause and the configuration key that
   * would change it, for the host's logs. The model gets a shorter text.
   */
  "prompt-refused": (event: PromptRefusal) => void;
  /**
   * Who answers a question a tool asked, decided right after its `inquiry_request` is recorded
   * (or, for a resumed turn, when its pending question is taken up again). A question routed to a
   * person whose prompt turns out to be settled by an answer remembered meanwhile (another call
   * of the tool had it answered for the turn) gets a second event, with `route: "remembered"`:
   * the last one for an `inquiry_id` is the route that answered it. Carries no answer.
   */
  "question-routed": (event: QuestionRouted) => void;
}

/**
 * Who answers a question: a configured answer (`static`), an answer remembered this turn, the
 * question's own default (the detached policy `defaults`), the assistant (an `InquiryBackend`),
 * a person (`human`, also when the prompt is left pending), or nobody (`refused`).
 */
export type QuestionRoute = "static" | "remembered" | "default" | "assistant" | "human" | "refused";

/** See the `question-routed` event. */
export interface QuestionRouted {
  readonly tool_call_id: string;
  readonly tool_name: string;
  /** The recorded inquiry's id (`<call>.<question>.<attempt>`). */
  readonly inquiry_id: string;
  readonly question_id: string;
  /** The question's answer type (`boolean`, `select`, `secret`, …). */
  readonly answer_type: string;
  readonly route: QuestionRoute;
  /**
   * Decided by the detached policy because no person could be asked: a default, an assistant
   * under `detached = "auto"`, or a refusal for want of a person.
   */
  readonly detached: boolean;
  /** Why nobody answers, for `route: "refused"`. */
  readonly reason?: RefusalReason;
}

/** Why a prompt was refused without asking anyone (see the `prompt-refused` event). */
export interface PromptRefusal {
  readonly tool_call_id: string;
  readonly tool_name: string;
  readonly kind: "question" | "permission" | "deliver";
  /** The recorded inquiry's id, for a question. */
  readonly inquiry_id?: string;
  readonly reason: string;
  readonly explanation: string;
}
