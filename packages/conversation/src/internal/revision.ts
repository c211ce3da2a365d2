/** The files of a conversation directory, as bytes (`undefined`: absent). */
export interface ConversationBytes {
  readonly metadata: Buffer | undefined;
  readonly baseConfig: Buffer | undefined;
  readonly events: Buffer | undefined;
}

/**
 * The revision of a conversation's files: a SHA-256 over the exact bytes of `metadata.json`,
 * `base_config.json` and `events.json` (each length-prefixed, absence marked), or `null` when
 * none of them exists. Content, not modification times: it is the same on every machine and
 * for every writer, JP included, and no two different contents share one.
 */
export function revisionOf(files: ConversationBytes): string | null {
  const parts = [files.metadata, files.baseConfig, files.events];
  if (parts.every((bytes) => bytes === undefined)) return null;
  // Loaded on first use: `node:crypto` weighs on the import of the package otherwise.
  const hash = process.getBuiltinModule("node:crypto").createHash("sha256");
  for (const bytes of parts) {
    if (bytes === undefined) hash.update("absent\n");
    else hash.update(`${bytes.length}\n`).update(bytes);
  }
  return `sha256:${hash.digest("hex")}`;
}
