import { mkdir, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import { err, ok, Result } from "neverthrow";
import type { z } from "zod";
import { encodeEvent } from "./codec.js";
import type { StoreError } from "./errors.js";
import { isConfigDelta, type StreamEvent } from "./events.js";
import { AtRestReader, toDisk } from "./internal/at-rest.js";
import {
  entriesText,
  hasInexactInteger,
  inexactEntries,
  RawEntry,
} from "./internal/exact-numbers.js";
import { keepUnknownKeys } from "./internal/keep-unknown-keys.js";
import { lazy, zod } from "./internal/lazy.js";
import { editedText } from "./internal/metadata-edit.js";
import { numbersSeen } from "./internal/numbers-seen.js";
import { readableJson } from "./internal/readable-json.js";
import { type ConversationBytes, revisionOf } from "./internal/revision.js";
import {
  describe,
  readRegularFile,
  syncDirectory,
  writeNewFileDurably,
} from "./internal/safe-fs.js";
import {
  acquireSaveLock,
  holdsSaveLock,
  releaseSaveLock,
  type SaveLock,
} from "./internal/save-lock.js";
import { decodeStoredEntry, readStoredEntry } from "./internal/stored-entry.js";
import { removeStaleTempFiles, tempPathFor } from "./internal/temp-files.js";
import { isJsonObject, isPlainObject, type JsonObject, setOwn } from "./json.js";
import { adoptEvents, type ConversationStream } from "./stream.js";

// JP's files of one conversation directory: reading them (tolerantly, never through a symbolic
// link) and writing them (atomically, as a compare-and-write under the directory's save lock).

/**
 * `metadata.json`: the conversation's title and dates. Unknown fields are kept. Exported for the
 * test that holds {@link decodeMetadata}'s fast path to it.
 */
export const metadataSchema = lazy(() => {
  const z = zod();
  return keepUnknownKeys(
    z.object({
      title: z.string().optional(),
      last_activated_at: z.string(),
      pinned_at: z.string().optional(),
      archived_at: z.string().optional(),
      expires_at: z.string().optional(),
      labels: z.array(z.string()).optional(),
    }),
  );
});
/** `metadata.json`: the conversation's title and dates. */
export type ConversationMetadata = z.output<ReturnType<typeof metadataSchema>>;

// The string fields of `metadata.json`, in the order the schema writes them.
const METADATA_STRINGS = ["title", "last_activated_at", "pinned_at", "archived_at", "expires_at"];

/**
 * `metadata.json` as the schema reads it, for the usual file (known fields of the right types):
 * the same object, without loading the schema. `undefined` means "take the schema".
 */
function usualMetadata(json: unknown): ConversationMetadata | undefined {
  if (!isPlainObject(json) || typeof json.last_activated_at !== "string") return undefined;
  const out: Record<string, unknown> = {};
  for (const key of METADATA_STRINGS) {
    const value = json[key];
    if (value === undefined) continue;
    if (typeof value !== "string") return undefined;
    out[key] = value;
  }
  const { labels } = json;
  if (labels !== undefined) {
    if (!Array.isArray(labels) || !labels.every((label) => typeof label === "string")) {
      return undefined;
    }
    out.labels = [...labels];
  }
  for (const key in json) {
    if (key !== "labels" && !METADATA_STRINGS.includes(key)) setOwn(out, key, json[key]);
  }
  return out as ConversationMetadata;
}

/** Reads `metadata.json`; the error is the schema's first message. */
export function decodeMetadata(json: unknown): Result<ConversationMetadata, string | undefined> {
  const usual = usualMetadata(json);
  if (usual !== undefined) return ok(usual);
  const parsed = metadataSchema().safeParse(json);
  return parsed.success ? ok(parsed.data) : err(parsed.error.issues[0]?.message);
}

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
  /**
   * The revision of the files this conversation was loaded from (or last saved to by
   * {@link FileConversationStore.save}); absent for a conversation not yet saved. An opaque
   * token: compare with `===`. {@link FileConversationStore.save} refuses to write over files
   * of any other revision.
   */
  revision?: string;
}

/** Options of {@link FileConversationStore.save} and {@link saveConversation}. */
export interface SaveOptions {
  /**
   * The revision the files must have for the save to go ahead (`null`: no conversation may be
   * there yet); otherwise the save is a `conflict` error and writes nothing.
   * {@link FileConversationStore.save} defaults it to `conversation.revision ?? null`;
   * {@link saveConversation} checks nothing unless it is given.
   */
  readonly expectedRevision?: string | null;
  /**
   * How long to wait for another writer of the same conversation to finish (default 10 s): a
   * number of milliseconds from 0 (do not wait) to `Infinity`. Anything else makes the save
   * throw a `RangeError` before it touches the disk.
   */
  readonly lockTimeoutMs?: number;
}

