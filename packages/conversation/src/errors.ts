/** A path into a JSON document: object keys and array indexes. */
export type JsonPath = readonly (string | number)[];

/** Foreign JSON that does not fit the expected shape. Decoders return it; they never throw. */
export interface DecodeError {
  readonly kind: "decode";
  /** Where in the input the problem is. */
  readonly path: JsonPath;
  /** What was wrong, prefixed with the path, e.g. `events[3].id: expected a string`. */
  readonly message: string;
}

/** Why an event could not be appended to a {@link ConversationStream} turn. */
export interface StreamError {
  readonly kind:
    | "orphaned-tool-call-response"
    | "duplicate-tool-call-response"
    | "orphaned-inquiry-response"
    | "duplicate-inquiry-response"
    | "turn-start-not-allowed"
    | "no-turn"
    | "no-such-event";
  readonly message: string;
  /** The `id` of the offending response, where there is one. */
  readonly id?: string;
}

/** Why the file store could not load or save a conversation. */
export interface StoreError {
  readonly kind: "not-found" | "corrupt" | "io";
  /** The file or directory concerned. */
  readonly path: string;
  readonly message: string;
  readonly cause?: unknown;
}

/** Formats a JSON path the way error messages show it: `events[3].question.text`. */
export function formatPath(path: JsonPath): string {
  let out = "";
  for (const segment of path) {
    if (typeof segment === "number") out += `[${segment}]`;
    else out += out === "" ? segment : `.${segment}`;
  }
  return out === "" ? "(root)" : out;
}

/** Builds a {@link DecodeError} whose message starts with the formatted path. */
export function decodeError(path: JsonPath, reason: string): DecodeError {
  return { kind: "decode", path, message: `${formatPath(path)}: ${reason}` };
}
