import type { Stats } from "node:fs";
// `constants` from `node:fs/promises`: importing `node:fs` as a module also loads its streams,
// milliseconds of every program's start.
import { constants, lstat, mkdir, open } from "node:fs/promises";
import { err, ok, type Result } from "neverthrow";
import type { StoreError } from "../errors.js";

// Reads never follow a symbolic link in a conversation's directory: JP writes its files by
// renaming, so a link there was put by someone else, and following it would read outside.
// O_NONBLOCK keeps a FIFO planted under a file's name from hanging the open.
const READ_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/**
 * Writes `bytes` to a new file at `path` (failing if one exists) and waits until the disk holds
 * them: a file renamed into place afterwards is whole even if the machine loses power.
 */
export async function writeNewFileDurably(path: string, bytes: Buffer): Promise<void> {
  const handle = await open(path, "wx");
  try {
    await handle.writeFile(bytes);
    await handle.datasync();
  } finally {
    await handle.close();
  }
}

/**
 * Waits until the disk holds the entries of directory `path` (files created or renamed in it).
 * Best effort: where a directory cannot be opened or flushed (Windows, some network file
 * systems), the files are in place all the same and nothing is reported.
 */
export async function syncDirectory(path: string): Promise<void> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, constants.O_RDONLY);
  } catch {
    return;
  }
  try {
    await handle.sync();
  } catch {
    // The renames are done and visible; a save is not undone for a flush the system refuses.
  } finally {
    await handle.close();
  }
}

/** The error code of a Node.js system error, if it is one. */
export function codeOf(cause: unknown): string | undefined {
  const code = (cause as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

/** A human-readable reason from anything thrown. */
export function describe(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
}

/**
 * The bytes of the regular file at `path`, or `undefined` if there is none. A symbolic link,
 * directory or other special file under that name is an `unsafe-path` error.
 */
export async function readRegularFile(
  path: string,
): Promise<Result<Buffer | undefined, StoreError>> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, READ_FLAGS);
  } catch (cause) {
    const code = codeOf(cause);
    if (code === "ENOENT") return ok(undefined);
    if (code === "ELOOP" || code === "EMLINK")
      return err(unsafe(path, "is a symbolic link", cause));
    return err({ kind: "io", path, message: `cannot read ${path}: ${describe(cause)}`, cause });
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) return err(unsafe(path, `is ${kindOfEntry(stats)}, not a file`));
    return ok(await handle.readFile());
  } catch (cause) {
    return err({ kind: "io", path, message: `cannot read ${path}: ${describe(cause)}`, cause });
  } finally {
    await handle.close();
  }
}

/**
 * The `lstat` of `dir` if it is a real directory (not a symbolic link to one), `undefined` if
 * nothing is there; anything else is an error.
 */
export async function realDirectory(dir: string): Promise<Result<Stats | undefined, StoreError>> {
  try {
    const stats = await lstat(dir);
    if (stats.isSymbolicLink()) return err(unsafe(dir, "is a symbolic link"));
    if (!stats.isDirectory()) {
      return err({
        kind: "io",
        path: dir,
        message: `${dir} is ${kindOfEntry(stats)}, not a directory`,
      });
    }
    return ok(stats);
  } catch (cause) {
    if (codeOf(cause) === "ENOENT") return ok(undefined);
    return err({
      kind: "io",
      path: dir,
      message: `cannot inspect ${dir}: ${describe(cause)}`,
      cause,
    });
  }
}

/** Creates `dir` (its parent must exist) unless it is there; it must end up a real directory. */
export async function ensureRealDirectory(dir: string): Promise<Result<Stats, StoreError>> {
  const existing = await realDirectory(dir);
  if (existing.isErr() || existing.value !== undefined)
    return existing as Result<Stats, StoreError>;
  try {
    await mkdir(dir);
  } catch (cause) {
    if (codeOf(cause) !== "EEXIST") {
      return err({
        kind: "io",
        path: dir,
        message: `cannot create ${dir}: ${describe(cause)}`,
        cause,
      });
    }
  }
  const created = await realDirectory(dir);
  if (created.isErr()) return err(created.error);
  if (created.value === undefined) {
    return err({ kind: "io", path: dir, message: `${dir} disappeared while it was being created` });
  }
  return ok(created.value);
}

/** Whether two stats describe the same file system entry. */
export function sameEntry(a: Stats, b: Stats): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}

/** An `unsafe-path` error. */
export function unsafe(path: string, what: string, cause?: unknown): StoreError {
  const message = `${path} ${what}: refusing to follow it out of the conversation store`;
  return cause === undefined
    ? { kind: "unsafe-path", path, message }
    : { kind: "unsafe-path", path, message, cause };
}

function kindOfEntry(stats: Stats): string {
  if (stats.isDirectory()) return "a directory";
  if (stats.isSymbolicLink()) return "a symbolic link";
  if (stats.isFile()) return "a file";
  return "a special file";
}
