import type { StoreError } from "@jp/conversation";
import type { AnswerPendingError } from "@jp/coordinator";

/**
 * Why {@link migrate} did not bring the schema up to date, by `kind`:
 * - `invalid-schema`: the schema name is not a plain lower-case SQL identifier;
 * - `too-new`: the database was migrated by a newer version of this package (nothing changed);
 * - `database`: PostgreSQL refused (connection, permissions); `cause` has the driver's error.
 */
export interface MigrationError {
  readonly kind: "invalid-schema" | "too-new" | "database";
  readonly message: string;
  readonly cause?: unknown;
}

/**
 * Why an inbox operation did not happen; nothing was written for any of them. The first five
 * are those of `answerPendingPrompt` in `@jp/coordinator`, with the same meaning:
 * - `claimed`: a worker is resuming the turn right now; try again after `until`;
 * - `unknown_prompt`: no such prompt open in the named conversation (wrong id, wrong
 *   conversation, already resumed, or its waiting host went away), or an inbox row written by
 *   something else that holds no prompt;
 * - `already_answered`: another answer was taken first (exactly one answer per prompt);
 * - `invalid_reply`: the reply does not fit the prompt; `message` says why;
 * - `secret_not_stored`: a secret's answer never enters the database (see the package README);
 * - `unknown_conversation`: no conversation of that name;
 * - `invalid_input`: a malformed argument (a conversation name outside JP's grammar, an empty
 *   prompt id, a cursor this inbox did not give out, a bad limit), named in `message`;
 * - `timeout`, `cancelled`: a wait ended without an answer;
 * - `database`: PostgreSQL refused or could not be reached; `cause` has the driver's error.
 */
export type InboxError =
  | AnswerPendingError
  | {
      readonly kind: "unknown_conversation" | "invalid_input" | "timeout" | "cancelled";
      readonly message: string;
      readonly promptId?: string;
    }
  | { readonly kind: "database"; readonly message: string; readonly cause: unknown };

/** The store's errors: exactly those of `FileConversationStore`, so hosts can swap stores. */
export type { StoreError };
