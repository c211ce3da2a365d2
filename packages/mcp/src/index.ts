// The public API of @jp/mcp: every exported name below is a commitment.
export type { DecidedBy, ElicitationDecision, ElicitationRefusal } from "./decision.js";
export {
  DECISION_META_KEY,
  decisionFor,
  decisionMeta,
  ELICITATION_DECISIONS,
} from "./decision.js";
export type { McpConnectError, UnsupportedElicitation } from "./errors.js";
export type {
  AttachOptions,
  McpConnection,
  McpServerOptions,
  McpToolDefinition,
  RefusedElicitation,
} from "./host/connection.js";
export { connectMcpServer } from "./host/connection.js";
export type { FormField } from "./host/form-questions.js";
export {
  ELICITATION_STRING_FORMATS,
  elicitationContent,
  MAX_FORM_FIELDS,
  MAX_FORM_OPTIONS,
  questionsForElicitation,
} from "./host/form-questions.js";
export type { SuspendedMcpCall, SuspendedRound } from "./host/suspended-call.js";
export { MCP_CALL_METADATA_KEY } from "./host/suspended-call.js";
export type { CheckedUrl } from "./host/url-check.js";
export { checkElicitationUrl, MAX_URL_LENGTH } from "./host/url-check.js";
export type {
  QuestionForm,
  QuestionReading,
  UnaskableQuestion,
} from "./server/question-form.js";
export { answerFromContent, elicitationForQuestion } from "./server/question-form.js";
export type {
  McpToolServerOptions,
  SecretPage,
  ServedTool,
} from "./server/tool-server.js";
export { createMcpToolServer, MAX_ANSWER_ATTEMPTS } from "./server/tool-server.js";
