import { constants, link, lstat, open, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import { err, ok, type Result } from "neverthrow";
import type { StoreError } from "../errors.js";
import { isProcessAlive } from "./process-alive.js";
import { codeOf, describe } from "./safe-fs.js";

// One writer at a time per conversation directory, across processes: a lock file created with
// O_CREAT|O_EXCL holds `{pid, host, token}`. It is held only while a save compares and writes.
// A lock whose holder is dead (same host, pid gone) or that is older than STALE_MS is stale and
// is broken; a holder checks that the lock is still its own before it commits anything.

/** The lock file's name inside a conversation directory. */
export const LOCK_FILE = ".save.lock";
/** A lock older than this is stale whoever holds it: no save takes this long. */
export const STALE_MS = 30_000;
const ASIDE = ".stale-";
// No FIFO or link under the lock's name can block or redirect reading it.
const READ_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/** A held save lock. */
export interface SaveLock {
  readonly path: string;
  readonly token: string;
}

interface Holder {
  readonly pid: number | undefined;
  readonly host: string | undefined;
  readonly token: string | undefined;
  readonly dev: bigint;
  readonly ino: bigint;
  readonly mtimeMs: number;
}

/** Takes the save lock of `dir`, waiting up to `timeoutMs` for a live holder to finish. */
export async function acquireSaveLock(
  dir: string,
  timeoutMs: number,
): Promise<Result<SaveLock, StoreError>> {
  const path = join(dir, LOCK_FILE);
  const token = process.getBuiltinModule("node:crypto").randomBytes(12).toString("hex");
  const body = JSON.stringify({
    pid: process.pid,
    host: hostname(),
    token,
    acquired_at: new Date().toISOString(),
  });
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 0; ; attempt++) {
    const created = await create(path, body);
    if (created === "created") return ok({ path, token });
    if (created !== "exists") {
      return err({
        kind: "io",
        path,
        message: `cannot create ${path}: ${describe(created)}`,
        cause: created,
      });
    }
    const holder = await inspect(path);
    if (holder !== undefined && isStale(holder)) {
      await breakStale(path, holder, token);
      continue;
    }
    if (Date.now() >= deadline) {
      const who = holder?.pid === undefined ? "another process" : `process ${holder.pid}`;
      return err({
        kind: "locked",
        path,
        message: `${who} is saving the conversation in ${dir}; try again once it is done`,
      });
    }
    await sleep(Math.min(5 * 2 ** Math.min(attempt, 4), 80) + Math.random() * 10);
  }
}

/** Whether the lock is still held by this holder (a stale-lock breaker may have taken it). */
export async function holdsSaveLock(lock: SaveLock): Promise<boolean> {
  const holder = await inspect(lock.path);
  return holder?.token === lock.token;
}

/** Releases the lock, unless it is no longer this holder's. Never rejects. */
export async function releaseSaveLock(lock: SaveLock): Promise<void> {
  try {
    if (await holdsSaveLock(lock)) await rm(lock.path, { force: true });
  } catch {
    // Left behind, it is stale as soon as this process is gone (or in STALE_MS).
  }
}

/** Whether `name` is a lock file set aside while breaking a stale lock. */
export function isAsideLock(name: string): boolean {
  return name.startsWith(`${LOCK_FILE}${ASIDE}`);
}

// "created", "exists" (someone holds it), or what went wrong.
async function create(path: string, body: string): Promise<"created" | "exists" | unknown> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, "wx");
  } catch (cause) {
    return codeOf(cause) === "EEXIST" ? "exists" : cause;
  }
  try {
    await handle.writeFile(body);
    return "created";
  } catch (cause) {
    await rm(path, { force: true });
    return cause;
  } finally {
    await handle.close();
  }
}

function isStale(holder: Holder): boolean {
  if (Date.now() - holder.mtimeMs > STALE_MS) return true;
  return holder.host === hostname() && holder.pid !== undefined && !isProcessAlive(holder.pid);
}

// Breaking a lock must not remove one a live writer took after we looked: the lock is renamed
// aside (atomic; only one breaker can move a given file), and if what moved is not the stale
// file we inspected, it goes back under its name.
async function breakStale(path: string, holder: Holder, token: string): Promise<void> {
  const aside = `${path}${ASIDE}${token}`;
  try {
    await rename(path, aside);
  } catch {
    return;
  }
  try {
    const moved = await lstat(aside, { bigint: true });
    if (moved.dev !== holder.dev || moved.ino !== holder.ino) await link(aside, path);
  } catch {
    // Someone holds the name again already: that writer goes on; the one whose lock we moved
    // finds out when it checks its lock before committing, and fails without writing.
  } finally {
    await rm(aside, { force: true }).catch(() => undefined);
  }
}

async function inspect(path: string): Promise<Holder | undefined> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, READ_FLAGS);
  } catch (cause) {
    if (codeOf(cause) === "ENOENT") return undefined;
    // A symbolic link or unreadable file under the lock's name: judge it by age alone.
    try {
      const stats = await lstat(path, { bigint: true });
      return { ...unknownHolder, dev: stats.dev, ino: stats.ino, mtimeMs: Number(stats.mtimeMs) };
    } catch {
      return undefined;
    }
  }
  try {
    const stats = await handle.stat({ bigint: true });
    const found = { dev: stats.dev, ino: stats.ino, mtimeMs: Number(stats.mtimeMs) };
    // Anything but a small regular file under the lock's name is judged by age alone.
    if (!stats.isFile() || stats.size > 4096n) return { ...unknownHolder, ...found };
    return { ...parse(await handle.readFile("utf-8")), ...found };
  } catch {
    return undefined;
  } finally {
    await handle.close();
  }
}

const unknownHolder = { pid: undefined, host: undefined, token: undefined };

// A holder that has created the file but not yet written it reads as unknown: fresh until old.
function parse(text: string): Pick<Holder, "pid" | "host" | "token"> {
  try {
    const json = JSON.parse(text) as Record<string, unknown>;
    return {
      pid: typeof json.pid === "number" ? json.pid : undefined,
      host: typeof json.host === "string" ? json.host : undefined,
      token: typeof json.token === "string" ? json.token : undefined,
    };
  } catch {
    return unknownHolder;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// `node:os` on first use: importing it as a module weighs on every program's start.
function hostname(): string {
  return process.getBuiltinModule("node:os").hostname();
}
