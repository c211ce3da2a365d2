import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  FileConversationStore,
  loadConversation,
  type StoredConversation,
  saveConversation,
} from "../src/index.js";

// Every test has a store root and, beside it, a directory the store must never reach.
let base: string;
let root: string;
let outside: string;
beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), "jp-paths-"));
  root = join(base, "conversations");
  outside = join(base, "outside");
  await mkdir(root);
  await writeConversation(outside, "secret outside the store");
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

const metadata = { title: "t", last_activated_at: "2026-03-05 22:07:43.369023" };
const events = (content: string) => [
  { timestamp: "2026-03-05 22:07:44.0", type: "turn_start" },
  { timestamp: "2026-03-05 22:07:44.0", type: "chat_request", content },
];

async function writeConversation(dir: string, content: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, "metadata.json"), JSON.stringify(metadata));
  await writeFile(join(dir, "events.json"), JSON.stringify(events(content)));
}

function named(name: string): StoredConversation {
  const conversation = new FileConversationStore(root).create({ title: "x" });
  conversation.stream.startTurn("written");
  return { ...conversation, name };
}

describe("names that leave the root are refused", () => {
  it.each(["../outside", "..", "17000000000/../../outside", `${"x"}/../../outside`, ""])(
    "load(%j) is an invalid-id Err",
    async (name) => {
      const loaded = await new FileConversationStore(root).load(name);
      expect(loaded._unsafeUnwrapErr()).toMatchObject({ kind: "invalid-id", path: root });
    },
  );

  it("the invalid-id message says what a name must look like", async () => {
    const loaded = await new FileConversationStore(root).load("../outside");
    expect(loaded._unsafeUnwrapErr().message).toBe(
      '"../outside" is not a conversation name: expected <id> or <id>-<slug>, where the id is digits and the slug letters, digits and "-"',
    );
  });

  it.each(["../escaped", "../outside/escaped", "/escaped", ".hidden", "17000000000/nested"])(
    "save() of a conversation named %j is an invalid-id Err and writes nothing",
    async (name) => {
      const saved = await new FileConversationStore(root).save(named(name));
      expect(saved._unsafeUnwrapErr().kind).toBe("invalid-id");
      expect(existsSync(join(base, "escaped"))).toBe(false);
      expect(existsSync(join(outside, "escaped"))).toBe(false);
      expect(existsSync(join(root, name))).toBe(false);
    },
  );

  it.each([
    [
      "just before",
      `1775840618-${"a".repeat(29)}${"𝐀".repeat(100)}`,
      `1775840618-${"a".repeat(29)}`,
    ],
    ["inside", `1775840618-${"𝐀".repeat(100)}`, `1775840618-${"𝐀".repeat(29)}`],
    [
      "just after",
      `1775840618-${"a".repeat(27)}𝐀${"a".repeat(300)}`,
      `1775840618-${"a".repeat(27)}𝐀a`,
    ],
  ])(
    "a name too long is quoted by its first 40 characters, cut %s a letter beyond U+FFFF",
    async (_at, name, shown) => {
      const loaded = await new FileConversationStore(root).load(name);
      const { message } = loaded._unsafeUnwrapErr();
      expect(message).not.toMatch(/\\u[dD][89a-fA-F]/);
      expect(message).toBe(`"${shown}"… is not a conversation name: longer than 255 bytes`);
    },
  );

  it("revision(name) checks the name too", async () => {
    const revision = await new FileConversationStore(root).revision("../outside");
    expect(revision._unsafeUnwrapErr().kind).toBe("invalid-id");
  });
});

describe("symbolic links below the root are never followed", () => {
  const name = "17000000000-linked";

  it("a symlinked conversation directory: load, revision and save are unsafe-path Errs", async () => {
    await symlink(outside, join(root, name));
    const store = new FileConversationStore(root);
    const error = (await store.load(name))._unsafeUnwrapErr();
    expect(error).toMatchObject({ kind: "unsafe-path", path: join(root, name) });
    expect(error.message).toBe(
      `${join(root, name)} is a symbolic link: refusing to follow it out of the conversation store`,
    );
    expect((await store.revision(name))._unsafeUnwrapErr().kind).toBe("unsafe-path");
    expect((await store.save(named(name)))._unsafeUnwrapErr().kind).toBe("unsafe-path");
    expect(JSON.parse(await readFile(join(outside, "events.json"), "utf-8"))).toEqual(
      events("secret outside the store"),
    );
  });

  it.each(["metadata.json", "events.json", "base_config.json"])(
    "%s as a symbolic link: loading is an unsafe-path Err naming it",
    async (file) => {
      const dir = join(root, name);
      await writeConversation(dir, "inside");
      await rm(join(dir, file), { force: true });
      await symlink(
        join(outside, file === "base_config.json" ? "events.json" : file),
        join(dir, file),
      );
      for (const loaded of [
        await new FileConversationStore(root).load(name),
        await loadConversation(dir),
      ]) {
        expect(loaded._unsafeUnwrapErr()).toMatchObject({
          kind: "unsafe-path",
          path: join(dir, file),
        });
      }
    },
  );

  it("a save replaces a symlinked file instead of writing through it", async () => {
    const dir = join(root, name);
    await writeConversation(dir, "inside");
    await rm(join(dir, "events.json"));
    await symlink(join(outside, "events.json"), join(dir, "events.json"));
    const store = new FileConversationStore(root);
    // The store's compare-and-write reads the current files first, and refuses the link.
    expect((await store.save(named(name)))._unsafeUnwrapErr().kind).toBe("unsafe-path");
    // An unconditional save renames over the link itself.
    (await saveConversation(dir, named(name)))._unsafeUnwrap();
    expect(JSON.parse(await readFile(join(outside, "events.json"), "utf-8"))).toEqual(
      events("secret outside the store"),
    );
    expect((await store.load(name))._unsafeUnwrap().stream.events[1]).toMatchObject({
      content: "written",
    });
  });

  it("list() leaves out links and names outside JP's grammar", async () => {
    await symlink(outside, join(root, name));
    await writeConversation(join(root, "17000000001-real"), "x");
    await mkdir(join(root, "notes"));
    expect((await new FileConversationStore(root).list())._unsafeUnwrap()).toEqual([
      "17000000001-real",
    ]);
  });
});
