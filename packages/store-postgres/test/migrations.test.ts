import { expect, it } from "vitest";
import { migrate, PostgresConversationStore, SCHEMA_VERSION } from "../src/index.js";
import { describeWithPostgres } from "./support/server.js";
import { newConversation } from "./support/turns.js";

describeWithPostgres("migrate", (ctx) => {
  it("applies every version once; a second call does nothing", async () => {
    const pool = ctx().pool;
    expect((await migrate(pool, { schema: "once" }))._unsafeUnwrap()).toEqual({
      applied: [1, 2, 3],
      version: SCHEMA_VERSION,
    });
    expect((await migrate(pool, { schema: "once" }))._unsafeUnwrap()).toEqual({
      applied: [],
      version: SCHEMA_VERSION,
    });
  });

  it("processes migrating at once apply each version exactly once", async () => {
    const pools = Array.from({ length: 5 }, () => ctx().server.pool({ max: 1 }));
    const results = await Promise.all(pools.map((p) => migrate(p, { schema: "racing" })));
    const applied = results.map((r) => r._unsafeUnwrap().applied);
    expect(applied.filter((a) => a.length > 0)).toEqual([[1, 2, 3]]);
  });

  it("schemas are independent: a store in one does not see another's conversations", async () => {
    (await migrate(ctx().pool, { schema: "tenant_a" }))._unsafeUnwrap();
    (await migrate(ctx().pool, { schema: "tenant_b" }))._unsafeUnwrap();
    const a = new PostgresConversationStore(ctx().pool, { schema: "tenant_a" });
    const b = new PostgresConversationStore(ctx().pool, { schema: "tenant_b" });
    const conversation = newConversation(a, "tenant");
    (await a.save(conversation))._unsafeUnwrap();
    expect((await b.list())._unsafeUnwrap()).toEqual([]);
    expect((await b.load(conversation.name))._unsafeUnwrapErr().kind).toBe("not-found");
  });

  it("a database at an older version gets only the steps after it, and keeps its rows", async () => {
    (await migrate(ctx().pool, { schema: "older" }))._unsafeUnwrap();
    const store = new PostgresConversationStore(ctx().pool, { schema: "older" });
    const conversation = newConversation(store, "older");
    (await store.save(conversation))._unsafeUnwrap();
    // As a database of version 1 was: no wake column, the table's default fill factor, versions
    // 2 and 3 not recorded.
    await ctx().pool.query(`ALTER TABLE "older".prompts DROP COLUMN wake`);
    await ctx().pool.query(`ALTER TABLE "older".prompts RESET (fillfactor)`);
    await ctx().pool.query(`DELETE FROM "older".schema_migrations WHERE version >= 2`);
    expect((await migrate(ctx().pool, { schema: "older" }))._unsafeUnwrap()).toEqual({
      applied: [2, 3],
      version: SCHEMA_VERSION,
    });
    const { rows } = await ctx().pool.query<{ options: string[] | null }>(
      `SELECT reloptions AS options FROM pg_class WHERE oid = '"older".prompts'::regclass`,
    );
    expect(rows[0]?.options).toEqual(["fillfactor=50"]);
    expect((await store.list())._unsafeUnwrap()).toEqual([conversation.name]);
  });

  it("a database migrated by a newer version is left alone", async () => {
    (await migrate(ctx().pool, { schema: "newer" }))._unsafeUnwrap();
    await ctx().pool.query(
      `INSERT INTO "newer".schema_migrations (version, name) VALUES ($1, 'from the future')`,
      [SCHEMA_VERSION + 1],
    );
    const migrated = await migrate(ctx().pool, { schema: "newer" });
    expect(migrated._unsafeUnwrapErr().kind).toBe("too-new");
    expect(migrated._unsafeUnwrapErr().message).toMatch(/upgrade @jp\/store-postgres/);
  });

  it.each(["", "Jp", "1jp", "jp-store", 'jp"; DROP SCHEMA public; --', "a".repeat(51)])(
    "refuses the schema name %j",
    async (schema) => {
      expect((await migrate(ctx().pool, { schema }))._unsafeUnwrapErr().kind).toBe(
        "invalid-schema",
      );
    },
  );

  it("a database it cannot reach is a database error", async () => {
    const pool = ctx().server.pool({ connectionString: "postgres://postgres@127.0.0.1:1/x" });
    expect((await migrate(pool))._unsafeUnwrapErr().kind).toBe("database");
  });
});
