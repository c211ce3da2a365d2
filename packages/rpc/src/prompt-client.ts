import type { PromptRequest } from "@jp/coordinator";
import { err, ok, type Result } from "neverthrow";
import type { ConnectionOptions, RpcCloseReason } from "./connection.js";
import { JSON_RPC_ERROR_CODES, RpcError } from "./errors.js";
import { defineMethod, type MethodHandler } from "./internal/methods.js";
import { checkCount } from "./internal/options.js";
import { type ResponseOutcome, RpcPeer } from "./internal/peer.js";
import {
  type AskUserParams,
  type AskUserResult,
  askUserParamsSchema,
  type ClientCapabilities,
  describeIssues,
  type InitializeParams,
  type InitializeResult,
  initializeResultSchema,
  PROTOCOL_VERSION,
  type PromptReply,
  promptParamsSchema,
  RPC_METHODS,
} from "./protocol.js";

/**
 * How many prompts a client serves at once by default (`maxOpenPrompts`). The coordinator shows
 * one prompt at a time, so a client rarely has more than a few open; the bound keeps an agent
 * that sends prompts without end from growing the UI process's memory without limit.
 */
export const DEFAULT_MAX_OPEN_PROMPTS = 32;

/** What a handler is told besides the prompt. */
export interface PromptHandlerContext {
  /** Aborts when the server sends `$/cancelRequest` for this prompt, or the connection closes. */
  readonly signal: AbortSignal;
  /** The session the prompt belongs to. */
  readonly sessionId: string;
}

/** Shows a typed prompt (`client/prompt`) and returns the human's reply for its kind. */
export type PromptHandler = (
  prompt: PromptRequest,
  context: PromptHandlerContext,
) => PromptReply | Promise<PromptReply>;

/**
 * Answers Opal's `client/ask_user`: the answer text, or `{ answer }`; `null` when the user
 * dismissed the question (Opal's result has no way to say so: the client answers `-32800`).
 */
export type AskUserHandler = (
  params: AskUserParams,
  context: PromptHandlerContext,
) => AskUserResult | string | null | Promise<AskUserResult | string | null>;

/** Options of {@link createRpcPromptClient}. */
export interface RpcPromptClientOptions extends ConnectionOptions {
  /** Announced in `initialize`: which of the two prompt methods the server will use. */
  readonly capabilities: ClientCapabilities;
  /** Announced as `client_info`. */
  readonly clientInfo?: InitializeParams["client_info"];
  /** Serves `client/prompt`; required for `prompts: "rich"`. */
  readonly onPrompt?: PromptHandler;
  /** Serves `client/ask_user`; required for `prompts: "simple"`. */
  readonly onAskUser?: AskUserHandler;
  /**
   * How many prompts (`client/prompt` and `client/ask_user` together) are served at once:
   * a whole number, at least 1 (default {@link DEFAULT_MAX_OPEN_PROMPTS}). A prompt counts until
   * its handler settles, also after `$/cancelRequest`. One more is not handed to a handler: it
   * is answered at once with the error `-32000` (`too_many_prompts`), which the agent records as
   * a failed prompt, never as the person's decision.
   */
  readonly maxOpenPrompts?: number;
}

/** The UI side of the connection. */
export interface RpcPromptClient {
  /** The server's answer to `initialize`, or why there is none. */
  readonly ready: Promise<Result<InitializeResult, RpcError>>;
  /** Resolves when the connection closes (e.g. the agent exited), with why. */
  readonly closed: Promise<RpcCloseReason>;
  /**
   * Aborts the prompts being shown, answers each with an error (`-32603`: the server must not
   * wait for them, nor read them as dismissed), and stops reading; the streams are left to their
   * owner.
   */
  close(): void;
}

/**
 * The UI side: announces itself with `initialize`, then serves the server's prompts. A handler
 * that throws becomes a JSON-RPC error response with its message (`-32800` if the prompt was
 * cancelled meanwhile); `$/cancelRequest` aborts the handler's signal.
 *
 * @example
 * const client = createRpcPromptClient({
 *   input: process.stdin,
 *   output: process.stdout,
 *   capabilities: { prompts: "rich" },
 *   onPrompt: (prompt, { signal }) => showDialog(prompt, signal),
 * });
 * (await client.ready).match((server) => console.error(`session ${server.session_id}`), fail);
 */
export function createRpcPromptClient(options: RpcPromptClientOptions): RpcPromptClient {
  const { capabilities, onPrompt, onAskUser } = options;
  checkCount("createRpcPromptClient", "maxLineBytes", options.maxLineBytes, "bytes");
  checkCount("createRpcPromptClient", "maxOpenPrompts", options.maxOpenPrompts, "prompts");
  if (capabilities.prompts === "rich" && onPrompt === undefined) {
    throw new TypeError('createRpcPromptClient: prompts "rich" needs an onPrompt handler');
  }
  if (capabilities.prompts === "simple" && onAskUser === undefined) {
    throw new TypeError('createRpcPromptClient: prompts "simple" needs an onAskUser handler');
  }
  // Only the methods this client has a handler for are served; others get -32601.
  const methods: Record<string, MethodHandler> = {};
  if (onPrompt !== undefined) {
    methods[RPC_METHODS.prompt] = defineMethod(promptParamsSchema, (params, { signal }) =>
      onPrompt(params.prompt, { signal, sessionId: params.session_id }),
    );
  }
  if (onAskUser !== undefined) {
    methods[RPC_METHODS.askUser] = defineMethod(askUserParamsSchema, async (params, { signal }) => {
      const answer = await onAskUser(params, { signal, sessionId: params.session_id });
      if (answer === null) throw DISMISSED();
      return typeof answer === "string" ? { answer } : answer;
    });
  }
  const max = options.maxOpenPrompts ?? DEFAULT_MAX_OPEN_PROMPTS;
  const refusal = {
    code: JSON_RPC_ERROR_CODES.too_many_prompts,
    message: `too many prompts at once: this client shows at most ${max} at a time, and this one was not shown`,
  };
  const peer = new RpcPeer({ ...options, methods, servingLimit: { max, refusal } });
  const hello: InitializeParams = {
    protocol_version: PROTOCOL_VERSION,
    capabilities,
    ...(options.clientInfo === undefined ? {} : { client_info: options.clientInfo }),
  };
  const { response } = peer.request(RPC_METHODS.initialize, hello);
  return {
    ready: response.then(initializeOutcome),
    closed: peer.closed,
    close: () => peer.close(),
  };
}

// Thrown inside the handler so that the peer answers with the error's code.
const DISMISSED = () =>
  new RpcError("remote", "the user dismissed the question", {
    code: JSON_RPC_ERROR_CODES.request_cancelled,
  });

function initializeOutcome(outcome: ResponseOutcome): Result<InitializeResult, RpcError> {
  switch (outcome.type) {
    case "result": {
      const parsed = initializeResultSchema.safeParse(outcome.result);
      if (parsed.success) return ok(parsed.data);
      const detail = describeIssues(parsed.error);
      return err(new RpcError("invalid_reply", `the initialize result is not valid: ${detail}`));
    }
    case "error": {
      const { code, message, data } = outcome.error;
      return err(
        new RpcError("remote", `the server refused initialize: ${message}`, { code, data }),
      );
    }
    case "malformed":
      return err(
        new RpcError(
          "invalid_reply",
          `the server answered initialize with an invalid response: ${outcome.reason}`,
        ),
      );
    case "cancelled":
    case "closed":
      return err(
        new RpcError("disconnected", "the connection closed before the server answered initialize"),
      );
  }
}
