import { expect, it } from "vitest";
import { type InboxNotice, PostgresConversationStore, PostgresInbox } from "../src/index.js";
import { namesFor } from "../src/internal/sql.js";
import { describeWithPostgres } from "./support/server.js";
import { newConversation, suspendAt } from "./support/turns.js";

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
});
