import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, utimes, writeFile } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  FileConversationStore,
  loadConversation,
  type StoredConversation,
  saveConversation,
} from "../src/index.js";

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "jp-revisions-"));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function saved(store: FileConversationStore, title = "Race"): Promise<StoredConversation> {
  const conversation = store.create({ title, now: new Date(Date.UTC(2026, 0, 1)) });
  conversation.stream.startTurn("first");
  (await store.save(conversation))._unsafeUnwrap();
  return conversation;
}

const userTurns = (conversation: StoredConversation) =>
  conversation.stream.events.flatMap((e) => (e.type === "chat_request" ? [e.content] : []));

describe("revisions", () => {
  it("load, revision() and save agree on the revision of the files", async () => {
    const store = new FileConversationStore(root);
    const conversation = await saved(store);
    const after = conversation.revision;
    expect(after).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect((await store.revision(conversation.name))._unsafeUnwrap()).toBe(after);
    const loaded = (await store.load(conversation.name))._unsafeUnwrap();
    expect(loaded.revision).toBe(after);
    expect((await loadConversation(join(root, conversation.name)))._unsafeUnwrap().revision).toBe(
      after,
    );
    expect((await store.revision("17000000000-missing"))._unsafeUnwrap()).toBeNull();
  });

  it("a conversation saved again by the same holder needs no reload", async () => {
    const store = new FileConversationStore(root);
    const conversation = await saved(store);
    const first = conversation.revision;
    conversation.stream.startTurn("second");
    const result = (await store.save(conversation))._unsafeUnwrap();
    expect(result.revision).not.toBe(first);
    expect(conversation.revision).toBe(result.revision);
  });

  it("a save over files changed since the load is a conflict; nothing of either writer is lost", async () => {
    const store = new FileConversationStore(root);
    const { name } = await saved(store);
    const a = (await store.load(name))._unsafeUnwrap();
    const b = (await store.load(name))._unsafeUnwrap();
    const loadedRevision = b.revision;
    a.stream.startTurn("from a");
    b.stream.startTurn("from b");
    const aSaved = (await store.save(a))._unsafeUnwrap();

    const conflict = (await store.save(b))._unsafeUnwrapErr();
    expect(conflict).toStrictEqual({
      kind: "conflict",
      path: join(root, name),
      message: `the conversation in ${join(root, name)} was saved by another writer since it was loaded; nothing was written: load it again, apply the change and save that`,
      expectedRevision: loadedRevision,
      currentRevision: aSaved.revision,
    });
    // B's object is as it was, and the disk holds A's save.
    expect(b.revision).toBe(loadedRevision);
    expect(userTurns(b)).toEqual(["first", "from b"]);
    expect(userTurns((await store.load(name))._unsafeUnwrap())).toEqual(["first", "from a"]);

    // B applies its change to the new revision.
    const again = (await store.load(name))._unsafeUnwrap();
    again.stream.startTurn("from b");
    (await store.save(again))._unsafeUnwrap();
    expect(userTurns((await store.load(name))._unsafeUnwrap())).toEqual([
      "first",
      "from a",
      "from b",
    ]);
  });

  it.each(["metadata.json", "events.json", "base_config.json"])(
    "a change to %s alone is a conflict",
    async (file) => {
      const store = new FileConversationStore(root);
      const conversation = await saved(store);
      conversation.baseConfig = { a: 1 };
      (await store.save(conversation))._unsafeUnwrap();
      const path = join(root, conversation.name, file);
      await writeFile(path, (await readFile(path, "utf-8")).replace(/\n$/, "\n\n"));
      expect((await store.save(conversation))._unsafeUnwrapErr().kind).toBe("conflict");
    },
  );

  it("a new conversation never overwrites an existing one of the same name", async () => {
    const store = new FileConversationStore(root);
    const first = await saved(store);
    const second = store.create({ title: "Race", now: new Date(Date.UTC(2026, 0, 1)) });
    second.stream.startTurn("other");
    expect(second.name).toBe(first.name);
    const error = (await store.save(second))._unsafeUnwrapErr();
    expect(error).toMatchObject({
      kind: "conflict",
      expectedRevision: null,
      currentRevision: first.revision,
    });
    expect(error.message).toContain("already holds a conversation");
  });

  it("a conversation deleted since it was loaded is a conflict, not silently recreated", async () => {
    const store = new FileConversationStore(root);
    const conversation = await saved(store);
    for (const file of ["metadata.json", "events.json"])
      await rm(join(root, conversation.name, file));
    const error = (await store.save(conversation))._unsafeUnwrapErr();
    expect(error).toMatchObject({ kind: "conflict", currentRevision: null });
    expect(error.message).toContain("is gone (moved or deleted)");
  });

  it("expectedRevision overrides the conversation's own", async () => {
    const store = new FileConversationStore(root);
    const conversation = await saved(store);
    const current = conversation.revision;
    delete conversation.revision;
    expect((await store.save(conversation))._unsafeUnwrapErr().kind).toBe("conflict");
    (await store.save(conversation, { expectedRevision: current ?? null }))._unsafeUnwrap();
  });

  it("saveConversation overwrites unless given expectedRevision, and leaves the object alone", async () => {
    const store = new FileConversationStore(root);
    const conversation = await saved(store);
    const dir = join(root, conversation.name);
    const before = conversation.revision;
    conversation.stream.startTurn("unchecked");
    const result = (
      await saveConversation(dir, { ...conversation, revision: "sha256:stale" })
    )._unsafeUnwrap();
    expect(conversation.revision).toBe(before);
    expect((await store.revision(conversation.name))._unsafeUnwrap()).toBe(result.revision);
    const checked = await saveConversation(dir, conversation, { expectedRevision: "sha256:stale" });
    expect(checked._unsafeUnwrapErr()).toMatchObject({
      kind: "conflict",
      expectedRevision: "sha256:stale",
      currentRevision: result.revision,
    });
  });
});

