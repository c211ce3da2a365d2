const BRAND = Symbol.for("@jp/builtins.OpenToolCallError");

/**
 * Thrown when a stream is mapped to provider messages while a tool call has no response yet:
 * every provider refuses a call without its result. The turn is suspended at a question (resume
 * it first), or was cut short (map a sanitized copy: `const copy = stream.clone(); copy.sanitize()`),
 * or the mapping is told to leave such calls out (`openCalls: "skip"`).
 */
export class OpenToolCallError extends Error {
  override readonly name = "OpenToolCallError";
  readonly [BRAND] = true;

  constructor(
    /** The id of the call without a response. */
    readonly toolCallId: string,
    /** The tool it calls. */
    readonly toolName: string,
  ) {
    super(
      `tool call "${toolCallId}" (${toolName}) has no response yet, and no provider accepts a call without its result: resume the suspended turn first, map a sanitized copy, or pass { openCalls: "skip" }`,
    );
  }

  /** Whether `value` is one, also from another copy of this package. */
  static isInstance(value: unknown): value is OpenToolCallError {
    return typeof value === "object" && value !== null && BRAND in value;
  }
}
