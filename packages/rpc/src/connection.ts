import type { Readable, Writable } from "node:stream";
import type { RpcError } from "./errors.js";

/** The longest line accepted by default: 1 MiB. A longer one is answered with `-32600`. */
export const DEFAULT_MAX_LINE_BYTES = 1024 * 1024;

/** The streams one side of the connection reads and writes, and how it treats foreign input. */
export interface ConnectionOptions {
  /** The peer's messages: a child's stdout, or this process's stdin. */
  readonly input: Readable;
  /** Where this side writes: a child's stdin, or this process's stdout. */
  readonly output: Writable;
  /**
   * The longest line accepted, in bytes, newline excluded (default 1 MiB): a whole number, at
   * least 1. Anything else (`NaN`, `0`, `1.5`, `Infinity`) throws at creation.
   */
  readonly maxLineBytes?: number;
  /**
   * Told about input that is not JSON-RPC 2.0 (already answered on the wire with an error, as
   * the spec asks), responses to unknown ids, error responses with a `null` id (the peer
   * complaining about something this side sent), and requests sent as notifications (not run).
   * For logging; the session goes on.
   */
  readonly onProtocolError?: (error: RpcError) => void;
}

/**
 * Why a connection closed: its input ended or failed, its output closed or failed, or this side
 * called `close()`. Either way, pending and later prompts reject with `HumanUnreachableError`.
 */
export interface RpcCloseReason {
  readonly kind: "input_ended" | "input_error" | "output_closed" | "output_error" | "closed";
  readonly message: string;
}
