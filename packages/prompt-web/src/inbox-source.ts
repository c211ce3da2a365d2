import type { PromptRequest, StoredReply } from "@jp/coordinator";
import type { Result } from "neverthrow";

/**
 * Where the page finds the prompts of suspended turns (and, with PostgreSQL, of hosts waiting
 * elsewhere), and how it answers them. {@link fileInboxSource} reads a `FileConversationStore`,
 * {@link postgresInboxSource} a `PostgresInbox`; a host with another store implements these
 * three methods.
 */
export interface InboxSource {
  /** Every prompt that waits for an answer now, by conversation. Answered prompts are left out. */
  list(): Promise<Result<InboxListing, InboxSourceError>>;
  /**
   * Answers one prompt, checked as a live answer is, exactly once. A typed error writes nothing.
   * The page never passes a secret's answer here; a source must refuse one anyway
   * (`secret_not_stored`).
   */
  answer(
    conversation: string,
    promptId: string,
    reply: StoredReply,
  ): Promise<Result<void, InboxAnswerError>>;
  /**
   * Calls `onChange` whenever the listing may have changed (an answer from another process, a
   * turn suspended or resumed), until the returned function is called. The page watches only
   * while a page is open.
   */
  watch(onChange: () => void): () => void;
}

/** What {@link InboxSource.list} found. */
export interface InboxListing {
  readonly conversations: readonly InboxConversation[];
  /** Conversations that could not be read, and why; the others are listed. */
  readonly unreadable?: readonly { readonly conversation: string; readonly message: string }[];
}

/** A conversation with prompts waiting for an answer. */
export interface InboxConversation {
  /** The conversation's name in its store. */
  readonly name: string;
  /** Its title, shown as text. */
  readonly title?: string;
  /** In the order its turn asks them: answering the first lets the turn go on. */
  readonly prompts: readonly InboxPromptView[];
}

/** One prompt waiting in a store. */
export interface InboxPromptView {
  /** What {@link InboxSource.answer} takes (the coordinator's `prompt_id`). */
  readonly prompt_id: string;
  /** The prompt as the person should see it, as a live prompt would show it. */
  readonly request: PromptRequest;
  /** Since when it waits (ISO 8601). */
  readonly since: string;
  /** When it expires (ISO 8601), if it does. */
  readonly deadline?: string;
  /** `suspended`: saved with its turn; `live`: a host waits for it right now. */
  readonly state: "suspended" | "live";
}

/** Why the prompts could not be listed (the store is unreachable or unreadable). */
export interface InboxSourceError {
  readonly message: string;
}

/**
 * Why an answer was not taken; nothing was written for any of them:
 * - `invalid_reply`: the reply does not fit the prompt (`message` says why);
 * - `secret_not_stored`: a secret's answer is never stored; it is given when the turn resumes live;
 * - `unknown_prompt`: the prompt is no longer open (resumed, withdrawn, or its host went away);
 * - `already_answered`: another answer was taken first (another tab, another process);
 * - `claimed`: a worker is resuming the turn right now; try again shortly;
 * - `unavailable`: the store could not be reached or written.
 */
export interface InboxAnswerError {
  readonly kind:
    | "invalid_reply"
    | "secret_not_stored"
    | "unknown_prompt"
    | "already_answered"
    | "claimed"
    | "unavailable";
  readonly message: string;
}

/** The error kinds the coordinator and the stores share with {@link InboxAnswerError}. */
const SHARED_KINDS: ReadonlySet<string> = new Set([
  "invalid_reply",
  "secret_not_stored",
  "unknown_prompt",
  "already_answered",
  "claimed",
]);

/** A store's or the coordinator's error as an {@link InboxAnswerError}. */
export function answerErrorOf(error: {
  readonly kind: string;
  readonly message: string;
}): InboxAnswerError {
  if (SHARED_KINDS.has(error.kind)) {
    return { kind: error.kind as InboxAnswerError["kind"], message: error.message };
  }
  // A conversation that is gone holds no open prompt.
  if (["unknown_conversation", "not-found", "invalid_input", "invalid-id"].includes(error.kind)) {
    return { kind: "unknown_prompt", message: error.message };
  }
  return { kind: "unavailable", message: error.message };
}
