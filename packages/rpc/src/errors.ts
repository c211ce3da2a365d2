/**
 * The error codes this package sends and understands: JSON-RPC 2.0's own, plus LSP's
 * `RequestCancelled`, which a client uses to say "the user dismissed this prompt", and one of
 * the codes JSON-RPC 2.0 leaves to implementations (-32000 to -32099): `too_many_prompts`, the
 * answer of a client that already shows as many prompts as it serves at once.
 */
export const JSON_RPC_ERROR_CODES = {
  parse_error: -32700,
  invalid_request: -32600,
  method_not_found: -32601,
  invalid_params: -32602,
  internal_error: -32603,
  request_cancelled: -32800,
  too_many_prompts: -32000,
} as const;

/**
 * Why an RPC operation failed, as a stable code a host can switch on:
 * - `remote`: the peer answered with a JSON-RPC error (its `code` is kept);
 * - `invalid_reply`: the peer's result does not have the promised shape;
 * - `unsupported_prompt`: the client's capabilities cannot show this prompt (the `cause` of the
 *   `PromptUnsupportedError` a prompt rejects with);
 * - `no_client`: no client said hello before the handshake deadline (the `cause` of a
 *   `HumanUnreachableError`);
 * - `disconnected`: the connection is closed (the `cause` of a `HumanUnreachableError`; the
 *   client side's `ready` fails with it directly);
 * - `timeout`: the client did not answer within `timeoutMs`;
 * - `protocol`: the peer sent something that is not JSON-RPC 2.0 (reported, never thrown).
 */
export type RpcErrorKind =
  | "remote"
  | "invalid_reply"
  | "unsupported_prompt"
  | "no_client"
  | "disconnected"
  | "timeout"
  | "protocol";

/** Options of {@link RpcError}. */
export interface RpcErrorOptions {
  /** The JSON-RPC error code, when the failure has one on the wire. */
  readonly code?: number;
  /** The `data` member of a JSON-RPC error object. */
  readonly data?: unknown;
  readonly cause?: unknown;
}

// A registry-wide symbol, so that two copies of this package still recognise each other's errors.
const BRAND = Symbol.for("@jp/rpc/RpcError");

/**
 * The one error class of @jp/rpc. A prompt that fails rejects with it (the coordinator records a
 * backend error); `kind` says why and `code` carries the JSON-RPC code when there is one. When
 * the person cannot be reached, the client cannot show the prompt, or it did not answer within
 * `timeoutMs`, the prompt rejects with the coordinator's `HumanUnreachableError`,
 * `PromptUnsupportedError` or `PromptTimedOutError` instead, whose `cause` is the `RpcError`.
 *
 * @example
 * try { await backend.ask(request, { signal }); }
 * catch (error) { if (RpcError.isInstance(error) && error.kind === "remote") log(error.code); }
 */
export class RpcError extends Error {
  readonly kind: RpcErrorKind;
  readonly code: number | undefined;
  readonly data: unknown;
  readonly [BRAND] = true;

  constructor(kind: RpcErrorKind, message: string, options: RpcErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "RpcError";
    this.kind = kind;
    this.code = options.code;
    this.data = options.data;
  }

  /** Whether `value` is an {@link RpcError}, also one from another copy of this package. */
  static isInstance(value: unknown): value is RpcError {
    return typeof value === "object" && value !== null && BRAND in value;
  }
}
