import { createEvent } from "@jp/conversation";
import { TurnState } from "@jp/coordinator";
import { expect, it } from "vitest";
import {
  createInboxPrompts,
  type InboxPrompt,
  PostgresConversationStore,
  PostgresInbox,
} from "../src/index.js";
import { describeWithPostgres } from "./support/server.js";
import { coordinatorFor, newConversation, suspendAt } from "./support/turns.js";

// What a process asks of the server at the same moment goes in one statement: these tests hold
// every answer, prompt and save to its own result when many are under way at once.
describeWithPostgres("many at once in one process", (ctx) => {
  async function suspendedMany(count: number, slug: string) {
    const store = new PostgresConversationStore(ctx().pool);
    return Promise.all(
      Array.from({ length: count }, async () => {
        const conversation = newConversation(store, slug);
        const run = await suspendAt(conversation, "asker");
        (await store.save(conversation))._unsafeUnwrap();
        return { name: conversation.name, promptId: run.pending[0]?.prompt_id as string };
      }),
    );
  }

  it("answers given at once each get their own result: taken, refused as a misfit, or already answered", async () => {
    const targets = await suspendedMany(30, "together");
    const inbox = new PostgresInbox(ctx().pool);
    const [misfit, twice] = targets as [(typeof targets)[0], (typeof targets)[0]];
    const results = await Promise.all([
      ...targets.map((t, i) =>
        inbox.answer({
          conversation: t.name,
          promptId: t.promptId,
          reply: { type: "answer", value: t === misfit ? "yes" : i % 2 === 0 },
        }),
      ),
      inbox.answer({
        conversation: twice.name,
        promptId: twice.promptId,
        reply: { type: "answer", value: false },
      }),
      inbox.answer({
        conversation: targets[2]?.name as string,
        promptId: "call_7.go.1",
        reply: { type: "answer", value: true },
      }),
    ]);
    const kinds = results.map((r) => (r.isOk() ? "ok" : r.error.kind));
    expect(kinds[0]).toBe("invalid_reply");
    expect(kinds.at(-1)).toBe("unknown_prompt");
    // The two answers to `twice`: exactly one taken.
    expect([kinds[1], kinds.at(-2)].sort()).toEqual(["already_answered", "ok"]);
    expect(kinds.slice(2, -2).every((k) => k === "ok")).toBe(true);

    // Each stored reply is the one its own answer gave.
    const store = new PostgresConversationStore(ctx().pool);
    for (const [i, t] of targets.entries()) {
      const prompt = (await inbox.get(t.name, t.promptId))._unsafeUnwrap();
      expect(prompt.answered).toBe(t !== misfit);
      if (i < 2) continue;
      const loaded = (await store.load(t.name))._unsafeUnwrap();
      await coordinatorFor(loaded).resume();
      expect(loaded.stream.events.filter((e) => e.type === "tool_call_response")).toMatchObject([
        { content: `go: ${String(i % 2 === 0)}` },
      ]);
    }
  });

  it("live prompts of many runs asked at once: each run goes on with its own answer", async () => {
    const store = new PostgresConversationStore(ctx().pool);
    const inbox = new PostgresInbox(ctx().pool);
    const elsewhere = new PostgresInbox(ctx().server.pool({ max: 4 }));
    const conversations = Array.from({ length: 20 }, () => newConversation(store, "live-many"));
    const runs = conversations.map((conversation) => {
      conversation.stream.startTurn("Go?");
      return coordinatorFor(
        conversation,
        createInboxPrompts({ inbox, conversation: conversation.name }),
      ).run([{ id: "call_1", name: "asker", arguments: {} }], { turn: new TurnState() });
    });
    let open: readonly InboxPrompt[] = [];
    for (let i = 0; i < 300 && open.length < conversations.length; i++) {
      open = (await elsewhere.list({ state: "live", limit: 1000, answered: false }))
        ._unsafeUnwrap()
        .prompts.filter((p) => p.conversation.endsWith("-live-many"));
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(open).toHaveLength(conversations.length);
    const values = new Map(conversations.map((c, i) => [c.name, i % 3 === 0]));
    const answer = (p: InboxPrompt) =>
      elsewhere.answer({
        conversation: p.conversation,
        promptId: p.prompt_id,
        reply: { type: "answer", value: values.get(p.conversation) as boolean },
      });
    // The first prompt is answered twice in the same moment: exactly one answer is taken.
    const answered = await Promise.all([...open.map(answer), answer(open[0] as InboxPrompt)]);
    expect(answered.slice(1, -1).every((r) => r.isOk())).toBe(true);
    expect(
      [answered[0], answered.at(-1)]
        .map((r) =>
          r?.match(
            () => "ok",
            (e) => e.kind,
          ),
        )
        .sort(),
    ).toEqual(["already_answered", "ok"]);
    const results = await Promise.all(runs);
    for (const [i, result] of results.entries()) {
      expect(result.responses.map((r) => r.content)).toEqual([`go: ${String(i % 3 === 0)}`]);
    }
    // Every host took its row back.
    const left = (await inbox.list({ state: "live", limit: 1000 }))._unsafeUnwrap().prompts;
    expect(left.filter((p) => p.conversation.endsWith("-live-many"))).toEqual([]);
    await Promise.all([inbox.close(), elsewhere.close()]);
  });

  it("an answer racing a save of its conversation is never lost: the save either goes first or gets a conflict", async () => {
    const store = new PostgresConversationStore(ctx().pool);
    const inbox = new PostgresInbox(ctx().pool);
    const outcomes = new Set<string>();
    for (let round = 0; round < 20; round++) {
      const [target] = await suspendedMany(1, "race");
      const { name, promptId } = target as { name: string; promptId: string };
      const loaded = (await store.load(name))._unsafeUnwrap();
      loaded.metadata = { ...loaded.metadata, title: `renamed ${round}` };
      loaded.stream.append(createEvent("chat_response", { message: "a note while waiting" }));
      const [answered, saved] = await Promise.all([
        inbox.answer({ conversation: name, promptId, reply: { type: "answer", value: true } }),
        store.save(loaded),
      ]);
      expect(answered.isOk()).toBe(true);
      outcomes.add(saved.isOk() ? "saved" : saved.error.kind);
      const after = (await store.load(name))._unsafeUnwrap();
      // The answer is in the stored stream either way; the save's change only if it went through.
      expect((await inbox.get(name, promptId))._unsafeUnwrap().answered).toBe(true);
      const result = await coordinatorFor(after).resume();
      expect(result.responses.map((r) => r.content)).toEqual(["go: true"]);
      expect(after.stream.events.some((e) => e.type === "chat_response")).toBe(saved.isOk());
    }
    expect([...outcomes].every((o) => o === "saved" || o === "conflict")).toBe(true);
    await inbox.close();
  });

  it("prompts with ids of thousands of characters asked at once are all announced and answered", async () => {
    const store = new PostgresConversationStore(ctx().pool);
    const inbox = new PostgresInbox(ctx().pool);
    const elsewhere = new PostgresInbox(ctx().server.pool({ max: 4 }));
    const heard = new Map<string, string | undefined>();
    elsewhere.listener().on("notice", (n) => {
      if (n.event === "pending") heard.set(n.conversation, n.promptId);
    });
    await elsewhere.listener().subscribe({ pending: true }).ready;
    // Twelve prompts of 2,500 to 4,000 characters: more than one notification's 8,000 bytes.
    const conversations = Array.from({ length: 12 }, () => newConversation(store, "long-ids"));
    const callIds = conversations.map((_, i) => `call_${"x".repeat(2_500 + i * 125)}`);
    const runs = conversations.map((conversation, i) => {
      conversation.stream.startTurn("Go?");
      return coordinatorFor(
        conversation,
        createInboxPrompts({ inbox, conversation: conversation.name }),
      ).run([{ id: callIds[i] as string, name: "asker", arguments: {} }], {
        turn: new TurnState(),
      });
    });
    await expect.poll(() => heard.size, { timeout: 10_000 }).toBe(conversations.length);
    for (const [i, conversation] of conversations.entries()) {
      const promptId = `${callIds[i]}.go.1`;
      // Named in the notification while it fits; else the inbox names it.
      const named = heard.get(conversation.name);
      expect(named === undefined || named === promptId).toBe(true);
      (
        await elsewhere.answer({
          conversation: conversation.name,
          promptId,
          reply: { type: "answer", value: true },
        })
      )._unsafeUnwrap();
    }
    expect([...heard.values()].filter((p) => p !== undefined).length).toBeGreaterThan(0);
    for (const result of await Promise.all(runs)) {
      expect(result.responses.map((r) => r.content)).toEqual(["go: true"]);
    }
    await Promise.all([inbox.close(), elsewhere.close()]);
  });
});
