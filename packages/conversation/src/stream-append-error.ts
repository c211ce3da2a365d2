import type { StreamError } from "./errors.js";

const BRAND = Symbol.for("@jp/conversation.StreamAppendError");

/**
 * Thrown by `ConversationStream.append` when the events break the turn rules: appending before
 * `startTurn()`, a `turn_start`, or a response without its request in the current turn. Each is
 * a mistake in the code that appends, so it fails loudly instead of being lost in an ignored
 * value. `error` holds the stable `kind` (and the offending `id`); use `tryAppend` to get it as a
 * `Result` instead, e.g. when appending events read from elsewhere.
 */
export class StreamAppendError extends Error {
  override readonly name = "StreamAppendError";
  readonly [BRAND] = true;

  constructor(readonly error: StreamError) {
    super(error.message);
  }

  /** Whether `value` is one, also from another copy of this package. */
  static isInstance(value: unknown): value is StreamAppendError {
    return typeof value === "object" && value !== null && BRAND in value;
  }
}