describe("the save lock", () => {
  const lockOf = (dir: string) => join(dir, ".save.lock");

  it("a save waits for a live holder and then is a locked Err naming it", async () => {
    const store = new FileConversationStore(root);
    const conversation = await saved(store);
    const dir = join(root, conversation.name);
    await writeFile(
      lockOf(dir),
      JSON.stringify({ pid: process.pid, host: hostname(), token: "other" }),
    );
    const started = Date.now();
    const error = (await store.save(conversation, { lockTimeoutMs: 300 }))._unsafeUnwrapErr();
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(error).toStrictEqual({
      kind: "locked",
      path: lockOf(dir),
      message: `process ${process.pid} is saving the conversation in ${dir}; try again once it is done`,
    });
    expect(existsSync(lockOf(dir))).toBe(true);
  });

  it("a lockTimeoutMs no save can honour is a RangeError, and nothing on disk changes", async () => {
    const store = new FileConversationStore(root);
    const conversation = await saved(store);
    const dir = join(root, conversation.name);
    const before = await readFile(join(dir, "events.json"), "utf-8");
    conversation.stream.startTurn("second");
    for (const lockTimeoutMs of [Number.NaN, -1, "100" as unknown as number]) {
      await expect(store.save(conversation, { lockTimeoutMs })).rejects.toThrow(RangeError);
      await expect(saveConversation(dir, conversation, { lockTimeoutMs })).rejects.toThrow(
        /^lockTimeoutMs must be a number of milliseconds from 0 to Infinity, got (NaN|-1|string)$/,
      );
    }
    expect(await readFile(join(dir, "events.json"), "utf-8")).toBe(before);
    expect(existsSync(lockOf(dir))).toBe(false);
    // The edges are taken: 0 does not wait, Infinity waits for as long as a holder lives.
    (await store.save(conversation, { lockTimeoutMs: 0 }))._unsafeUnwrap();
    conversation.stream.startTurn("third");
    (await store.save(conversation, { lockTimeoutMs: Number.POSITIVE_INFINITY }))._unsafeUnwrap();
  });

  it("the lock of a writer that died is broken at once", async () => {
    const store = new FileConversationStore(root);
    const conversation = await saved(store);
    const dir = join(root, conversation.name);
    const dead = await exitedPid();
    await writeFile(lockOf(dir), JSON.stringify({ pid: dead, host: hostname(), token: "dead" }));
    conversation.stream.startTurn("after the crash");
    (await store.save(conversation, { lockTimeoutMs: 0 }))._unsafeUnwrap();
    expect(existsSync(lockOf(dir))).toBe(false);
  });

  it("a lock older than 30 s is broken whoever holds it (another machine, an empty file)", async () => {
    const store = new FileConversationStore(root);
    const conversation = await saved(store);
    const dir = join(root, conversation.name);
    for (const body of [JSON.stringify({ pid: 1, host: "elsewhere", token: "x" }), ""]) {
      await writeFile(lockOf(dir), body);
      const old = new Date(Date.now() - 31_000);
      await utimes(lockOf(dir), old, old);
      conversation.stream.startTurn("again");
      (await store.save(conversation, { lockTimeoutMs: 0 }))._unsafeUnwrap();
      expect(existsSync(lockOf(dir))).toBe(false);
    }
  });

  it("anything else under the lock's name (a directory) is waited for, then broken once old", async () => {
    const store = new FileConversationStore(root);
    const conversation = await saved(store);
    const dir = join(root, conversation.name);
    await mkdir(lockOf(dir));
    expect(
      (await store.save(conversation, { lockTimeoutMs: 100 }))._unsafeUnwrapErr(),
    ).toMatchObject({
      kind: "locked",
      message: `another process is saving the conversation in ${dir}; try again once it is done`,
    });
    const old = new Date(Date.now() - 31_000);
    await utimes(lockOf(dir), old, old);
    (await store.save(conversation, { lockTimeoutMs: 0 }))._unsafeUnwrap();
  });

  it("saves of one conversation from one process run one after the other", async () => {
    const store = new FileConversationStore(root);
    const conversation = await saved(store);
    const copies = await Promise.all(
      [1, 2, 3, 4, 5].map(async () => (await store.load(conversation.name))._unsafeUnwrap()),
    );
    copies.forEach((copy, i) => {
      copy.stream.startTurn(`copy ${i}`);
    });
    const results = await Promise.all(copies.map((copy) => store.save(copy)));
    expect(results.filter((r) => r.isOk())).toHaveLength(1);
    expect(results.filter((r) => r.isErr() && r.error.kind === "conflict")).toHaveLength(4);
  });
});

