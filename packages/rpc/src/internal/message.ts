import { JSON_RPC_ERROR_CODES } from "../errors.js";

/** A JSON-RPC request id. `null` only appears in responses to messages whose id was unreadable. */
export type RpcId = string | number;

/** The `error` member of a JSON-RPC response. */
export interface RpcErrorObject {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

/** One incoming message, classified. Foreign input always lands in one of these; never a throw. */
export type Incoming =
  | {
      readonly type: "request";
      readonly id: RpcId | null;
      readonly method: string;
      readonly params: unknown;
    }
  | { readonly type: "notification"; readonly method: string; readonly params: unknown }
  | {
      readonly type: "response";
      readonly id: RpcId | null;
      readonly outcome:
        | { readonly type: "result"; readonly result: unknown }
        | { readonly type: "error"; readonly error: RpcErrorObject };
    }
  | {
      readonly type: "invalid";
      /** The id to answer with: the message's own for a broken call, else `null`. */
      readonly id: RpcId | null;
      readonly reason: string;
      /** A broken response carries the id of our request it meant to answer, if readable. */
      readonly answering?: RpcId;
    };

/** A message this package writes. */
export type Outgoing = Readonly<Record<string, unknown>>;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const isId = (value: unknown): value is RpcId =>
  typeof value === "string" || (typeof value === "number" && Number.isFinite(value));

const isStructured = (value: unknown) => typeof value === "object" && value !== null;

/**
 * Classifies one parsed JSON value (not a batch) as a request, notification, response, or an
 * invalid message with the reason and the id to answer to (`null` when the id is unreadable).
 */
export function classify(value: unknown): Incoming {
  if (!isObject(value)) {
    return invalid(null, "a JSON-RPC message must be a JSON object (or a batch array)");
  }
  const id = Object.hasOwn(value, "id") && isId(value.id) ? value.id : null;
  if (value.jsonrpc !== "2.0") {
    const reason = 'the "jsonrpc" member must be exactly "2.0"';
    if (Object.hasOwn(value, "method") || id === null) return invalid(id, reason);
    return { type: "invalid", id: null, reason, answering: id };
  }
  if (Object.hasOwn(value, "method")) return classifyCall(value, id);
  return classifyResponse(value, id);
}

function classifyCall(value: Record<string, unknown>, id: RpcId | null): Incoming {
  const { method, params } = value;
  if (typeof method !== "string") return invalid(id, 'the "method" member must be a string');
  if (Object.hasOwn(value, "result") || Object.hasOwn(value, "error")) {
    return invalid(id, 'a request must not carry "result" or "error"');
  }
  if (params !== undefined && !isStructured(params)) {
    return invalid(id, 'the "params" member must be an object or an array');
  }
  if (!Object.hasOwn(value, "id")) return { type: "notification", method, params };
  if (value.id !== null && !isId(value.id)) {
    return invalid(null, 'the "id" member must be a string, a number or null');
  }
  return { type: "request", id, method, params };
}

// A broken response is answered with id null: echoing its id would read, on the other side, as
// an error response to the peer's own request of that id.
function classifyResponse(value: Record<string, unknown>, id: RpcId | null): Incoming {
  if (!Object.hasOwn(value, "id")) {
    return invalid(null, 'a message needs a "method" (a request) or an "id" (a response)');
  }
  if (value.id !== null && !isId(value.id)) {
    return invalid(null, 'the "id" member of a response must be a string, a number or null');
  }
  const broken = (reason: string): Incoming =>
    id === null ? invalid(null, reason) : { type: "invalid", id: null, reason, answering: id };
  const hasResult = Object.hasOwn(value, "result");
  const hasError = Object.hasOwn(value, "error");
  if (hasResult === hasError) {
    return broken('a response must carry exactly one of "result" and "error"');
  }
  if (hasResult) return { type: "response", id, outcome: { type: "result", result: value.result } };
  const { error } = value;
  if (!isObject(error) || !Number.isInteger(error.code) || typeof error.message !== "string") {
    return broken('the "error" member must be an object with an integer "code" and a "message"');
  }
  const errorObject: RpcErrorObject = {
    code: error.code as number,
    message: error.message,
    ...(Object.hasOwn(error, "data") ? { data: error.data } : {}),
  };
  return { type: "response", id, outcome: { type: "error", error: errorObject } };
}

function invalid(id: RpcId | null, reason: string): Incoming {
  return { type: "invalid", id, reason };
}

/** A request message. */
export function requestMessage(id: RpcId, method: string, params: unknown): Outgoing {
  return { jsonrpc: "2.0", id, method, params };
}

/** A notification message. */
export function notificationMessage(method: string, params: unknown): Outgoing {
  return { jsonrpc: "2.0", method, params };
}

/** A success response. */
export function resultMessage(id: RpcId | null, result: unknown): Outgoing {
  return { jsonrpc: "2.0", id, result };
}

/** An error response. */
export function errorMessage(id: RpcId | null, error: RpcErrorObject): Outgoing {
  return { jsonrpc: "2.0", id, error };
}

/**
 * The error response for an input line that is not JSON: with the id of the request it holds
 * when that is readable, so that its sender does not wait for ever; else `null`.
 */
export function parseErrorMessage(id: RpcId | null, detail: string): Outgoing {
  return errorMessage(id, {
    code: JSON_RPC_ERROR_CODES.parse_error,
    message: `Parse error: ${detail}`,
  });
}

/** The error response for a message that is not a valid request or response. */
export function invalidRequestMessage(id: RpcId | null, reason: string): Outgoing {
  return errorMessage(id, {
    code: JSON_RPC_ERROR_CODES.invalid_request,
    message: `Invalid Request: ${reason}`,
  });
}
