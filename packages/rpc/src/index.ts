// The public API of @jp/rpc: every exported name below is a commitment.
export type { ConnectionOptions, RpcCloseReason } from "./connection.js";
export { DEFAULT_MAX_LINE_BYTES } from "./connection.js";
export type { RpcErrorKind, RpcErrorOptions } from "./errors.js";
export { JSON_RPC_ERROR_CODES, RpcError } from "./errors.js";
export type {
  RpcBackendState,
  RpcPromptBackend,
  RpcPromptBackendOptions,
  RpcProtocol,
} from "./prompt-backend.js";
export { createRpcPromptBackend, DEFAULT_HANDSHAKE_TIMEOUT_MS } from "./prompt-backend.js";
export type {
  AskUserHandler,
  PromptHandler,
  PromptHandlerContext,
  RpcPromptClient,
  RpcPromptClientOptions,
} from "./prompt-client.js";
export { createRpcPromptClient, DEFAULT_MAX_OPEN_PROMPTS } from "./prompt-client.js";
export type {
  AskUserParams,
  AskUserResult,
  ClientCapabilities,
  InitializeParams,
  InitializeResult,
  PromptParams,
  PromptReply,
} from "./protocol.js";
export {
  askUserParamsSchema,
  askUserResultSchema,
  clientCapabilitiesSchema,
  deliverReplySchema,
  initializeParamsSchema,
  initializeResultSchema,
  PROTOCOL_VERSION,
  permissionReplySchema,
  promptParamsSchema,
  promptRequestSchema,
  questionReplySchema,
  REPLY_SCHEMAS,
  RPC_METHODS,
} from "./protocol.js";
