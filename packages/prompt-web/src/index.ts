// The public API of @jp/prompt-web: every name exported here is public, nothing else is.
export type { WebPromptsError } from "./errors.js";
export type { WebPromptOutcome, WebPromptsEvents } from "./events.js";
export type { FileInboxOptions } from "./file-inbox.js";
export { DEFAULT_FILE_POLL_MS, fileInboxSource } from "./file-inbox.js";
export type {
  InboxAnswerError,
  InboxConversation,
  InboxListing,
  InboxPromptView,
  InboxSource,
  InboxSourceError,
} from "./inbox-source.js";
export type { PostgresInboxLike, PostgresInboxSourceOptions } from "./postgres-inbox.js";
export {
  DEFAULT_POSTGRES_MAX_PROMPTS,
  DEFAULT_POSTGRES_POLL_MS,
  postgresInboxSource,
} from "./postgres-inbox.js";
export type {
  StandaloneWebPrompts,
  StandaloneWebPromptsOptions,
  WaitForPageOptions,
  WebPromptBackendOptions,
  WebPrompts,
  WebPromptsOptions,
} from "./web-prompts.js";
export {
  createWebPromptHandler,
  createWebPrompts,
  DEFAULT_DISCONNECT_GRACE_MS,
  DEFAULT_MAX_BODY_BYTES,
} from "./web-prompts.js";
