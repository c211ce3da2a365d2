// The public API of @jp/coordinator: every exported name below is a commitment.
export type {
  Answers,
  BuiltinOutcome,
  BuiltinTool,
  BuiltinToolInput,
  ExecuteInput,
  Executor,
  ExecutorResult,
  ExecutorSource,
  FormProgress,
  RunStop,
  ToolCall,
} from "./backends/executor.js";
export { runStopOf } from "./backends/executor.js";
export type {
  InquiryBackend,
  InquiryError,
  InquiryRequestInput,
} from "./backends/inquiry-backend.js";
export { inquiryPromptText, inquirySchemaFor } from "./backends/inquiry-schema.js";
export type {
  JsonSchemaCompletion,
  JsonSchemaCompletionInput,
} from "./backends/json-schema-inquiry.js";
export { createJsonSchemaInquiryBackend } from "./backends/json-schema-inquiry.js";
export type {
  AskOptions,
  DeliverPromptRequest,
  DeliverReply,
  LaterReply,
  PermissionPromptRequest,
  PermissionReply,
  PromptBackend,
  PromptRequest,
  QuestionControls,
  QuestionPromptRequest,
  QuestionReply,
  ReplyFor,
} from "./backends/prompt-backend.js";
export {
  HumanUnreachableError,
  PromptTimedOutError,
  PromptUnsupportedError,
} from "./backends/prompt-backend.js";
export { resolveDetached } from "./config/detached.js";
export type { ToggleDirective } from "./config/enable.js";
export { applyToggleDirectives, enabledToolNames } from "./config/enable.js";
export type { ConfigError } from "./config/errors.js";
export { layerToolConfigs, layerToolsConfigs } from "./config/layering.js";
export { questionConfigFor } from "./config/question-config.js";
export { parseToolsConfig, resolveToolConfig } from "./config/resolve.js";
export type {
  AllowToggle,
  CommandConfig,
  DetachedConfig,
  DetachedMode,
  Enable,
  EnableConfig,
  PromptKind,
  QuestionConfig,
  QuestionTarget,
  ResolvedToolConfig,
  ResultMode,
  RunMode,
  StyleConfig,
  ToolConfig,
  ToolsConfig,
} from "./config/schema.js";
export {
  DEFAULT_CANCELLATION_RESPONSE,
  toolConfigSchema,
  toolsConfigSchema,
} from "./config/schema.js";
export { answersAddedSince } from "./coordinator/answers-view.js";
export { SecretMask } from "./coordinator/context.js";
export type {
  CoordinatorEvents,
  PromptOutcome,
  PromptRefusal,
  QuestionRoute,
  QuestionRouted,
  ToolCallState,
} from "./coordinator/events.js";
export {
  ANSWERED_BY_METADATA_KEY,
  INQUIRY_ERROR_REASONS,
  MAX_PROMPTS_PER_QUESTION,
  MAX_REPEATED_INVALID_REPLIES,
  TURN_ENDED,
} from "./coordinator/question-round.js";
export type {
  ResumeOptions,
  RunOptions,
  RunResult,
  SuspendOptions,
  ToolCoordinatorOptions,
} from "./coordinator/tool-coordinator.js";
export {
  ResumeAnswerError,
  ToolCoordinator,
  ToolsConfigError,
} from "./coordinator/tool-coordinator.js";
export type { PendingMarker, StoredReply } from "./durable/marker.js";
export { PENDING_METADATA_KEY } from "./durable/marker.js";
export type {
  AnswerInStoreError,
  AnswerPendingError,
  ConversationStoreLike,
  PendingPrompt,
  PromptReplyError,
  ResumeInStoreError,
  ResumeInStoreOptions,
} from "./durable/pending.js";
export {
  answerPendingPrompt,
  answerPendingPromptInStore,
  checkPromptReply,
  listPendingPrompts,
  resumeInStore,
} from "./durable/pending.js";
export {
  builtinExecutor,
  builtinExecutorSource,
  builtinInquirySource,
  combineExecutorSources,
} from "./executors/builtin.js";
export type {
  LocalCommandExecutorOptions,
  LocalCommandSettings,
} from "./executors/local-command.js";
export {
  createLocalCommandExecutor,
  createLocalCommandExecutorSource,
  DEFAULT_ENV_ALLOWLIST,
} from "./executors/local-command.js";
export type {
  CoordinatorEvent,
  CoordinatorEventName,
  CoordinatorEventsOptions,
  EventsDropped,
} from "./observability/event-stream.js";
export {
  coordinatorEvents,
  DEFAULT_MAX_BUFFERED_EVENTS,
} from "./observability/event-stream.js";
export type {
  SpanAttributeValue,
  SpanLike,
  StopTracing,
  TraceCoordinatorOptions,
  TracerLike,
} from "./observability/tracing.js";
export { TRACE_NAMES, traceCoordinator } from "./observability/tracing.js";
export { inquiryId, toInquiryQuestion } from "./recording/inquiry-question.js";
export { answeredByDefaultNote } from "./routing/messages.js";
export type {
  RefusalReason,
  Route,
  RouteInput,
  UnreachableCause,
} from "./routing/route-question.js";
export { isHumanOnly, ROUTING_RULES, routeQuestion, targetOf } from "./routing/route-question.js";
export { TurnState } from "./turn-state.js";