describe("temporary files of killed writers", () => {
  it("are removed by the next save of that conversation; live writers' and JP's are kept", async () => {
    const store = new FileConversationStore(root);
    const conversation = await saved(store);
    const dir = join(root, conversation.name);
    const dead = await exitedPid();
    const alive = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"]);
    try {
      const files = {
        dead: `events.json.tmp-${dead}-0a1b2c3d`,
        deadMetadata: `metadata.json.tmp-${dead}-00ff00ff`,
        mine: `base_config.json.tmp-${process.pid}-deadbeef`,
        live: `events.json.tmp-${alive.pid}-12345678`,
        liveButOld: `metadata.json.tmp-${alive.pid}-87654321`,
        jp: "events.json.tmp",
        other: "notes.json.tmp-1-abcd",
      };
      for (const name of Object.values(files)) await writeFile(join(dir, name), "x".repeat(1000));
      const hoursAgo = new Date(Date.now() - 2 * 60 * 60 * 1000);
      await utimes(join(dir, files.liveButOld), hoursAgo, hoursAgo);

      conversation.stream.startTurn("next");
      (await store.save(conversation))._unsafeUnwrap();
      expect((await readdir(dir)).sort()).toEqual(
        ["events.json", "metadata.json", files.live, files.jp, files.other].sort(),
      );
    } finally {
      alive.kill();
    }
  });

  it("a writer killed mid-save leaves the last complete conversation, and the next save cleans up", async () => {
    const store = new FileConversationStore(root);
    const conversation = await saved(store);
    const dir = join(root, conversation.name);
    // A large conversation makes the window between writing and renaming wide enough to kill in.
    conversation.stream.startTurn("x".repeat(40_000_000));
    (await store.save(conversation))._unsafeUnwrap();
    const go = join(root, "go");
    await writeFile(go, "");
    let killed = false;
    for (let tries = 0; tries < 5 && !killed; tries++) {
      const child = spawnWriter([root, conversation.name, "killed", go, "once"]);
      await child.loaded;
      killed = await until(
        async () => (await readdir(dir)).some((f) => f.includes(".tmp-")),
        child,
      );
      child.process.kill("SIGKILL");
      await child.exited;
    }
    expect(killed).toBe(true);
    expect((await readdir(dir)).some((f) => f.includes(".tmp-"))).toBe(true);
    const loaded = (await store.load(conversation.name))._unsafeUnwrap();
    expect(userTurns(loaded).length).toBeGreaterThanOrEqual(2);
    loaded.stream.startTurn("after the kill");
    (await store.save(loaded))._unsafeUnwrap();
    expect((await readdir(dir)).sort()).toEqual(["events.json", "metadata.json"]);
  }, 120_000);
});