/**
 * Throws a `RangeError` for save options no save can honour: a `lockTimeoutMs` that is not a
 * number from 0 to `Infinity` (a `NaN` never times out, so a save waited for a live writer until
 * its lock was old enough to break instead of reporting it `locked`).
 */
export function checkSaveOptions(options: SaveOptions): void {
  const { lockTimeoutMs } = options;
  if (lockTimeoutMs === undefined) return;
  if (typeof lockTimeoutMs !== "number" || Number.isNaN(lockTimeoutMs) || lockTimeoutMs < 0) {
    const shown = typeof lockTimeoutMs === "number" ? String(lockTimeoutMs) : typeof lockTimeoutMs;
    throw new RangeError(
      `lockTimeoutMs must be a number of milliseconds from 0 to Infinity, got ${shown}`,
    );
  }
}

/** What a successful save wrote. */
export interface SaveResult {
  /** The revision of the files as this save left them. */
  readonly revision: string;
}

const FILES = { metadata: "metadata.json", baseConfig: "base_config.json", events: "events.json" };
const DEFAULT_LOCK_TIMEOUT_MS = 10_000;

// The on-disk JSON each loaded event came from: an event nobody replaced is saved exactly as it
// was read, so strings that were not base64 on disk stay that way.
const readFrom = new WeakMap<StreamEvent, unknown>();

// An event made from a loaded entry written back as its text by changing its metadata alone:
// that text with the new metadata, so the entry's other numbers stay as they were read.
// `undefined` for any other event (encoded as usual).
function editedEntry(event: StreamEvent): RawEntry | undefined {
  const text = editedText(
    event,
    (origin) => {
      const raw = readFrom.get(origin as StreamEvent);
      return raw instanceof RawEntry ? raw.text : undefined;
    },
    () => (toDisk(encodeEvent(event)) as { metadata?: unknown }).metadata,
  );
  return text === undefined ? undefined : new RawEntry(text);
}

// The bytes a loaded `metadata.json` or `base_config.json` came from, when they hold an integer
// JSON.parse rounded, with the JSON of the object as loaded: saved unchanged, the file is
// written back as it was read, not with the rounded integer.
const readBytes = new WeakMap<object, { readonly json: string; readonly bytes: Buffer }>();

function keepBytes(value: object, bytes: Buffer): void {
  if (hasInexactInteger(bytes.toString("utf-8"))) {
    readBytes.set(value, { json: JSON.stringify(value), bytes });
  }
}

// The bytes to write for a metadata or base configuration object.
function fileBytes(value: object): Buffer {
  const read = readBytes.get(value);
  if (read === undefined || JSON.stringify(value) !== read.json) return jsonBytes(value);
  // Bytes read are written back as they are, unless they hold a surrogate's escape.
  if (!read.bytes.includes("\\ud") && !read.bytes.includes("\\uD")) return read.bytes;
  return Buffer.from(readableJson(read.bytes.toString("utf-8")), "utf-8");
}

/** The base configuration of a conversation, from `base_config.json` or a legacy leading delta. */
export function baseConfigOf(conversation: StoredConversation): JsonObject | undefined {
  if (conversation.layout === "base_config") return conversation.baseConfig;
  const first = conversation.stream.events[0];
  return first !== undefined && isConfigDelta(first) ? first.delta : undefined;
}

/**
 * Loads the conversation stored in `dir`. Missing or corrupt files are `Err`s naming the file;
 * a symbolic link in place of one of its files is an `unsafe-path` error (never followed).
 */
export async function loadConversation(
  dir: string,
): Promise<Result<StoredConversation, StoreError>> {
  const metadataBytes = await readRequired(join(dir, FILES.metadata));
  if (metadataBytes.isErr()) return err(metadataBytes.error);
  const metadataJson = parseJson(join(dir, FILES.metadata), metadataBytes.value);
  if (metadataJson.isErr()) return err(metadataJson.error);
  const metadata = decodeMetadata(metadataJson.value);
  if (metadata.isErr()) return err(corrupt(join(dir, FILES.metadata), metadata.error));
  keepBytes(metadata.value, metadataBytes.value);
  const eventsBytes = await readRequired(join(dir, FILES.events));
  if (eventsBytes.isErr()) return err(eventsBytes.error);
  const eventsText = eventsBytes.value.toString("utf-8");
  const eventsJson = parseJsonText(join(dir, FILES.events), eventsText);
  if (eventsJson.isErr()) return err(eventsJson.error);
  const stream = decodeStoredEvents(join(dir, FILES.events), eventsJson.value, eventsText);
  if (stream.isErr()) return err(stream.error);

  let baseConfig: JsonObject | undefined;
  // Legacy conversations carry their base config as a leading config_delta instead of a file.
  const first = stream.value.events[0];
  let layout: ConversationLayout =
    first !== undefined && isConfigDelta(first) ? "legacy_config_delta" : "base_config";
  const baseBytes = await readRegularFile(join(dir, FILES.baseConfig));
  if (baseBytes.isErr()) return err(baseBytes.error);
  if (baseBytes.value !== undefined) {
    const baseJson = parseJson(join(dir, FILES.baseConfig), baseBytes.value);
    if (baseJson.isErr()) return err(baseJson.error);
    if (!isJsonObject(baseJson.value)) {
      return err(corrupt(join(dir, FILES.baseConfig), "expected a JSON object"));
    }
    baseConfig = baseJson.value;
    keepBytes(baseConfig, baseBytes.value);
    layout = "base_config";
  }
  const name = dir.split(/[\\/]/).filter(Boolean).pop() ?? dir;
  const revision = revisionOf({
    metadata: metadataBytes.value,
    baseConfig: baseBytes.value,
    events: eventsBytes.value,
  }) as string;
  return ok({ name, metadata: metadata.value, baseConfig, layout, stream: stream.value, revision });
}

