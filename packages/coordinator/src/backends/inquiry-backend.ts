import type { ConversationStream, JsonValue } from "@jp/conversation";
import type { Question } from "@jp/tool";
import type { Result } from "neverthrow";

/** Why an LLM could not answer a question; `kind` maps to the recorded cancellation reason. */
export interface InquiryError {
  readonly kind:
    | "provider"
    | "cancelled"
    | "missing_structured_data"
    | "answer_extraction"
    | "other";
  readonly message: string;
}

/** What an {@link InquiryBackend} is asked. */
export interface InquiryRequestInput {
  /** A copy of the conversation so far, for context; the backend may change it freely. */
  readonly stream: ConversationStream;
  readonly inquiryId: string;
  readonly toolName: string;
  readonly question: Question;
  /**
   * The per-question assistant overrides, when the question's `target` is a map (JP's
   * `questions.<id>.target = { model = … }`): e.g. a cheaper model for this question.
   */
  readonly assistantOverrides?: Readonly<Record<string, JsonValue>>;
}

/**
 * An LLM answers a tool's question from the conversation's context. The coordinator validates
 * the answer against the question before using it; a misfit is recorded as a backend error.
 */
export interface InquiryBackend {
  inquire(
    input: InquiryRequestInput,
    options: { readonly signal: AbortSignal },
  ): Promise<Result<JsonValue, InquiryError>>;
}
