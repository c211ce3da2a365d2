// The public API of @jp/prompt-terminal: every name exported here is public, nothing else is.
export type { NeutralizeOptions } from "./neutralize.js";
export { neutralize } from "./neutralize.js";
export type { TerminalPromptBackend, TerminalPromptBackendOptions } from "./terminal-backend.js";
export { createTerminalPromptBackend } from "./terminal-backend.js";
