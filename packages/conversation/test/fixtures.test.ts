import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { FileConversationStore, loadConversation, saveConversation, toMarkdown } from "../src/index.js";

// The real JP conversations live beside the project, in ../shared; a fresh clone without it
// reports these tests as skipped.
const FIXTURES = join(import.meta.dirname, "../../../../shared/fixtures/jp-conversations");
const present = existsSync(FIXTURES);
const names = present ? (await readdir(FIXTURES)).sort() : [];

const temps: string[] = [];
afterAll(async () => {
  for (const dir of temps) await rm(dir, { recursive: true, force: true });
});

async function readJsonFile(path: string): Promise<unknown> {
  return JSON.parse(await readFile(path, "utf-8"));
}

describe.skipIf(!present)("real JP conversations", () => {
  it("finds the fixture conversations", () => {
    expect(names.length).toBeGreaterThanOrEqual(6);
  });

  it.each(names)("%s loads, and save(load(dir)) is deep-equal to the original", async (name) => {
    const loaded = await loadConversation(join(FIXTURES, name));
    expect(loaded.isOk(), loaded.isErr() ? loaded.error.message : "").toBe(true);
    const conversation = loaded._unsafeUnwrap();

    const out = await mkdtemp(join(tmpdir(), "jp-roundtrip-"));
    temps.push(out);
    (await saveConversation(join(out, name), conversation))._unsafeUnwrap();

    const files = (await readdir(join(FIXTURES, name))).sort();
    expect((await readdir(join(out, name))).sort()).toEqual(files);
    for (const file of files) {
      const original = await readJsonFile(join(FIXTURES, name, file));
      const written = await readJsonFile(join(out, name, file));
      expect(written, file).toStrictEqual(original);
    }
  });

  it.each(names)("%s renders to markdown", async (name) => {
    const conversation = (await loadConversation(join(FIXTURES, name)))._unsafeUnwrap();
    const markdown = toMarkdown(conversation.stream);
    expect(markdown).toContain("## Turn 1");
    expect(markdown).toContain("### User");
  });

  it("lists the fixture directories through the store", async () => {
    const listed = await new FileConversationStore(FIXTURES).list();
    expect(listed._unsafeUnwrap()).toEqual(names);
  });
});
