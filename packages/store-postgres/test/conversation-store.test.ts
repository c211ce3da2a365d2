import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createEvent,
  FileConversationStore,
  type StoredConversation,
  type StoreError,
} from "@jp/conversation";
import type { Result } from "neverthrow";
import pg from "pg";
import { afterAll, describe, expect, expectTypeOf, it } from "vitest";
import { PostgresConversationStore } from "../src/index.js";
import { describeWithPostgres } from "./support/server.js";
import { newConversation } from "./support/turns.js";

/** What a host uses of a store: both stores must behave alike through it. */
interface Store {
  create(options?: { title?: string; now?: Date }): StoredConversation;
  list(): Promise<Result<string[], StoreError>>;
  load(name: string): Promise<Result<StoredConversation, StoreError>>;
  revision(name: string): Promise<Result<string | null, StoreError>>;
  save(
    c: StoredConversation,
    o?: { expectedRevision?: string | null },
  ): Promise<Result<{ revision: string }, StoreError>>;
}

describe("the store contract, as a type", () => {
  it("both stores fit one interface, so a host can swap them", () => {
    expectTypeOf<PostgresConversationStore>().toExtend<Store>();
    expectTypeOf<FileConversationStore>().toExtend<Store>();
  });
});

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

describeWithPostgres("PostgresConversationStore", (ctx) => {
  const postgres = () => new PostgresConversationStore(ctx().pool);
  const stores: [string, () => Store][] = [
    ["postgres", postgres],
    [
      "files",
      () => {
        const root = mkdtempSync(join(tmpdir(), "jp-store-"));
        roots.push(root);
        return new FileConversationStore(root);
      },
    ],
  ];

  describe.each(stores)("the contract both stores keep (%s)", (_, make) => {
    it("saves a new conversation, loads it back and lists it", async () => {
      const store = make();
      const conversation = newConversation(store, "hello");
      conversation.stream.startTurn("Hi");
      conversation.stream.append(createEvent("chat_response", { message: "Hello" }));
      const saved = (await store.save(conversation))._unsafeUnwrap();
      expect(conversation.revision).toBe(saved.revision);
      const loaded = (await store.load(conversation.name))._unsafeUnwrap();
      expect(loaded.stream.toJSON()).toEqual(conversation.stream.toJSON());
      expect(loaded.metadata).toEqual(conversation.metadata);
      expect(loaded.revision).toBe(saved.revision);
      expect((await store.revision(conversation.name))._unsafeUnwrap()).toBe(saved.revision);
      expect((await store.list())._unsafeUnwrap()).toContain(conversation.name);
    });

    it("saves text holding half of a character (a cut by UTF-16 index)", async () => {
      const store = make();
      const conversation = newConversation(store, "half");
      // A model's reply cut between the two halves of an emoji, in text and in metadata.
      const cut = "done \ud83d";
      conversation.stream.startTurn("Hi");
      conversation.stream.append(
        createEvent("chat_response", { message: cut, metadata: { note: `x${cut}` } }),
      );
      conversation.metadata = { ...conversation.metadata, title: cut };
      (await store.save(conversation))._unsafeUnwrap();
      const loaded = (await store.load(conversation.name))._unsafeUnwrap();
      // Files are written for JP, which reads no lone half: it becomes U+FFFD there. The
      // database keeps the text as written.
      const read = store instanceof FileConversationStore ? "done \ufffd" : cut;
      expect(loaded.stream.events.at(-1)).toMatchObject({
        message: read,
        metadata: { note: `x${read}` },
      });
      expect(loaded.metadata.title).toBe(read);
    });

    it("of two saves from one revision, one wins and the other is a conflict; nothing is lost", async () => {
      const store = make();
      const conversation = newConversation(store, "race");
      conversation.stream.startTurn("Start");
      (await store.save(conversation))._unsafeUnwrap();
      const [a, b] = [
        (await store.load(conversation.name))._unsafeUnwrap(),
        (await store.load(conversation.name))._unsafeUnwrap(),
      ];
      a.stream.append(createEvent("chat_response", { message: "from a" }));
      b.stream.append(createEvent("chat_response", { message: "from b" }));
      const results = await Promise.all([store.save(a), store.save(b)]);
      expect(results.filter((r) => r.isOk())).toHaveLength(1);
      const loser = results.find((r) => r.isErr())?._unsafeUnwrapErr();
      expect(loser).toMatchObject({ kind: "conflict" });
      if (loser?.kind !== "conflict") throw new Error("expected a conflict");
      expect(loser.expectedRevision).toBe(conversation.revision);
      // The loser reloads, applies its change again and saves: both answers are kept.
      const winner = results[0]?.isOk() ? "from a" : "from b";
      const retry = (await store.load(conversation.name))._unsafeUnwrap();
      retry.stream.append(createEvent("chat_response", { message: "again" }));
      (await store.save(retry))._unsafeUnwrap();
      const final = (await store.load(conversation.name))._unsafeUnwrap();
      const messages = final.stream.events.flatMap((e) => ("message" in e ? [e.message] : []));
      expect(messages).toEqual([winner, "again"]);
    });

    it("a new conversation whose name is taken is a conflict with the current revision", async () => {
      const store = make();
      const first = newConversation(store, "taken");
      (await store.save(first))._unsafeUnwrap();
      const second = { ...store.create(), name: first.name };
      const saved = await store.save(second);
      expect(saved._unsafeUnwrapErr()).toMatchObject({
        kind: "conflict",
        expectedRevision: null,
        currentRevision: first.revision,
      });
    });

    it.each([
      ["../outside", "invalid-id"],
      ["", "invalid-id"],
      ["17000000000-x/y", "invalid-id"],
      ["17999999999-missing", "not-found"],
    ])("loading %j is a %s error", async (name, kind) => {
      expect((await make().load(name))._unsafeUnwrapErr().kind).toBe(kind);
    });

    it("a missing conversation has no revision", async () => {
      expect((await make().revision("17999999998-none"))._unsafeUnwrap()).toBeNull();
    });

    it("saving over a revision of another writer is a conflict that writes nothing", async () => {
      const store = make();
      const conversation = newConversation(store, "stale");
      (await store.save(conversation))._unsafeUnwrap();
      conversation.stream.startTurn("changed");
      const saved = await store.save(conversation, { expectedRevision: "sha256:0" });
      expect(saved._unsafeUnwrapErr().kind).toBe("conflict");
      expect((await store.load(conversation.name))._unsafeUnwrap().stream.length).toBe(0);
    });
  });

  describe("writing only what changed", () => {
    const rowVersions = async (name: string) =>
      (
        await ctx().pool.query<{ seq: number; xmin: string }>(
          "SELECT seq, xmin::text FROM jp.events WHERE conversation = $1 ORDER BY seq",
          [name],
        )
      ).rows;

    it("appending inserts the new events and leaves the others untouched", async () => {
      const store = postgres();
      const conversation = newConversation(store, "append");
      for (let i = 0; i < 20; i++) conversation.stream.startTurn(`Turn ${i}`);
      (await store.save(conversation))._unsafeUnwrap();
      const before = await rowVersions(conversation.name);
      conversation.stream.append(createEvent("chat_response", { message: "new" }));
      (await store.save(conversation))._unsafeUnwrap();
      const after = await rowVersions(conversation.name);
      expect(after.slice(0, before.length)).toEqual(before);
      expect(after).toHaveLength(before.length + 1);
    });

    it("an entry whose metadata changed is rewritten in place, and only it", async () => {
      const store = postgres();
      const conversation = newConversation(store, "meta");
      conversation.stream.startTurn("One");
      conversation.stream.startTurn("Two");
      (await store.save(conversation))._unsafeUnwrap();
      const loaded = (await store.load(conversation.name))._unsafeUnwrap();
      const before = await rowVersions(conversation.name);
      loaded.stream.setMetadata(1, "cache_breakpoint", true)._unsafeUnwrap();
      (await store.save(loaded))._unsafeUnwrap();
      const after = await rowVersions(conversation.name);
      expect(after.filter((row, i) => row.xmin !== before[i]?.xmin).map((r) => r.seq)).toEqual([1]);
      const again = (await store.load(conversation.name))._unsafeUnwrap();
      expect(again.stream.toJSON()).toEqual(loaded.stream.toJSON());
      expect((again.stream.events[1] as { metadata?: unknown }).metadata).toEqual({
        cache_breakpoint: true,
      });
    });

    it("a stream that got shorter (sanitize) is stored shorter", async () => {
      const store = postgres();
      const conversation = newConversation(store, "shorter");
      conversation.stream.startTurn("One");
      conversation.stream.append(
        createEvent("tool_call_request", { id: "c1", name: "t", arguments: {} }),
      );
      conversation.stream.startTurn("Two");
      (await store.save(conversation))._unsafeUnwrap();
      conversation.stream.sanitize();
      (await store.save(conversation))._unsafeUnwrap();
      const loaded = (await store.load(conversation.name))._unsafeUnwrap();
      expect(loaded.stream.toJSON()).toEqual(conversation.stream.toJSON());
    });

    it("events appended while a save is under way are written by the next save", async () => {
      const store = postgres();
      const conversation = newConversation(store, "growing");
      conversation.stream.startTurn("One");
      (await store.save(conversation))._unsafeUnwrap();
      const loaded = (await store.load(conversation.name))._unsafeUnwrap();
      loaded.stream.startTurn("Two");
      const saving = store.save(loaded);
      loaded.stream.startTurn("Three, while the save runs");
      (await saving)._unsafeUnwrap();
      const between = (await store.load(conversation.name))._unsafeUnwrap();
      expect(between.stream.length).toBe(4);
      (await store.save(loaded))._unsafeUnwrap();
      const again = (await store.load(conversation.name))._unsafeUnwrap();
      expect(again.stream.toJSON()).toEqual(loaded.stream.toJSON());
    });

    it("saving over a newer revision named by expectedRevision writes the stream whole", async () => {
      const store = postgres();
      const conversation = newConversation(store, "forced");
      conversation.stream.startTurn("One");
      (await store.save(conversation))._unsafeUnwrap();
      const mine = (await store.load(conversation.name))._unsafeUnwrap();
      const theirs = (await store.load(conversation.name))._unsafeUnwrap();
      theirs.stream.startTurn("Theirs 1");
      theirs.stream.startTurn("Theirs 2");
      (await store.save(theirs))._unsafeUnwrap();
      mine.stream.startTurn("Mine");
      const current = (await store.revision(conversation.name))._unsafeUnwrap();
      (await store.save(mine, { expectedRevision: current }))._unsafeUnwrap();
      const loaded = (await store.load(conversation.name))._unsafeUnwrap();
      expect(loaded.stream.toJSON()).toEqual(mine.stream.toJSON());
      // And the next save, over the revision just written, writes only what follows.
      mine.stream.append(createEvent("chat_response", { message: "after" }));
      (await store.save(mine))._unsafeUnwrap();
      const after = (await store.load(conversation.name))._unsafeUnwrap();
      expect(after.stream.toJSON()).toEqual(mine.stream.toJSON());
    });

    it("a stream this store did not load is written whole, replacing what is there", async () => {
      const a = postgres();
      const conversation = newConversation(a, "whole");
      conversation.stream.startTurn("One");
      (await a.save(conversation))._unsafeUnwrap();
      const b = postgres();
      const copy = { ...conversation, stream: conversation.stream.clone() };
      copy.stream.startTurn("Two");
      (await b.save(copy))._unsafeUnwrap();
      expect((await a.load(conversation.name))._unsafeUnwrap().stream.toJSON()).toEqual(
        copy.stream.toJSON(),
      );
    });
  });

  it("events that do not decode load as a corrupt error naming the conversation", async () => {
    const store = postgres();
    const conversation = newConversation(store, "corrupt");
    conversation.stream.startTurn("One");
    (await store.save(conversation))._unsafeUnwrap();
    await ctx().pool.query(
      `UPDATE jp.events SET event = '{"type":"tool_call_response"}' WHERE conversation = $1`,
      [conversation.name],
    );
    const loaded = await store.load(conversation.name);
    expect(loaded._unsafeUnwrapErr()).toMatchObject({ kind: "corrupt" });
    expect(loaded._unsafeUnwrapErr().message).toContain(conversation.name);
  });

  describe("a damaged conversation row loads as a corrupt error, as a damaged file does", () => {
    let damaged = 0;
    it.each([
      ["metadata that is not an object", "42", null, "metadata is a number"],
      ["metadata that is null", "null", null, "metadata is null"],
      ["metadata without last_activated_at", '{"title": "x"}', null, '"last_activated_at"'],
      ["a title that is not a string", '{"title": 7, "last_activated_at": "x"}', null, '"title"'],
      [
        "labels that are not strings",
        '{"last_activated_at": "x", "labels": [1]}',
        null,
        '"labels"',
      ],
      ["a base configuration that is a string", '{"last_activated_at": "x"}', '"x"', "base"],
      ["a base configuration that is a list", '{"last_activated_at": "x"}', "[]", "base"],
    ])("%s", async (_, metadata, baseConfig, says) => {
      const name = `${17999990100 + damaged++}-damaged`;
      await ctx().pool.query(
        `INSERT INTO jp.conversations (name, metadata, base_config, layout, revision)
         VALUES ($1, $2, $3, 'base_config', 'r1')`,
        [name, metadata, baseConfig],
      );
      const loaded = await postgres().load(name);
      expect(loaded._unsafeUnwrapErr()).toMatchObject({ kind: "corrupt" });
      expect(loaded._unsafeUnwrapErr().message).toContain(name);
      expect(loaded._unsafeUnwrapErr().message).toContain(says);
    });

    it("unknown metadata fields and an absent base configuration load as they are", async () => {
      const name = "17999990099-sound";
      await ctx().pool.query(
        `INSERT INTO jp.conversations (name, metadata, base_config, layout, revision)
         VALUES ($1, $2, NULL, 'base_config', 'r1')`,
        [name, '{"last_activated_at": "x", "labels": ["a"], "extra": {"k": 1}}'],
      );
      const loaded = (await postgres().load(name))._unsafeUnwrap();
      expect(loaded.metadata).toEqual({ last_activated_at: "x", labels: ["a"], extra: { k: 1 } });
      expect(loaded.baseConfig).toBeUndefined();
    });
  });

  it("an unreachable database is an io error, not an exception", async () => {
    const pool = new pg.Pool({ host: "127.0.0.1", port: 1, connectionTimeoutMillis: 500 });
    const store = new PostgresConversationStore(pool);
    try {
      expect((await store.load("17000000001-x"))._unsafeUnwrapErr().kind).toBe("io");
      expect((await store.list())._unsafeUnwrapErr().kind).toBe("io");
      const conversation = newConversation(store, "away");
      expect((await store.save(conversation))._unsafeUnwrapErr().kind).toBe("io");
    } finally {
      await pool.end();
    }
  });

  it("a schema name that is not a plain identifier is refused at construction", () => {
    expect(() => new PostgresConversationStore(ctx().pool, { schema: 'x"; DROP' })).toThrow(
      TypeError,
    );
  });
});
