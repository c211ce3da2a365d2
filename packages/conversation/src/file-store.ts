import type { Stats } from "node:fs";
import { mkdir, readdir } from "node:fs/promises";
import { join } from "node:path";
import { err, ok, type Result } from "neverthrow";
import {
  type ConversationMetadata,
  checkSaveOptions,
  loadConversation,
  readConversationBytes,
  type SaveOptions,
  type SaveResult,
  type StoredConversation,
  writeConversation,
} from "./conversation-files.js";
import { conversationNameProblem, isConversationName } from "./conversation-name.js";
import type { StoreError } from "./errors.js";
import { revisionOf } from "./internal/revision.js";
import {
  codeOf,
  describe,
  ensureRealDirectory,
  realDirectory,
  sameEntry,
  syncDirectory,
  unsafe,
} from "./internal/safe-fs.js";
import { ConversationStream } from "./stream.js";
import { formatTimestamp } from "./timestamp.js";

/**
 * Reads and writes conversations in JP's directory layout (`metadata.json`, `base_config.json`,
 * `events.json`), with tool arguments, tool results and metadata strings base64-encoded at rest.
 *
 * Only names in JP's grammar (see {@link isConversationName}) reach the file system, and no
 * symbolic link is followed below the root, so nothing outside the root is read or written.
 * Every write is atomic (a temporary file renamed over the old one), and saves are
 * compare-and-write: a save fails with a `conflict` error, writing nothing, when the files
 * changed since the conversation was loaded, also when another process changed them.
 *
 * @example
 * const store = new FileConversationStore(".jp/conversations");
 * const loaded = await store.load("17727484633-preventing-rfd-summary-regeneration-churn");
 * if (loaded.isOk()) {
 *   loaded.value.stream.startTurn("And now?");
 *   const saved = await store.save(loaded.value); // Err({ kind: "conflict" }) if someone saved since
 * }
 */
export class FileConversationStore {
  /** @param root The directory holding one sub-directory per conversation. */
  constructor(readonly root: string) {}

  /**
   * The names of the conversation directories under the root, sorted (empty if the root does
   * not exist). Entries that are not directories, symbolic links, hidden entries and names
   * outside JP's grammar are left out.
   */
  async list(): Promise<Result<string[], StoreError>> {
    try {
      const entries = await readdir(this.root, { withFileTypes: true });
      return ok(
        entries
          .filter((e) => e.isDirectory() && isConversationName(e.name))
          .map((e) => e.name)
          .sort(),
      );
    } catch (cause) {
      if (codeOf(cause) === "ENOENT") return ok([]);
      return err({ kind: "io", path: this.root, message: `cannot list ${this.root}`, cause });
    }
  }

  /**
   * Loads the conversation in directory `name` under the root. Its `revision` is that of the
   * files read. A name outside JP's grammar is an `invalid-id` error and a symbolic link for the
   * directory or one of its files an `unsafe-path` error; neither is followed.
   */
  async load(name: string): Promise<Result<StoredConversation, StoreError>> {
    const dir = await this.#existingDir(name);
    if (dir.isErr()) return err(dir.error);
    const loaded = await loadConversation(dir.value.path);
    if (loaded.isErr() || dir.value.stats === undefined) return loaded;
    // The directory swapped for another (a link) while it was read: its content is not returned.
    const after = await realDirectory(dir.value.path);
    if (after.isErr()) return err(after.error);
    if (after.value === undefined || !sameEntry(after.value, dir.value.stats)) {
      return err(unsafe(dir.value.path, "was replaced while it was read"));
    }
    return loaded;
  }

  /**
   * The current revision of the conversation's files (`null` if there is no conversation of
   * that name), to tell whether anyone saved since a load without loading again.
   */
  async revision(name: string): Promise<Result<string | null, StoreError>> {
    const dir = await this.#existingDir(name);
    if (dir.isErr()) return err(dir.error);
    if (dir.value.stats === undefined) return ok(null);
    const files = await readConversationBytes(dir.value.path, true);
    return files.map(revisionOf);
  }

  /**
   * Writes a conversation into its directory under the root, creating it if needed, if and only
   * if its files are still at `options.expectedRevision`, by default `conversation.revision`
   * (for a conversation never saved: that no conversation of that name exists). Otherwise it is
   * a `conflict` error and nothing is written: load again, apply the change, save. On success
   * `conversation.revision` is set to the new revision, so the same object can be saved again.
   * The compare and the write happen under a lock file in the conversation's directory, so two
   * processes saving at once cannot both succeed from the same revision.
   */
  async save(
    conversation: StoredConversation,
    options: SaveOptions = {},
  ): Promise<Result<SaveResult, StoreError>> {
    checkSaveOptions(options);
    const problem = conversationNameProblem(conversation.name);
    const path = join(this.root, String(conversation.name));
    if (problem !== undefined)
      return err({ kind: "invalid-id", path: this.root, message: problem });
    try {
      await mkdir(this.root, { recursive: true });
    } catch (cause) {
      return err({
        kind: "io",
        path: this.root,
        message: `cannot create ${this.root}: ${describe(cause)}`,
        cause,
      });
    }
    const dir = await ensureRealDirectory(path);
    if (dir.isErr()) return err(dir.error);
    const expectedRevision =
      options.expectedRevision !== undefined
        ? options.expectedRevision
        : (conversation.revision ?? null);
    // Checked again before anything is written: a directory swapped for a link meanwhile is refused.
    const guard = async (): Promise<Result<void, StoreError>> => {
      const now = await realDirectory(path);
      if (now.isErr()) return err(now.error);
      if (now.value === undefined || !sameEntry(now.value, dir.value)) {
        return err(unsafe(path, "was replaced while saving"));
      }
      return ok(undefined);
    };
    const saved = await writeConversation(
      path,
      conversation,
      { ...options, expectedRevision },
      guard,
    );
    if (saved.isOk()) {
      // A new conversation's directory is an entry of the root: flushed too, so it stays.
      if (expectedRevision === null) await syncDirectory(this.root);
      conversation.revision = saved.value.revision;
    }
    return saved;
  }

  /**
   * A new, empty conversation (not yet saved) named `<id>-<slug>` like JP's, where the id is the
   * creation time in tenths of a second.
   */
  create(options: { readonly title?: string; readonly now?: Date } = {}): StoredConversation {
    const now = options.now ?? new Date();
    const id = String(Math.floor(now.getTime() / 100));
    const slug = options.title === undefined ? "" : slugify(options.title);
    const metadata: ConversationMetadata = { last_activated_at: formatTimestamp(now) };
    if (options.title !== undefined) metadata.title = options.title;
    return {
      name: slug === "" ? id : `${id}-${slug}`,
      metadata,
      baseConfig: undefined,
      layout: "base_config",
      stream: ConversationStream.empty(),
    };
  }

  // The conversation's directory: a checked name, and the directory itself (no link) if present.
  async #existingDir(
    name: string,
  ): Promise<Result<{ path: string; stats: Stats | undefined }, StoreError>> {
    const problem = conversationNameProblem(name);
    if (problem !== undefined)
      return err({ kind: "invalid-id", path: this.root, message: problem });
    const path = join(this.root, name);
    const stats = await realDirectory(path);
    if (stats.isErr()) return err(stats.error);
    return ok({ path, stats: stats.value });
  }
}

function slugify(title: string): string {
  return (
    title
      .toLowerCase()
      .normalize("NFKD")
      // Accents come apart under NFKD; drop the marks so "é" becomes "e", not "e-".
      .replace(/[\u0300-\u036f]/g, "")
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 60)
      .replace(/-+$/, "")
  );
}