describe("two processes saving the same conversation", () => {
  it("exactly one of the racing saves wins; the other gets a conflict and nothing is lost", async () => {
    const store = new FileConversationStore(root);
    const { name } = await saved(store);
    const go = join(root, "go");
    const writers = ["a", "b", "c"].map((label) => spawnWriter([root, name, label, go, "once"]));
    await Promise.all(writers.map((w) => w.loaded));
    await writeFile(go, "");
    const reports = await Promise.all(writers.map((w) => w.exited));
    const saves = reports.flat().filter((r) => r.event === "saved");
    expect(saves).toHaveLength(3);
    const winners = saves.filter((s) => s.ok);
    expect(winners).toHaveLength(1);
    expect(saves.filter((s) => s.kind === "conflict")).toHaveLength(2);
    const final = (await store.load(name))._unsafeUnwrap();
    expect(userTurns(final)).toEqual(["first", `from ${winners[0]?.label}`]);
    expect(final.revision).toBe(winners[0]?.revision);
  }, 60_000);

  it("writers that load again after a conflict all get their turn in", async () => {
    const store = new FileConversationStore(root);
    const { name } = await saved(store);
    const go = join(root, "go");
    const writers = ["a", "b"].map((label) => spawnWriter([root, name, label, go, "retry"]));
    await Promise.all(writers.map((w) => w.loaded));
    await writeFile(go, "");
    const reports = (await Promise.all(writers.map((w) => w.exited))).flat();
    expect(
      reports.filter((r) => r.event === "saved" && r.kind === "conflict").length,
    ).toBeGreaterThanOrEqual(1);
    const final = (await store.load(name))._unsafeUnwrap();
    expect(userTurns(final).sort()).toEqual(["first", "from a", "from b"]);
  }, 60_000);
});

// --- child processes ---------------------------------------------------------------------------

const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const WRITER = fileURLToPath(new URL("./fixtures/processes/racing-writer.ts", import.meta.url));

interface Report {
  label: string;
  event: "loaded" | "saved";
  ok?: boolean;
  kind?: string;
  revision?: string;
}

function spawnWriter(args: string[]): {
  process: ChildProcess;
  loaded: Promise<void>;
  exited: Promise<Report[]>;
} {
  const child = spawn(
    process.execPath,
    ["--conditions=@jp/source", "--import", "tsx", WRITER, ...args],
    {
      cwd: REPO_ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  const reports: Report[] = [];
  let stdout = "";
  let stderr = "";
  let onLoaded: () => void = () => {};
  const loaded = new Promise<void>((resolve) => {
    onLoaded = resolve;
  });
  child.stdout?.setEncoding("utf-8").on("data", (chunk: string) => {
    stdout += chunk;
    const lines = stdout.split("\n");
    stdout = lines.pop() ?? "";
    for (const line of lines) {
      const report = JSON.parse(line) as Report;
      reports.push(report);
      if (report.event === "loaded") onLoaded();
    }
  });
  child.stderr?.setEncoding("utf-8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<Report[]>((resolve, reject) => {
    child.on("exit", (code, signal) => {
      if (code === 0 || signal === "SIGKILL") resolve(reports);
      else reject(new Error(`writer exited with ${code ?? signal}: ${stderr}`));
    });
  });
  return { process: child, loaded, exited };
}

async function exitedPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""]);
  const pid = child.pid as number;
  await new Promise((resolve) => child.on("exit", resolve));
  return pid;
}

// Polls `condition` until it holds (true) or the child has exited (false).
async function until(
  condition: () => Promise<boolean>,
  child: { process: ChildProcess },
): Promise<boolean> {
  while (child.process.exitCode === null && child.process.signalCode === null) {
    if (await condition()) return true;
  }
  return false;
}
