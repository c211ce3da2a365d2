// JP names a conversation's directory `<id>` or `<id>-<slug>`: the id is the creation time in
// tenths of a second since the UNIX epoch (JP's `ConversationId`, an i64 of nanoseconds at heart,
// so at most 92233720368), and the slug the title with every character that is not a letter or
// a digit turned into `-`. Nothing else may name a directory under a store's root: no `.`, no
// separators, so no name can reach outside it.
const NAME = /^([0-9]+)(?:-[\p{L}\p{M}\p{N}-]*)?$/u;
const MAX_ID = 92_233_720_368n;
// The longest file name common file systems allow, in bytes.
const MAX_NAME_BYTES = 255;

/**
 * Whether `name` is a conversation directory name in JP's grammar: `<id>` or `<id>-<slug>`,
 * where the id is decimal digits (JP's decisecond timestamp, at most 92233720368) and the slug
 * letters, digits and `-`. {@link FileConversationStore} refuses every other name.
 *
 * @example
 * isConversationName("17727484633-preventing-rfd-summary-regeneration-churn"); // true
 * isConversationName("../outside"); // false
 */
export function isConversationName(name: string): boolean {
  return conversationNameProblem(name) === undefined;
}

/** Why `name` is not a conversation directory name, or `undefined` if it is one. */
export function conversationNameProblem(name: unknown): string | undefined {
  if (typeof name !== "string") return "a conversation name must be a string";
  if (name === "") return "a conversation name cannot be empty";
  const match = NAME.exec(name);
  if (match === null) {
    return `${JSON.stringify(name)} is not a conversation name: expected <id> or <id>-<slug>, where the id is digits and the slug letters, digits and "-"`;
  }
  if (BigInt(match[1] as string) > MAX_ID) {
    return `${JSON.stringify(name)} is not a conversation name: the id ${match[1]} is larger than JP's largest (${MAX_ID})`;
  }
  if (Buffer.byteLength(name, "utf-8") > MAX_NAME_BYTES) {
    // Its first 40 characters (code points): a character beyond U+FFFF is shown whole, not as a
    // lone surrogate's escape. 81 code units hold more than 40 code points.
    const start = Array.from(name.slice(0, 81)).slice(0, 40).join("");
    return `${JSON.stringify(start)}… is not a conversation name: longer than ${MAX_NAME_BYTES} bytes`;
  }
  return undefined;
}
