import type { InquiryRequest, InquiryResponse } from "@jp/conversation";
import type { PromptRequest } from "../backends/prompt-backend.js";

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

/** What a prompt was answered with, without the answer itself (it may be a secret). */
export type PromptOutcome =
  | "answer"
  | "back"
  | "reply"
  | "end_turn"
  | "cancelled"
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
