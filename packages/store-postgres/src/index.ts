// The public API of @jp/store-postgres: every exported name below is a commitment.
export type { PostgresStoreOptions } from "./conversation-store.js";
export { PostgresConversationStore } from "./conversation-store.js";
export type { InboxError, MigrationError, StoreError } from "./errors.js";
export type {
  InboxListOptions,
  InboxPage,
  InboxPrompt,
  PostgresInboxOptions,
  WaitOptions,
} from "./inbox.js";
export { PostgresInbox } from "./inbox.js";
export type {
  InboxListenerEvents,
  InboxListenerOptions,
  InboxNotice,
  NoticeSelection,
  NoticeSubscription,
} from "./listener.js";
export { InboxListener } from "./listener.js";
export type { MigrateOptions, MigrateResult } from "./migrations.js";
export { migrate, SCHEMA_VERSION } from "./migrations.js";
export type { InboxPromptsOptions } from "./prompt-backend.js";
export { createInboxPrompts } from "./prompt-backend.js";
export type { TransferOptions } from "./transfer.js";
export { exportConversation, importConversation } from "./transfer.js";
