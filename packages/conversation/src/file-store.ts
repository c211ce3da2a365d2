import { randomBytes } from "node:crypto";
import { mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { err, ok, type Result } from "neverthrow";
import { z } from "zod";
import { decodeEvent, encodeEvent } from "./codec.js";
import type { StoreError } from "./errors.js";
import { isConfigDelta, type StreamEvent } from "./events.js";
import { fromDisk, toDisk } from "./internal/at-rest.js";
import { keepUnknownKeys } from "./internal/keep-unknown-keys.js";
import { isPlainObject, type JsonObject, jsonObjectSchema } from "./json.js";
import { ConversationStream } from "./stream.js";
import { formatTimestamp } from "./timestamp.js";

/** `metadata.json`: the conversation's title and dates. Unknown fields are kept. */
export const conversationMetadataSchema = keepUnknownKeys(
  z.object({
    title: z.string().optional(),
    last_activated_at: z.string(),
    pinned_at: z.string().optional(),
    archived_at: z.string().optional(),
    expires_at: z.string().optional(),
    labels: z.array(z.string()).optional(),
  }),
);
/** `metadata.json`: the conversation's title and dates. */
export type ConversationMetadata = z.output<typeof conversationMetadataSchema>;

/**
 * Where the base configuration lives: JP's current `base_config.json`, or the legacy layout in
 * which the first entry of `events.json` is a `config_delta` holding it.
 */
export type ConversationLayout = "base_config" | "legacy_config_delta";

/** A conversation as stored in one directory. */
export interface StoredConversation {
  /** The directory name, JP's `<id>` or `<id>-<slug>`. */
  readonly name: string;
  metadata: ConversationMetadata;
  /** The base configuration (`base_config.json`); see {@link baseConfigOf} for either layout. */
  baseConfig: JsonObject | undefined;
  readonly layout: ConversationLayout;
  readonly stream: ConversationStream;
}

const FILES = { metadata: "metadata.json", baseConfig: "base_config.json", events: "events.json" };

// The on-disk JSON each loaded event came from: an event nobody replaced is saved exactly as it
// was read, so strings that were not base64 on disk stay that way.
const readFrom = new WeakMap<StreamEvent, unknown>();

/**
 * Reads and writes conversations in JP's directory layout (`metadata.json`, `base_config.json`,
 * `events.json`), with tool arguments, tool results and metadata strings base64-encoded at rest.
 * Every write is atomic (a temporary file renamed over the old one).
 *
 * @example
 * const store = new FileConversationStore(".jp/conversations");
 * const loaded = await store.load("17727484633-preventing-rfd-summary-regeneration-churn");
 * if (loaded.isOk()) console.log(loaded.value.stream.turns().length);
 */
export class FileConversationStore {
  /** @param root The directory holding one sub-directory per conversation. */
  constructor(readonly root: string) {}

  /** The names of the conversation directories under the root (empty if it does not exist). */
  async list(): Promise<Result<string[], StoreError>> {
    try {
      const entries = await readdir(this.root, { withFileTypes: true });
      return ok(
        entries
          .filter((e) => e.isDirectory() && !e.name.startsWith("."))
          .map((e) => e.name)
          .sort(),
      );
    } catch (cause) {
      if (isNotFound(cause)) return ok([]);
      return err({ kind: "io", path: this.root, message: `cannot list ${this.root}`, cause });
    }
  }

  /** Loads the conversation in directory `name` under the root. */
  load(name: string): Promise<Result<StoredConversation, StoreError>> {
    return loadConversation(join(this.root, name));
  }

  /** Writes a conversation into its directory under the root, creating it if needed. */
  save(conversation: StoredConversation): Promise<Result<void, StoreError>> {
    return saveConversation(join(this.root, conversation.name), conversation);
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
}

/** The base configuration of a conversation, from `base_config.json` or a legacy leading delta. */
export function baseConfigOf(conversation: StoredConversation): JsonObject | undefined {
  if (conversation.layout === "base_config") return conversation.baseConfig;
  const first = conversation.stream.events[0];
  return first !== undefined && isConfigDelta(first) ? first.delta : undefined;
}

/** Loads the conversation stored in `dir`. Missing or corrupt files are `Err`s naming the file. */
export async function loadConversation(
  dir: string,
): Promise<Result<StoredConversation, StoreError>> {
  const metadataJson = await readJson(join(dir, FILES.metadata));
  if (metadataJson.isErr()) return err(metadataJson.error);
  const metadata = conversationMetadataSchema.safeParse(metadataJson.value);
  if (!metadata.success) {
    return err(corrupt(join(dir, FILES.metadata), metadata.error.issues[0]?.message));
  }
  const eventsJson = await readJson(join(dir, FILES.events));
  if (eventsJson.isErr()) return err(eventsJson.error);
  const stream = decodeStoredEvents(join(dir, FILES.events), eventsJson.value);
  if (stream.isErr()) return err(stream.error);

  let baseConfig: JsonObject | undefined;
  // Legacy conversations carry their base config as a leading config_delta instead of a file.
  const first = stream.value.events[0];
  let layout: ConversationLayout =
    first !== undefined && isConfigDelta(first) ? "legacy_config_delta" : "base_config";
  const baseJson = await readJson(join(dir, FILES.baseConfig));
  if (baseJson.isOk()) {
    const parsed = jsonObjectSchema.safeParse(baseJson.value);
    if (!parsed.success) return err(corrupt(join(dir, FILES.baseConfig), "expected a JSON object"));
    baseConfig = parsed.data;
    layout = "base_config";
  } else if (baseJson.error.kind !== "not-found") {
    return err(baseJson.error);
  }
  const name = dir.split(/[\\/]/).filter(Boolean).pop() ?? dir;
  return ok({ name, metadata: metadata.data, baseConfig, layout, stream: stream.value });
}

/** Writes `conversation` into `dir` (created if needed), each file atomically. */
export async function saveConversation(
  dir: string,
  conversation: StoredConversation,
): Promise<Result<void, StoreError>> {
  try {
    await mkdir(dir, { recursive: true });
    const events = conversation.stream.events.map(
      (event) => readFrom.get(event) ?? toDisk(encodeEvent(event)),
    );
    await writeJsonAtomic(join(dir, FILES.events), events);
    if (conversation.layout === "base_config" && conversation.baseConfig !== undefined) {
      await writeJsonAtomic(join(dir, FILES.baseConfig), conversation.baseConfig);
    }
    await writeJsonAtomic(join(dir, FILES.metadata), conversation.metadata);
    return ok(undefined);
  } catch (cause) {
    return err({
      kind: "io",
      path: dir,
      message: `cannot save the conversation in ${dir}: ${describe(cause)}`,
      cause,
    });
  }
}

function decodeStoredEvents(path: string, json: unknown): Result<ConversationStream, StoreError> {
  if (!Array.isArray(json)) return err(corrupt(path, "expected an array of events"));
  const events: StreamEvent[] = [];
  for (let i = 0; i < json.length; i++) {
    let plain: unknown;
    try {
      plain = fromDisk(json[i]);
    } catch {
      // Only a pathologically nested entry can overflow the stack while decoding base64.
      return err(corrupt(path, `[${i}]: too deeply nested`));
    }
    const decoded = decodeEvent(plain, [i]);
    if (decoded.isErr()) return err(corrupt(path, decoded.error.message));
    // A redacted response found with an answer is written back without it.
    const stray = isPlainObject(plain) && plain.outcome === "redacted" && "answer" in plain;
    if (!stray) readFrom.set(decoded.value, json[i]);
    events.push(decoded.value);
  }
  return ok(ConversationStream.from(events));
}

async function readJson(path: string): Promise<Result<unknown, StoreError>> {
  let text: string;
  try {
    text = await readFile(path, "utf-8");
  } catch (cause) {
    if (isNotFound(cause))
      return err({ kind: "not-found", path, message: `${path} does not exist`, cause });
    return err({ kind: "io", path, message: `cannot read ${path}: ${describe(cause)}`, cause });
  }
  try {
    return ok(JSON.parse(text));
  } catch (cause) {
    return err(corrupt(path, `not valid JSON (${describe(cause)})`));
  }
}

// Written beside the target and renamed over it, so a crash never leaves a half-written file.
async function writeJsonAtomic(path: string, value: unknown): Promise<void> {
  const temp = `${path}.tmp-${process.pid}-${randomBytes(4).toString("hex")}`;
  try {
    await writeFile(temp, `${JSON.stringify(value, null, 2)}\n`, "utf-8");
    await rename(temp, path);
  } catch (cause) {
    await rm(temp, { force: true });
    throw cause;
  }
}

function corrupt(path: string, reason: string | undefined): StoreError {
  return { kind: "corrupt", path, message: `${path} is corrupt: ${reason ?? "unexpected shape"}` };
}

function isNotFound(cause: unknown): boolean {
  return (cause as { code?: unknown } | null)?.code === "ENOENT";
}

function describe(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
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
