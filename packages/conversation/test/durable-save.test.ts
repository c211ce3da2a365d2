// A save that returned is on the disk: each file is flushed before it is renamed into place, and
// the directory after the renames, so a machine that loses power keeps either the old or the new
// conversation. Power cannot be cut in a test; the order of the system calls is what makes it
// true, and strace shows them for a real process.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const SAVER = fileURLToPath(new URL("./fixtures/processes/save-twice.ts", import.meta.url));

// strace needs to be installed and allowed to trace (some containers forbid ptrace).
const CAN_TRACE =
  spawnSync("strace", ["-f", "-qq", "-o", "/dev/null", "true"], { stdio: "ignore" }).status === 0;
const NEEDS_STRACE = CAN_TRACE
  ? ""
  : " [skipped: strace is not installed or may not trace here (apt-get install strace)]";

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

/** The file-system calls of a process that creates a conversation and saves it again. */
function traceSaves(): { calls: string[]; dir: string; root: string } {
  const root = mkdtempSync(join(tmpdir(), "jp-durable-save-"));
  roots.push(root);
  const trace = join(root, "trace");
  const run = spawnSync(
    "strace",
    [
      ["-f", "-y", "-qq", "-o", trace],
      ["-e", "trace=openat,fdatasync,fsync,rename,renameat,renameat2"],
      [process.execPath, "--conditions=@jp/source", "--import", "tsx", SAVER, join(root, "c")],
    ].flat(),
    { cwd: REPO_ROOT, encoding: "utf-8" },
  );
  expect(run.status, run.stderr).toBe(0);
  const dir = join(root, "c", run.stdout.trim());
  // Only the calls on the store's files, with the thread id that strace puts first left out.
  const calls = readFileSync(trace, "utf-8")
    .split("\n")
    .filter((line) => line.includes(join(root, "c")) && !line.includes("resumed>"))
    .map((line) => line.replace(/^\d+\s+/, ""));
  return { calls, dir, root: join(root, "c") };
}

const isFlushOf = (call: string, path: string) =>
  (call.startsWith("fdatasync(") || call.startsWith("fsync(")) && call.includes(`<${path}>)`);

describe.skipIf(!CAN_TRACE)(`FileConversationStore.save on the disk${NEEDS_STRACE}`, () => {
  it("flushes every file before renaming it into place, and the directory after", () => {
    const { calls, dir, root } = traceSaves();
    const renames = calls
      .map((call, at) => ({ call, at, paths: /^rename\w*\(.*"([^"]+)".*"([^"]+)"/.exec(call) }))
      .filter((r) => r.paths !== null);
    // Two saves: events.json and metadata.json each time.
    expect(renames.map((r) => r.paths?.[2])).toEqual(
      ["events.json", "metadata.json", "events.json", "metadata.json"].map((f) => join(dir, f)),
    );
    for (const { at, paths } of renames) {
      const temp = paths?.[1] ?? "";
      expect(temp).toMatch(/\.json\.tmp-\d+-[0-9a-f]+$/);
      expect(
        calls.slice(0, at).some((call) => isFlushOf(call, temp)),
        `${temp} renamed before it was flushed`,
      ).toBe(true);
    }
    // After each save's renames, and before the next save writes anything, the directory.
    for (const last of [renames[1]?.at ?? 0, renames[3]?.at ?? 0]) {
      const next = calls.findIndex((call, at) => at > last && call.includes(".tmp-"));
      const after = calls.slice(last + 1, next === -1 ? undefined : next);
      expect(after.some((call) => isFlushOf(call, dir))).toBe(true);
    }
    // The first save created the conversation's directory: the root holding it is flushed too.
    expect(calls.some((call) => isFlushOf(call, root))).toBe(true);
  });
});
