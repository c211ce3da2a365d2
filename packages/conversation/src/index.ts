// The public API of @jp/conversation: every exported name below is a commitment.
export type { EncodeOptions, EventFields } from "./codec.js";
export { createEvent, decodeEvent, encodeEvent } from "./codec.js";
export type {
  ConversationLayout,
  ConversationMetadata,
  SaveOptions,
  SaveResult,
  StoredConversation,
} from "./conversation-files.js";
export { baseConfigOf, loadConversation, saveConversation } from "./conversation-files.js";
export { isConversationName } from "./conversation-name.js";
export type {
  DecodeError,
  JsonPath,
  StoreConflict,
  StoreError,
  StoreFailure,
  StreamError,
} from "./errors.js";
export { formatPath } from "./errors.js";
export { encodeEventText } from "./event-text.js";
export type {
  ChatRequest,
  ChatResponse,
  ConfigDelta,
  ConversationEvent,
  ConversationEventType,
  EventOfType,
  InquiryRequest,
  InquiryResponse,
  StreamEvent,
  ToolCallRequest,
  ToolCallResponse,
  TurnStart,
  UnknownEvent,
} from "./events.js";
export {
  CONVERSATION_EVENT_TYPES,
  isConfigDelta,
  isConversationEvent,
  isEventOfType,
} from "./events.js";
export { FileConversationStore } from "./file-store.js";
export type {
  CancellationReason,
  InquiryAnswerReusePolicy,
  InquiryAnswerType,
  InquiryQuestion,
  InquirySource,
  KnownCancellationReason,
  SelectOption,
} from "./inquiry.js";
export { isKnownCancellationReason, KNOWN_CANCELLATION_REASONS } from "./inquiry.js";
export type { JsonObject, JsonValue } from "./json.js";
export { inquiryResponseLine, toMarkdown } from "./markdown.js";
export type { SanitizeChange, SanitizeReason, SanitizeReport } from "./sanitize.js";
export { INTERRUPTED_TOOL_CALL_CONTENT, SUSPENDED_CALL_METADATA_KEY } from "./sanitize.js";
export type { Turn } from "./stream.js";
export { ConversationStream, MAX_EVENT_VALUE_DEPTH, nestedTooDeeply } from "./stream.js";
export { StreamAppendError } from "./stream-append-error.js";
export { EPOCH_TIMESTAMP, formatTimestamp } from "./timestamp.js";
