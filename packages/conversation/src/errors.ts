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
    | "no-such-event"
    | "nested-too-deep";
  readonly message: string;
  /** The `id` of the offending response (or, for `nested-too-deep`, event), where there is one. */
  readonly id?: string;
  /** For `nested-too-deep`: the position of the refused event among those appended together. */
  readonly index?: number;
}

/**
 * Why the file store could not load or save a conversation, by `kind`:
 * - `not-found`: a file the conversation needs is missing;
 * - `corrupt`: a file is not what JP writes;
 * - `io`: the file system refused (permissions, a file where a directory belongs, …);
 * - `invalid-id`: a conversation name that is not JP's `<id>` or `<id>-<slug>`;
 * - `unsafe-path`: a symbolic link (or special file) where a conversation's directory or files
 *   belong; it is never followed;
 * - `locked`: another writer held the conversation's save lock for too long;
 * - `conflict` ({@link StoreConflict}): the files changed since the conversation was loaded.
 */
export type StoreError = StoreFailure | StoreConflict;

/** Every {@link StoreError} but a conflict. */
export interface StoreFailure {
  readonly kind: "not-found" | "corrupt" | "io" | "invalid-id" | "unsafe-path" | "locked";
  /** The file or directory concerned. */
  readonly path: string;
  readonly message: string;
  readonly cause?: unknown;
}

/**
 * A save refused because the conversation's files are not the revision the saver expected:
 * another writer saved in between (or, for a new conversation, one already exists there).
 * Nothing was written. Load the conversation again, apply the change to it, and save that.
 */
export interface StoreConflict {
  readonly kind: "conflict";
  /** The conversation's directory. */
  readonly path: string;
  readonly message: string;
  /** The revision the save expected (`null`: no conversation there). */
  readonly expectedRevision: string | null;
  /** The revision found on disk (`null`: no conversation there). */
  readonly currentRevision: string | null;
  readonly cause?: undefined;
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
