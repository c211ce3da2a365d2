import type { z } from "zod";
import { JSON_RPC_ERROR_CODES, RpcError } from "../errors.js";
import { describeIssues } from "../protocol.js";
import {
  errorMessage,
  type Outgoing,
  type RpcErrorObject,
  type RpcId,
  resultMessage,
} from "./message.js";

/** What a method handler is told besides its params. */
export interface HandlerContext {
  /** Aborts on `$/cancelRequest` for this request, and when the connection closes. */
  readonly signal: AbortSignal;
  /** Runs `callback` once the response has been written, e.g. to send requests only after it. */
  readonly afterReply: (callback: () => void) => void;
}

/** One served method (always a request): its params schema and its handler. */
export interface MethodHandler {
  readonly params: z.ZodType;
  readonly handle: (params: unknown, context: HandlerContext) => unknown;
}

/** The methods one side serves, by name. */
export type MethodTable = Readonly<Record<string, MethodHandler>>;

/** A response to send, and what to run once it is written. */
export interface Reply {
  readonly message: Outgoing;
  readonly after: readonly (() => void)[];
}

/** Pairs a params schema with a handler typed by it. */
export function defineMethod<S extends z.ZodType>(
  params: S,
  handle: (params: z.infer<S>, context: HandlerContext) => unknown,
): MethodHandler {
  return { params, handle: handle as MethodHandler["handle"] };
}

/** The handler of `method`; never one of `Object.prototype`'s names. */
export function findMethod(methods: MethodTable, method: string): MethodHandler | undefined {
  return Object.hasOwn(methods, method) ? methods[method] : undefined;
}

/** The `-32601` reply. */
export function methodNotFound(id: RpcId | null, method: string): Reply {
  const error = {
    code: JSON_RPC_ERROR_CODES.method_not_found,
    message: `Method not found: ${method}`,
  };
  return { message: errorMessage(id, error), after: [] };
}

const describe = (cause: unknown) => (cause instanceof Error ? cause.message : String(cause));

/**
 * Serves one request: checks its params (`-32602` with the issues as `data`), runs the handler,
 * and turns its result or its failure into the response.
 */
export async function serve(
  handler: MethodHandler,
  request: { readonly id: RpcId | null; readonly method: string; readonly params: unknown },
  signal: AbortSignal,
): Promise<Reply> {
  const { id, method } = request;
  const parsed = handler.params.safeParse(request.params);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => ({
      path: issue.path.map(String),
      message: issue.message,
    }));
    const error = {
      code: JSON_RPC_ERROR_CODES.invalid_params,
      message: `Invalid params for ${method}: ${describeIssues(parsed.error)}`,
      data: { issues },
    };
    return { message: errorMessage(id, error), after: [] };
  }
  const after: (() => void)[] = [];
  try {
    const result = await handler.handle(parsed.data, {
      signal,
      afterReply: (callback) => after.push(callback),
    });
    if (result !== undefined) return { message: resultMessage(id, result), after };
    const error = {
      code: JSON_RPC_ERROR_CODES.internal_error,
      message: `the handler of ${method} returned no result`,
    };
    return { message: errorMessage(id, error), after };
  } catch (cause) {
    return { message: errorMessage(id, errorObjectOf(cause, signal.aborted)), after };
  }
}

/** A thrown value as a JSON-RPC error: an {@link RpcError}'s own code, else internal error. */
function errorObjectOf(cause: unknown, cancelled: boolean): RpcErrorObject {
  if (RpcError.isInstance(cause) && cause.code !== undefined) {
    return {
      code: cause.code,
      message: cause.message,
      ...(cause.data === undefined ? {} : { data: cause.data }),
    };
  }
  if (cancelled) {
    return { code: JSON_RPC_ERROR_CODES.request_cancelled, message: "Request cancelled" };
  }
  return { code: JSON_RPC_ERROR_CODES.internal_error, message: describe(cause) };
}
