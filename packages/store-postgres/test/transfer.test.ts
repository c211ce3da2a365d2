import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FileConversationStore, type StoredConversation } from "@jp/conversation";
import { afterAll, expect, it } from "vitest";
import {
  exportConversation,
  importConversation,
  PostgresConversationStore,
  PostgresInbox,
} from "../src/index.js";
import { describeWithPostgres } from "./support/server.js";
import { coordinatorFor, newConversation, suspendAt } from "./support/turns.js";

const JP_HISTORY = join(import.meta.dirname, "../../conversation/test/fixtures/jp-history");
const roots: string[] = [];
const tempRoot = () => {
  const root = mkdtempSync(join(tmpdir(), "jp-transfer-"));
  roots.push(root);
  return root;
};
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

/** Everything a conversation is, apart from the store's revision. */
const content = (c: StoredConversation) => ({
  name: c.name,
  metadata: c.metadata,
  baseConfig: c.baseConfig,
  layout: c.layout,
  events: c.stream.toJSON(),
});

describeWithPostgres("import and export with JP's directory layout", (ctx) => {
  it.each(readdirSync(JP_HISTORY))(
    "JP's conversation %s goes to PostgreSQL and back unchanged",
    async (name) => {
      const source = tempRoot();
      cpSync(join(JP_HISTORY, name), join(source, name), { recursive: true });
      const files = new FileConversationStore(source);
      const postgres = new PostgresConversationStore(ctx().pool);
      (await importConversation({ files, postgres, name }))._unsafeUnwrap();
      const original = (await files.load(name))._unsafeUnwrap();
      expect(content((await postgres.load(name))._unsafeUnwrap())).toEqual(content(original));

      const target = new FileConversationStore(tempRoot());
      (await exportConversation({ files: target, postgres, name }))._unsafeUnwrap();
      expect(content((await target.load(name))._unsafeUnwrap())).toEqual(content(original));
    },
  );

  it("a conversation this SDK wrote comes back byte for byte, as a copy between file stores would", async () => {
    const files = new FileConversationStore(tempRoot());
    const postgres = new PostgresConversationStore(ctx().pool);
    const conversation = newConversation(files, "bytes");
    await suspendAt(conversation, "planner");
    (await files.save(conversation))._unsafeUnwrap();
    (await importConversation({ files, postgres, name: conversation.name }))._unsafeUnwrap();
    const target = new FileConversationStore(tempRoot());
    (
      await exportConversation({ files: target, postgres, name: conversation.name })
    )._unsafeUnwrap();
    // The file store's own copy, for comparison: it writes metadata.json's keys in its schema's order.
    const copy = new FileConversationStore(tempRoot());
    const { revision: _, ...read } = (await files.load(conversation.name))._unsafeUnwrap();
    (await copy.save(read))._unsafeUnwrap();
    const bytes = (store: FileConversationStore, file: string) =>
      readFileSync(join(store.root, conversation.name, file), "utf-8");
    expect(bytes(target, "events.json")).toBe(bytes(files, "events.json"));
    expect(bytes(target, "metadata.json")).toBe(bytes(copy, "metadata.json"));
  });

  it("a suspended turn moves with its prompts: answered in the inbox, resumed from files", async () => {
    const files = new FileConversationStore(tempRoot());
    const postgres = new PostgresConversationStore(ctx().pool);
    const inbox = new PostgresInbox(ctx().pool);
    const conversation = newConversation(files, "moves");
    const run = await suspendAt(conversation, "asker");
    (await files.save(conversation))._unsafeUnwrap();
    const name = conversation.name;
    (await importConversation({ files, postgres, name }))._unsafeUnwrap();
    const promptId = run.pending[0]?.prompt_id as string;
    (
      await inbox.answer({ conversation: name, promptId, reply: { type: "answer", value: true } })
    )._unsafeUnwrap();

    const back = new FileConversationStore(tempRoot());
    (await exportConversation({ files: back, postgres, name }))._unsafeUnwrap();
    const loaded = (await back.load(name))._unsafeUnwrap();
    const resumed = await coordinatorFor(loaded).resume();
    expect(resumed.responses.map((r) => r.content)).toEqual(["go: true"]);
  });

  it("a target that already holds the conversation is a conflict, and nothing is written", async () => {
    const files = new FileConversationStore(tempRoot());
    const postgres = new PostgresConversationStore(ctx().pool);
    const conversation = newConversation(files, "twice");
    conversation.stream.startTurn("Once");
    (await files.save(conversation))._unsafeUnwrap();
    const name = conversation.name;
    (await importConversation({ files, postgres, name }))._unsafeUnwrap();
    const revision = (await postgres.revision(name))._unsafeUnwrap();
    expect((await importConversation({ files, postgres, name }))._unsafeUnwrapErr().kind).toBe(
      "conflict",
    );
    expect((await postgres.revision(name))._unsafeUnwrap()).toBe(revision);
    expect((await exportConversation({ files, postgres, name }))._unsafeUnwrapErr().kind).toBe(
      "conflict",
    );
  });

  it("a missing source is not-found, a bad name invalid-id", async () => {
    const files = new FileConversationStore(tempRoot());
    const postgres = new PostgresConversationStore(ctx().pool);
    const missing = { files, postgres, name: "17000000003-missing" };
    expect((await importConversation(missing))._unsafeUnwrapErr().kind).toBe("not-found");
    expect((await exportConversation(missing))._unsafeUnwrapErr().kind).toBe("not-found");
    expect(
      (await importConversation({ files, postgres, name: "../x" }))._unsafeUnwrapErr().kind,
    ).toBe("invalid-id");
  });
});