/**
 * Writes `conversation` into `dir` (created if needed), each file atomically, under the
 * directory's save lock. With `options.expectedRevision` it is a compare-and-write like
 * {@link FileConversationStore.save}; without, it overwrites whatever is there. Temporary files
 * left by writers that died mid-save are removed. `conversation` is not changed: the new
 * revision is in the result.
 */
export async function saveConversation(
  dir: string,
  conversation: StoredConversation,
  options: SaveOptions = {},
): Promise<Result<SaveResult, StoreError>> {
  checkSaveOptions(options);
  try {
    await mkdir(dir, { recursive: true });
  } catch (cause) {
    return err(saveFailed(dir, cause));
  }
  return writeConversation(dir, conversation, options);
}

/** A check that the directory is still the one the save is meant for (not a swapped-in link). */
export type DirectoryGuard = () => Promise<Result<void, StoreError>>;

const unguarded: DirectoryGuard = async () => ok(undefined);

/** The write behind every save (not part of the public API). */
export async function writeConversation(
  dir: string,
  conversation: StoredConversation,
  options: SaveOptions,
  guard: DirectoryGuard = unguarded,
): Promise<Result<SaveResult, StoreError>> {
  const { expectedRevision } = options;
  const lock = await acquireSaveLock(dir, options.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS);
  if (lock.isErr()) return err(lock.error);
  try {
    const current = await readConversationBytes(dir, expectedRevision !== undefined);
    if (current.isErr()) return err(current.error);
    if (expectedRevision !== undefined) {
      const found = revisionOf(current.value);
      if (found !== expectedRevision) return err(conflict(dir, expectedRevision, found));
    }
    await removeStaleTempFiles(dir);
    const events = conversation.stream.events.map(
      (event) => readFrom.get(event) ?? editedEntry(event) ?? toDisk(encodeEvent(event)),
    );
    const writeBase =
      conversation.layout === "base_config" && conversation.baseConfig !== undefined;
    const files: ConversationBytes = {
      // Laid out entry by entry only when an entry is written as its text: nearly never.
      events: events.some((entry) => entry instanceof RawEntry)
        ? Buffer.from(readableJson(entriesText(events)), "utf-8")
        : jsonBytes(events),
      baseConfig:
        writeBase && conversation.baseConfig !== undefined
          ? fileBytes(conversation.baseConfig)
          : current.value.baseConfig,
      metadata: fileBytes(conversation.metadata),
    };
    const written = await commitFiles(dir, files, writeBase, lock.value, guard);
    if (written.isErr()) return err(written.error);
    return ok({ revision: revisionOf(files) as string });
  } catch (cause) {
    return err(saveFailed(dir, cause));
  } finally {
    await releaseSaveLock(lock.value);
  }
}

// Every file is written beside its target first and flushed to the disk; the renames follow
// only while the lock is still this writer's, and the directory is flushed after them. So a
// crash, of the process or of the machine, leaves either the old or the new file, never half of
// one, and a save that returned is on the disk.
async function commitFiles(
  dir: string,
  files: ConversationBytes,
  writeBase: boolean,
  lock: SaveLock,
  guard: DirectoryGuard,
): Promise<Result<void, StoreError>> {
  const order: [string, Buffer | undefined][] = [
    [FILES.events, files.events],
    [FILES.baseConfig, writeBase ? files.baseConfig : undefined],
    [FILES.metadata, files.metadata],
  ];
  const temps: [temp: string, target: string][] = [];
  const before = await guard();
  if (before.isErr()) return before;
  try {
    for (const [file, bytes] of order) {
      if (bytes === undefined) continue;
      const target = join(dir, file);
      const temp = tempPathFor(target);
      temps.push([temp, target]);
      await writeNewFileDurably(temp, bytes);
    }
    if (!(await holdsSaveLock(lock))) {
      return err({
        kind: "locked",
        path: lock.path,
        message: `the save lock of ${dir} was taken over while saving; nothing was written`,
      });
    }
    const after = await guard();
    if (after.isErr()) return after;
    for (const [temp, target] of temps) await rename(temp, target);
    await syncDirectory(dir);
    return ok(undefined);
  } finally {
    for (const [temp] of temps) await rm(temp, { force: true });
  }
}

