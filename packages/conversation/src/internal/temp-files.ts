import { lstat, readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { isProcessAlive } from "./process-alive.js";
import { isAsideLock, STALE_MS } from "./save-lock.js";

// Every file is written to `<file>.tmp-<pid>-<random>` and renamed over `<file>`. A writer killed
// in between leaves its temporary file, as large as the file it was writing.
const TEMP = /^(?:metadata|base_config|events)\.json\.tmp-([0-9]+)-[0-9a-f]+$/;
/** Past this age a temporary file is removed even if its pid is alive (pids are reused). */
const MAX_TEMP_AGE_MS = 60 * 60 * 1000;

/** The temporary name a file is written under before it is renamed into place. */
export function tempPathFor(path: string): string {
  return `${path}.tmp-${process.pid}-${process.getBuiltinModule("node:crypto").randomBytes(4).toString("hex")}`;
}

/**
 * Removes the temporary files of writers that died mid-save. Runs under the save lock: every
 * save of this package writes its temporary files only while it holds that lock, so a file left
 * by this process, or by a process that no longer runs, is being written by nobody. Files of a
 * live pid are kept (that writer may be another machine's, or an older version's that takes no
 * lock) until they are an hour old. Lock files set aside while breaking a stale lock go too.
 * JP's own `*.tmp` files are JP's to clean and are not touched.
 */
export async function removeStaleTempFiles(dir: string): Promise<string[]> {
  const removed: string[] = [];
  for (const name of await readdir(dir)) {
    const pid = TEMP.exec(name)?.[1];
    const aside = isAsideLock(name);
    if (pid === undefined && !aside) continue;
    const path = join(dir, name);
    try {
      const age = Date.now() - (await lstat(path)).mtimeMs;
      const stale = aside
        ? age > STALE_MS
        : Number(pid) === process.pid || !isProcessAlive(Number(pid)) || age > MAX_TEMP_AGE_MS;
      if (!stale) continue;
      await rm(path, { force: true });
      removed.push(name);
    } catch {
      // Gone already, or not ours to remove: the save goes on.
    }
  }
  return removed;
}
