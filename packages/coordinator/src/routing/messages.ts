// Every text the coordinator hands back to the model or a host, in one place. The wording of the
// refusals is the seeds' (RFD 083); the other result texts are JP's own.

/** No human can answer and the policy does not allow anything else (RFD 083 / RFD 049). */
export const noHumanMessage = (tool: string) =>
  `${tool} cannot run because no interactive terminal is available. Do not retry this tool call in this turn; continue without user input or explain what information is missing.`;

/** A human-only question was configured to go to the assistant (RFD 083). */
export const assistantDeniedMessage = (tool: string) =>
  `${tool} requires a human answer and cannot be routed to the assistant. Do not retry this tool call in this turn.`;

/** A configured static answer does not fit the question (RFD 083), with what was wrong. */
export const invalidStaticAnswerMessage = (tool: string, questionId: string, detail: string) =>
  `${tool}: the configured conversation.tools.${tool}.questions.${questionId}.answer value does not match the question's answer_type. Update the configuration; do not retry. (${detail})`;

/** The LLM could not answer a tool's question. */
export const inquiryFailedMessage = (tool: string, questionText: string, error: string) =>
  `The tool '${tool}' asked a follow-up question ("${questionText}") that was routed to a secondary assistant for resolution, but the secondary assistant failed to provide a valid answer. Error: ${error}. You may retry the tool call or end the turn.`;

export const INPUT_CANCELLED = "Tool input cancelled by user.";
export const INPUT_PROMPT_FAILED = "Tool input prompt failed.";
export const EXECUTION_CANCELLED = "Tool execution cancelled.";
export const SKIPPED_BY_CONFIGURATION = "Tool skipped by configuration.";
export const SKIPPED_BY_USER = "Tool skipped by user.";
export const SKIPPED_REMEMBERED = "Tool skipped by user (remembered).";
export const skippedWithReason = (reason: string) => `Tool skipped by user: ${reason}`;
export const permissionPromptFailed = (error: string) => `Permission prompt failed: ${error}`;
export const DELIVERY_SKIPPED_BY_CONFIGURATION = "Result delivery skipped by configuration.";
export const DELIVERY_SKIPPED_BY_USER = "Result delivery skipped by user.";

/** The tool is unknown or disabled. */
export const notAvailableMessage = (tool: string) =>
  `Tool '${tool}' is not available. It may have been available earlier in this conversation but is no longer enabled. Do not retry this tool until it is available again in the list of enabled tools.`;

/** A tool pass threw instead of returning a result. */
export const executionFailedMessage = (tool: string, error: string) =>
  `Tool '${tool}' failed: ${error}`;

/** A result that needed approval could not be delivered without a human. */
export const deliveryDeniedMessage = (tool: string) =>
  `${tool} ran, but its result was not delivered because no interactive terminal is available to approve it. Do not retry this tool call in this turn.`;
