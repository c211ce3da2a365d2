// The public API of @jp/coordinator/testing: scripted backends and tools for test suites.
export type { MockExecution, MockStep } from "./mock-executor.js";
export { MockExecutor, MockExecutorSource } from "./mock-executor.js";
export type { InquiryAnswerScript } from "./mock-inquiry-backend.js";
export { MockInquiryBackend } from "./mock-inquiry-backend.js";
export type { MockPromptBackendOptions, PromptScript, Scripted } from "./mock-prompt-backend.js";
export { MockPromptBackend, waitForAbort } from "./mock-prompt-backend.js";
