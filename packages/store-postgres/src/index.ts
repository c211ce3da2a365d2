// The public API of @jp/store-postgres: every exported name below is a commitment.
export type { PostgresStoreOptions } from "./conversation-store.js";
export { PostgresConversationStore } from "./conversation-store.js";
export type { InboxError, MigrationError, StoreError } from "./errors.js";
export type { MigrateOptions, MigrateResult } from "./migrations.js";
export { migrate, SCHEMA_VERSION } from "./migrations.js";
