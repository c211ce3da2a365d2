import type pg from "pg";
import { expect, it } from "vitest";
import { type InboxNotice, PostgresConversationStore, PostgresInbox } from "../src/index.js";
import { namesFor } from "../src/internal/sql.js";
import { describeWithPostgres } from "./support/server.js";
import { newConversation, suspendAt } from "./support/turns.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describeWithPostgres("InboxListener", (ctx) => {
  async function suspended(slug: string) {
    const store = new PostgresConversationStore(ctx().pool);
    const conversation = newConversation(store, slug);
    const run = await suspendAt(conversation, "asker");
    (await store.save(conversation))._unsafeUnwrap();
    return { name: conversation.name, promptId: run.pending[0]?.prompt_id as string };
  }

  /** Two conversations whose answers go to different channels. */
  async function apart() {
    const n = namesFor("jp");
    const a = await suspended("mine");
    for (;;) {
      const b = await suspended("other");
      if (n.answered(b.name) !== n.answered(a.name)) return { a, b };
    }
  }

  it("hears the answers of the conversations it subscribed to and not of others, then new prompts", async () => {
    const { a, b } = await apart();
    const inbox = new PostgresInbox(ctx().pool);
    const heard: InboxNotice[] = [];
    const listener = inbox.listener();
    listener.on("notice", (n) => heard.push(n));
    const subscription = listener.subscribe({ conversations: [a.name] });
    await subscription.ready;
    const answerer = new PostgresInbox(ctx().pool);
    for (const { name, promptId } of [b, a]) {
      (
        await answerer.answer({
          conversation: name,
          promptId,
          reply: { type: "answer", value: true },
        })
      )._unsafeUnwrap();
    }
    await expect.poll(() => heard.length).toBe(1);
    expect(heard[0]).toMatchObject({
      event: "answered",
      conversation: a.name,
      promptId: a.promptId,
    });

    // Closed, and new prompts subscribed to instead: those are heard.
    subscription.close();
    const pending = listener.subscribe({ pending: true });
    await pending.ready;
    const c = await suspended("later");
    await expect.poll(() => heard.map((n) => n.event)).toEqual(["answered", "pending"]);
    expect(heard[1]).toMatchObject({ conversation: c.name, promptId: c.promptId });
    await inbox.close();
  });

  it("every answer, with allAnswers", async () => {
    const { a, b } = await apart();
    const inbox = new PostgresInbox(ctx().pool);
    const heard: string[] = [];
    inbox.listener().on("notice", (n) => heard.push(n.conversation));
    await inbox.listener().subscribe({ allAnswers: true }).ready;
    for (const { name, promptId } of [a, b]) {
      (
        await inbox.answer({
          conversation: name,
          promptId,
          reply: { type: "answer", value: false },
        })
      )._unsafeUnwrap();
    }
    await expect.poll(() => heard.sort()).toEqual([a.name, b.name].sort());
    await inbox.close();
  });

  it("a subscription made while its channel is being given up waits for it to be listened on again", async () => {
    // The listener's LISTEN and UNLISTEN statements take 100 ms to leave, so the moment between
    // a channel given up and listened on again is wide enough to land a notification in.
    const pool = ctx().server.pool({ max: 2 });
    const connect = pool.connect.bind(pool) as () => Promise<pg.PoolClient>;
    (pool as { connect: () => Promise<pg.PoolClient> }).connect = async () => {
      const client = await connect();
      const query = client.query.bind(client) as (text: string) => Promise<unknown>;
      (client as { query: unknown }).query = async (text: string) => {
        if (/^(UN)?LISTEN/.test(text)) await sleep(100);
        return query(text);
      };
      return client;
    };
    const inbox = new PostgresInbox(pool, { listener: { lingerMs: 0 } });
    const listener = inbox.listener();
    const heard = new Set<string>();
    listener.on("notice", (n) => heard.add(n.conversation));
    const first = listener.subscribe({ pending: true });
    await first.ready;
    first.close(); // its UNLISTEN leaves in 100 ms
    await sleep(20);
    const second = listener.subscribe({ pending: true });
    await second.ready;
    await sleep(150); // the UNLISTEN is done; whether the LISTEN after it is, `ready` must say
    const store = new PostgresConversationStore(ctx().pool);
    const conversation = newConversation(store, "resubscribe");
    await suspendAt(conversation, "asker");
    (await store.save(conversation))._unsafeUnwrap();
    await expect.poll(() => heard.has(conversation.name), { timeout: 2_000 }).toBe(true);
    second.close();
    await inbox.close();
  });

  it("a channel given up is listened on for lingerMs more: subscribing again needs no LISTEN, and after it answers there go unheard", async () => {
    const { a } = await apart();
    const inbox = new PostgresInbox(ctx().pool, { listener: { lingerMs: 300 } });
    const listener = inbox.listener();
    const heard: string[] = [];
    listener.on("notice", (n) => heard.push(n.promptId ?? ""));
    const first = listener.subscribe({ conversations: [a.name] });
    await first.ready;
    first.close();
    await sleep(100); // an UNLISTEN would be done by now
    const again = listener.subscribe({ conversations: [a.name] });
    expect(again.wasListening).toBe(true);
    again.close();
    await sleep(600); // past lingerMs: the channel is given up
    expect(listener.subscribe({}).wasListening).toBe(true);
    const answerer = new PostgresInbox(ctx().pool);
    (
      await answerer.answer({
        conversation: a.name,
        promptId: a.promptId,
        reply: { type: "answer", value: true },
      })
    )._unsafeUnwrap();
    await sleep(300);
    expect(heard).toEqual([]);
    const late = listener.subscribe({ conversations: [a.name] });
    expect(late.wasListening).toBe(false);
    await late.ready;
    late.close();
    await inbox.close();
  });

  it("an inbox closed gives its connection back to the pool with nothing of its own left on it", async () => {
    const pool = ctx().server.pool({ max: 1 });
    const handlersOn = async () => {
      const client = await pool.connect();
      const counts = ["error", "end", "notification"].map((e) => client.listenerCount(e));
      client.release();
      return counts;
    };
    const before = await handlersOn();
    for (let i = 0; i < 12; i++) {
      const inbox = new PostgresInbox(pool);
      await inbox.listener().subscribe({ pending: true }).ready;
      await inbox.close();
    }
    expect(await handlersOn()).toEqual(before);
  });
});
