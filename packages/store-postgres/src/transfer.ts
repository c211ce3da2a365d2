import type {
  FileConversationStore,
  SaveResult,
  StoredConversation,
  StoreError,
} from "@jp/conversation";
import { err, type Result } from "neverthrow";
import type { PostgresConversationStore } from "./conversation-store.js";

/** The stores a conversation moves between, and which one. */
export interface TransferOptions {
  readonly files: FileConversationStore;
  readonly postgres: PostgresConversationStore;
  /** The conversation's name, the same in both stores. */
  readonly name: string;
}

// A copy without the source's revision: revisions belong to one store, and the target must not
// already hold the conversation (a `conflict` otherwise, nothing written).
function fresh(conversation: StoredConversation): StoredConversation {
  const { revision: _, ...rest } = conversation;
  return { ...rest };
}

/**
 * Copies a conversation from JP's directory layout into PostgreSQL: metadata, base
 * configuration, layout and every event as decoded, so loading it from either store gives the
 * same conversation. A suspended turn stays suspended, its prompts now in the inbox. A
 * conversation of that name already in PostgreSQL is a `conflict` and nothing is written.
 */
export async function importConversation(
  options: TransferOptions,
): Promise<Result<SaveResult, StoreError>> {
  const loaded = await options.files.load(options.name);
  if (loaded.isErr()) return err(loaded.error);
  return options.postgres.save(fresh(loaded.value), { expectedRevision: null });
}

/**
 * Writes a conversation from PostgreSQL into JP's directory layout (a directory of that name
 * under the file store's root), readable by JP and `FileConversationStore`. An existing
 * directory of that name is a `conflict` and nothing is written.
 */
export async function exportConversation(
  options: TransferOptions,
): Promise<Result<SaveResult, StoreError>> {
  const loaded = await options.postgres.load(options.name);
  if (loaded.isErr()) return err(loaded.error);
  return options.files.save(fresh(loaded.value), { expectedRevision: null });
}
