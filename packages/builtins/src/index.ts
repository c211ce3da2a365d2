// The public API of @jp/builtins: every exported name below is a commitment.
export type { AskUserRequest, FormQuestion, When } from "./ask-user/arguments.js";
export {
  ASK_USER_ANSWER_TYPES,
  parseAskUserArguments,
  SINGLE_QUESTION_ID,
} from "./ask-user/arguments.js";
export { ASK_USER_DESCRIPTION } from "./ask-user/description.js";
export { ASK_USER_PARAMETERS } from "./ask-user/parameters.js";
export { askUser, MISMATCHED_ANSWER } from "./ask-user/tool.js";
export { builtinToolConfigs } from "./builtin-configs.js";
export type {
  ConversationSaver,
  Coordinator,
  CoordinatorConversation,
  CoordinatorRunOptions,
  CreateCoordinatorOptions,
} from "./create-coordinator.js";
export { createCoordinator } from "./create-coordinator.js";
export type {
  AnthropicMessageParam,
  AnthropicReply,
  AnthropicReplyBlock,
  AnthropicTextBlockParam,
  AnthropicToolResultBlockParam,
  AnthropicToolUseBlockParam,
} from "./provider-messages/anthropic.js";
export { recordAnthropicReply, toAnthropicMessages } from "./provider-messages/anthropic.js";
export type {
  AnthropicInquiryRequest,
  AnthropicMessagesClient,
  OpenAIChatClient,
  OpenAIChatInquiryRequest,
  OpenAIResponsesClient,
  OpenAIResponsesInquiryRequest,
  ProviderInquiryOptions,
} from "./provider-messages/inquiry-backends.js";
export {
  createAnthropicInquiryBackend,
  createOpenAIChatInquiryBackend,
  createOpenAIResponsesInquiryBackend,
} from "./provider-messages/inquiry-backends.js";
export { OpenToolCallError } from "./provider-messages/open-tool-call-error.js";
export type {
  OpenAIChatAssistantMessage,
  OpenAIChatMessage,
  OpenAIChatReply,
  OpenAIChatToolCall,
  OpenAIChatToolMessage,
  OpenAIChatUserMessage,
} from "./provider-messages/openai-chat.js";
export { recordOpenAIChatReply, toOpenAIChatMessages } from "./provider-messages/openai-chat.js";
export type {
  OpenAIResponsesFunctionCall,
  OpenAIResponsesFunctionCallOutput,
  OpenAIResponsesInputItem,
  OpenAIResponsesMessage,
  OpenAIResponsesReply,
} from "./provider-messages/openai-responses.js";
export {
  recordOpenAIResponsesReply,
  toOpenAIResponsesInput,
} from "./provider-messages/openai-responses.js";
export type { ProviderMessagesOptions } from "./provider-messages/segments.js";
export type {
  AnthropicTool,
  OpenAIChatTool,
  OpenAIResponsesTool,
  ProviderTool,
  ProviderToolByFormat,
  ProviderToolFormat,
  ProviderToolsError,
  ProviderToolsOptions,
  ToolInputSchema,
} from "./provider-tools.js";
export { PROVIDER_TOOL_NAME_PATTERN, toolInputSchema, toProviderTools } from "./provider-tools.js";
export type { SubAgentPromptsOptions } from "./sub-agent.js";
export { subAgentPrompts } from "./sub-agent.js";
