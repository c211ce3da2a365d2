import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  decodeEvent,
  encodeEvent,
  FileConversationStore,
  isConversationEvent,
  loadConversation,
  type StreamEvent,
  saveConversation,
  toMarkdown,
} from "../src/index.js";

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

// Without the fixtures the block is skipped, and says so (and where it looked) in every report.
const MISSING = present ? "" : ` [skipped: no JP conversations at ${FIXTURES}]`;
if (!present) console.warn(`skipping the real JP conversations:${MISSING.slice(10, -1)}`);

describe.skipIf(!present)(`real JP conversations${MISSING}`, () => {
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

  it.each(names)(
    "%s: every event re-encoded canonically decodes to a deep-equal event",
    async (name) => {
      const conversation = (await loadConversation(join(FIXTURES, name)))._unsafeUnwrap();
      conversation.stream.events.forEach((event, i) => {
        // Through JSON text, as a save would write it, so nothing is shared with the original.
        const text = JSON.stringify(encodeEvent(event, { canonical: true }));
        const decoded = decodeEvent(JSON.parse(text), [i]);
        expect(decoded.isOk() ? decoded.value : decoded.error, `${name}[${i}]`).toStrictEqual(
          event,
        );
      });
    },
  );

  it("decodes base64 tool arguments of real data to readable text", async () => {
    const name = "17758406187-missing-date-in-version-string";
    const raw = (await readJsonFile(join(FIXTURES, name, "events.json"))) as {
      type: string;
      name?: string;
      arguments?: { path?: string };
    }[];
    const rawRead = raw.find((e) => e.type === "tool_call_request" && e.name === "fs_read_file");
    expect(rawRead?.arguments?.path).toBe("Y3JhdGVzL2pwX2NsaS9idWlsZC5ycw==");

    const conversation = (await loadConversation(join(FIXTURES, name)))._unsafeUnwrap();
    const read = conversation.stream.events.find(
      (e) => e.type === "tool_call_request" && e.name === "fs_read_file",
    );
    expect(read).toMatchObject({
      type: "tool_call_request",
      name: "fs_read_file",
      arguments: { path: "crates/jp_cli/build.rs" },
    });
    const grep = conversation.stream.events.find(
      (e) => e.type === "tool_call_request" && e.name === "fs_grep_files",
    );
    expect(grep).toMatchObject({
      arguments: { pattern: "LONG_VERSION", paths: ["crates/jp_cli"] },
    });
    // Its result (the file's content) is base64 on disk too, and readable once loaded.
    const response = conversation.stream.events.find((e) => e.type === "tool_call_response");
    expect(response).toMatchObject({ id: (read as { id: string }).id, is_error: false });
    expect((response as { content: string }).content).toContain("fn main() {");
  });

  it("sanitize removes only the orphaned inquiry request of the workspace-sanitization conversation", async () => {
    const name = "17738348630-workspace-sanitization-strategy";
    const conversation = (await loadConversation(join(FIXTURES, name)))._unsafeUnwrap();
    const before = [...conversation.stream.events];
    const report = conversation.stream.sanitize();

    expect(report.changed).toBe(true);
    expect(report.inserted).toEqual([]);
    expect(report.removed).toHaveLength(1);
    const [removed] = report.removed;
    expect(removed?.reason).toBe("orphaned-inquiry-request");
    expect(removed?.event).toMatchObject({
      type: "inquiry_request",
      id: "toolu_01DLivVsYfDFLWnw7iUujtCN.apply_changes",
    });

    const after = conversation.stream.events;
    const expected = before.filter((event) => event !== removed?.event);
    expect(expected).toHaveLength(before.length - 1);
    expect(after).toHaveLength(expected.length);
    expected.forEach((event, i) => {
      expect(after[i]).toBe(event);
    });
  });

  it.each(names)("%s: turns() covers every conversation event exactly once", async (name) => {
    const { stream } = (await loadConversation(join(FIXTURES, name)))._unsafeUnwrap();
    const seen = new Map<StreamEvent, number>();
    let offset = -1;
    for (const turn of stream.turns()) {
      expect(turn.offset).toBeGreaterThan(offset);
      offset = turn.offset;
      for (const event of turn.events) seen.set(event, (seen.get(event) ?? 0) + 1);
    }
    const conversationEvents = stream.events.filter(isConversationEvent);
    expect(conversationEvents.length).toBeGreaterThan(0);
    for (const event of conversationEvents)
      expect(seen.get(event), JSON.stringify(event).slice(0, 120)).toBe(1);
    for (const count of seen.values()) expect(count).toBe(1);
  });

  it("lists the fixture directories through the store", async () => {
    const listed = await new FileConversationStore(FIXTURES).list();
    expect(listed._unsafeUnwrap()).toEqual(names);
  });
});
