// The public API of @jp/prompt-web: every name exported here is public, nothing else is.
export type { WebPromptsError } from "./errors.js";
export type { WebPromptOutcome, WebPromptsEvents } from "./events.js";
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