// The conversation's files as they are on disk now (`all`: also those a save would overwrite,
// to compute the revision).
export async function readConversationBytes(
  dir: string,
  all: boolean,
): Promise<Result<ConversationBytes, StoreError>> {
  const read = async (file: string): Promise<Result<Buffer | undefined, StoreError>> =>
    all || file === FILES.baseConfig ? readRegularFile(join(dir, file)) : ok(undefined);
  const [metadata, baseConfig, events] = await Promise.all([
    read(FILES.metadata),
    read(FILES.baseConfig),
    read(FILES.events),
  ]);
  return Result.combine([metadata, baseConfig, events]).map(([m, b, e]) => ({
    metadata: m,
    baseConfig: b,
    events: e,
  }));
}

function decodeStoredEvents(
  path: string,
  json: unknown,
  text: string,
): Result<ConversationStream, StoreError> {
  if (!Array.isArray(json)) return err(corrupt(path, "expected an array of events"));
  // The parsed array becomes the stream's: each entry is replaced by its event where they differ.
  const events = json as StreamEvent[];
  const reader = new AtRestReader();
  // Whether an entry holds a number JSON.parse may have changed: noted while known events are
  // checked, looked for in the rest (entries of unknown types, shapes the schemas read).
  numbersSeen.inexact = false;
  let inexact = false;
  // Redacted responses found with an answer: written back without it, never as read.
  const strays = new Set<number>();
  for (let i = 0; i < json.length; i++) {
    const entry: unknown = json[i];
    // Entries as this package and JP write them are read in one pass; the rest in several.
    if (decodeStoredEntry(entry, reader) !== undefined) continue;
    const read = readStoredEntry(entry, i, reader);
    if (typeof read === "string") return err(corrupt(path, read));
    if (read.keep) readFrom.set(read.event, entry);
    if (read.stray) strays.add(i);
    inexact ||= read.inexact;
    events[i] = read.event;
  }
  // An entry holding an integer JSON.parse rounded (or a -0) is written back as its text.
  if (inexact || numbersSeen.inexact) {
    for (const [i, raw] of inexactEntries(text)) {
      const event = events[i];
      if (!strays.has(i) && event !== undefined) readFrom.set(event, raw);
    }
  }
  // Room to grow: the first append to the stream does not copy it.
  events.push(undefined as never);
  events.pop();
  return ok(adoptEvents(events));
}

async function readRequired(path: string): Promise<Result<Buffer, StoreError>> {
  const bytes = await readRegularFile(path);
  if (bytes.isErr()) return err(bytes.error);
  if (bytes.value === undefined)
    return err({ kind: "not-found", path, message: `${path} does not exist` });
  return ok(bytes.value);
}

function parseJson(path: string, bytes: Buffer): Result<unknown, StoreError> {
  return parseJsonText(path, bytes.toString("utf-8"));
}

function parseJsonText(path: string, text: string): Result<unknown, StoreError> {
  try {
    return ok(JSON.parse(text));
  } catch (cause) {
    return err(corrupt(path, `not valid JSON (${describe(cause)})`));
  }
}

// Every file is written as JSON text JP can read: a lone surrogate is written as U+FFFD.
function jsonBytes(value: unknown): Buffer {
  return Buffer.from(`${readableJson(JSON.stringify(value, null, 2))}\n`, "utf-8");
}

function corrupt(path: string, reason: string | undefined): StoreError {
  return { kind: "corrupt", path, message: `${path} is corrupt: ${reason ?? "unexpected shape"}` };
}

function conflict(dir: string, expected: string | null, found: string | null): StoreError {
  const what =
    expected === null
      ? `${dir} already holds a conversation`
      : found === null
        ? `the conversation in ${dir} is gone (moved or deleted) since it was loaded`
        : `the conversation in ${dir} was saved by another writer since it was loaded`;
  return {
    kind: "conflict",
    path: dir,
    message: `${what}; nothing was written: load it again, apply the change and save that`,
    expectedRevision: expected,
    currentRevision: found,
  };
}

function saveFailed(dir: string, cause: unknown): StoreError {
  return {
    kind: "io",
    path: dir,
    message: `cannot save the conversation in ${dir}: ${describe(cause)}`,
    cause,
  };
}
