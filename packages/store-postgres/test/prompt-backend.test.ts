import { TurnState } from "@jp/coordinator";
import { describe, expect, it } from "vitest";
import {
  createInboxPrompts,
  type InboxPrompt,
  PostgresConversationStore,
  PostgresInbox,
} from "../src/index.js";
import { describeWithPostgres } from "./support/server.js";
import { coordinatorFor, newConversation } from "./support/turns.js";

describeWithPostgres("createInboxPrompts", (ctx) => {
  const setup = () => ({
    store: new PostgresConversationStore(ctx().pool),
    inbox: new PostgresInbox(ctx().pool),
    // Another process's view: its own pool.
    elsewhere: new PostgresInbox(ctx().server.pool({ max: 2 })),
  });

  /** The live prompts of a conversation, once there are any. */
  async function livePrompt(inbox: PostgresInbox, conversation: string): Promise<InboxPrompt> {
    for (let i = 0; i < 200; i++) {
      const page = (await inbox.list({ conversation, state: "live" }))._unsafeUnwrap();
      const first = page.prompts.find((p) => !p.answered);
      if (first !== undefined) return first;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error("no live prompt appeared");
  }

  it("a live run waits in the inbox and goes on when another process answers", async () => {
    const { store, inbox, elsewhere } = setup();
    const conversation = newConversation(store, "live");
    conversation.stream.startTurn("Go?");
    const prompts = createInboxPrompts({ inbox, conversation: conversation.name });
    const running = coordinatorFor(conversation, prompts).run(
      [{ id: "call_1", name: "planner", arguments: {} }],
      { turn: new TurnState() },
    );
    const plan = await livePrompt(elsewhere, conversation.name);
    expect(plan).toMatchObject({ state: "live", kind: "question", tool_name: "planner" });
    // A misfit answer is refused, typed, and the prompt still waits.
    const misfit = await elsewhere.answer({
      conversation: conversation.name,
      promptId: plan.prompt_id,
      reply: { type: "answer", value: "enterprise" },
    });
    expect(misfit._unsafeUnwrapErr().kind).toBe("invalid_reply");
    (
      await elsewhere.answer({
        conversation: conversation.name,
        promptId: plan.prompt_id,
        reply: { type: "answer", value: "pro" },
      })
    )._unsafeUnwrap();
    const seats = await livePrompt(elsewhere, conversation.name);
    expect(seats.prompt_id).not.toBe(plan.prompt_id);
    (
      await elsewhere.answer({
        conversation: conversation.name,
        promptId: seats.prompt_id,
        reply: { type: "answer", value: "5" },
      })
    )._unsafeUnwrap();
    const result = await running;
    expect(result.responses.map((r) => r.content)).toEqual(["pro x 5"]);
    expect(result.pending).toEqual([]);
    // Taken back by the host: nothing left in the inbox.
    expect((await inbox.list({ conversation: conversation.name }))._unsafeUnwrap().prompts).toEqual(
      [],
    );
    await Promise.all([inbox.close(), elsewhere.close()]);
  });

  it("after waitMs the turn suspends at the prompt; saved, it is answerable and resumes", async () => {
    const { store, inbox, elsewhere } = setup();
    const conversation = newConversation(store, "wait");
    conversation.stream.startTurn("Go?");
    const prompts = createInboxPrompts({ inbox, conversation: conversation.name, waitMs: 100 });
    const result = await coordinatorFor(conversation, prompts).run(
      [{ id: "call_1", name: "asker", arguments: {} }],
      { turn: new TurnState() },
    );
    expect(result.pending).toHaveLength(1);
    (await store.save(conversation))._unsafeUnwrap();
    const [prompt] = (await elsewhere.list({ conversation: conversation.name }))._unsafeUnwrap()
      .prompts;
    expect(prompt).toMatchObject({ state: "suspended", prompt_id: result.pending[0]?.prompt_id });
    (
      await elsewhere.answer({
        conversation: conversation.name,
        promptId: prompt?.prompt_id as string,
        reply: { type: "answer", value: false },
      })
    )._unsafeUnwrap();
    const loaded = (await store.load(conversation.name))._unsafeUnwrap();
    const resumed = await coordinatorFor(loaded).resume();
    expect(resumed.responses.map((r) => r.content)).toEqual(["go: false"]);
    await Promise.all([inbox.close(), elsewhere.close()]);
  });

  it("a saved turn resumed with the inbox backend before its prompt is answered suspends there again, its prompt still in the inbox", async () => {
    const { store, inbox, elsewhere } = setup();
    const conversation = newConversation(store, "again");
    conversation.stream.startTurn("Go?");
    const prompts = createInboxPrompts({ inbox, conversation: conversation.name, waitMs: 100 });
    const first = await coordinatorFor(conversation, prompts).run(
      [{ id: "call_1", name: "asker", arguments: {} }],
      { turn: new TurnState() },
    );
    (await store.save(conversation))._unsafeUnwrap();
    const promptId = first.pending[0]?.prompt_id as string;
    // Resumed before anyone answered: the prompt is not asked a second time beside the one
    // waiting in the inbox, nor closed as a failure; the turn suspends at it again.
    const loaded = (await store.load(conversation.name))._unsafeUnwrap();
    const again = await coordinatorFor(loaded, prompts).resume();
    expect(again.pending.map((p) => p.prompt_id)).toEqual([promptId]);
    expect(again.responses).toEqual([]);
    const outcomes = loaded.stream.events.filter((e) => e.type === "inquiry_response");
    expect(outcomes).toEqual([]);
    (await store.save(loaded))._unsafeUnwrap();
    const listed = (await elsewhere.list({ conversation: conversation.name }))._unsafeUnwrap();
    expect(listed.prompts.map((p) => [p.prompt_id, p.state])).toEqual([[promptId, "suspended"]]);
    // Answered there, the turn goes on.
    (
      await elsewhere.answer({
        conversation: conversation.name,
        promptId,
        reply: { type: "answer", value: true },
      })
    )._unsafeUnwrap();
    const answered = (await store.load(conversation.name))._unsafeUnwrap();
    const resumed = await coordinatorFor(answered, prompts).resume();
    expect(resumed.responses.map((r) => r.content)).toEqual(["go: true"]);
    await Promise.all([inbox.close(), elsewhere.close()]);
  });

  it("an answer the host's look takes just as its wait runs out is the one used, never dropped", async () => {
    const { store, elsewhere } = setup();
    // The host's connection is slow to bring back what its look took: the statement has run
    // (the reply is out of the row) when the wait's time runs out.
    const pool = ctx().server.pool({ max: 5 });
    const query = pool.query.bind(pool) as (...args: unknown[]) => Promise<unknown>;
    Object.assign(pool, {
      query: async (...args: unknown[]) => {
        const result = await query(...args);
        const text = (args[0] as { text?: string } | string | undefined) ?? "";
        if (/RETURNING p\.id, p\.reply/.test(typeof text === "string" ? text : (text.text ?? ""))) {
          await new Promise((resolve) => setTimeout(resolve, 3_000));
        }
        return result;
      },
    });
    const inbox = new PostgresInbox(pool);
    const conversation = newConversation(store, "lastmoment");
    conversation.stream.startTurn("Go?");
    const prompts = createInboxPrompts({ inbox, conversation: conversation.name, waitMs: 1_500 });
    const running = coordinatorFor(conversation, prompts).run(
      [{ id: "call_1", name: "asker", arguments: {} }],
      { turn: new TurnState() },
    );
    const prompt = await livePrompt(elsewhere, conversation.name);
    const answered = await elsewhere.answer({
      conversation: conversation.name,
      promptId: prompt.prompt_id,
      reply: { type: "answer", value: true },
    });
    expect(answered.isOk()).toBe(true);
    const result = await running;
    expect(result.pending).toEqual([]);
    expect(result.responses.map((r) => r.content)).toEqual(["go: true"]);
    await Promise.all([inbox.close(), elsewhere.close()]);
  });

  it("waitMs 0 suspends at once without touching the inbox", async () => {
    const { store, inbox } = setup();
    const conversation = newConversation(store, "zero");
    conversation.stream.startTurn("Go?");
    const prompts = createInboxPrompts({ inbox, conversation: conversation.name, waitMs: 0 });
    const result = await coordinatorFor(conversation, prompts).run(
      [{ id: "call_1", name: "asker", arguments: {} }],
      { turn: new TurnState() },
    );
    expect(result.pending).toHaveLength(1);
    expect((await inbox.list({ conversation: conversation.name }))._unsafeUnwrap().prompts).toEqual(
      [],
    );
  });

  it("a stopped turn takes its prompt out of the inbox and records the stop", async () => {
    const { store, inbox, elsewhere } = setup();
    const conversation = newConversation(store, "stop");
    conversation.stream.startTurn("Go?");
    const controller = new AbortController();
    const prompts = createInboxPrompts({ inbox, conversation: conversation.name });
    const running = coordinatorFor(conversation, prompts).run(
      [{ id: "call_1", name: "asker", arguments: {} }],
      { turn: new TurnState(), signal: controller.signal },
    );
    const prompt = await livePrompt(elsewhere, conversation.name);
    controller.abort();
    const result = await running;
    expect(result.responses).toHaveLength(1);
    expect((await inbox.list({ conversation: conversation.name }))._unsafeUnwrap().prompts).toEqual(
      [],
    );
    const late = await elsewhere.answer({
      conversation: conversation.name,
      promptId: prompt.prompt_id,
      reply: { type: "answer", value: true },
    });
    // The conversation was never saved: it is not known at all now.
    expect(late._unsafeUnwrapErr().kind).toBe("unknown_conversation");
    await Promise.all([inbox.close(), elsewhere.close()]);
  });

  it("two processes answering one live prompt at once, and a third after them: one answer is taken, the others are told it was answered already", async () => {
    const { store, elsewhere } = setup();
    const conversation = newConversation(store, "twice");
    conversation.stream.startTurn("Go?");
    // The host stops listening once its prompt is out, so the answered row stays for the others
    // until the host's wait ends (waitMs).
    const hostInbox = new PostgresInbox(ctx().server.pool({ max: 3 }));
    const running = coordinatorFor(
      conversation,
      createInboxPrompts({ inbox: hostInbox, conversation: conversation.name, waitMs: 2_000 }),
    ).run([{ id: "call_1", name: "asker", arguments: {} }], { turn: new TurnState() });
    const prompt = await livePrompt(elsewhere, conversation.name);
    await hostInbox.close();
    const third = new PostgresInbox(ctx().server.pool({ max: 2 }));
    const answer = (inbox: PostgresInbox, value: boolean) =>
      inbox.answer({
        conversation: conversation.name,
        promptId: prompt.prompt_id,
        reply: { type: "answer", value },
      });
    const both = await Promise.all([answer(elsewhere, true), answer(third, false)]);
    const taken = both.findIndex((r) => r.isOk());
    expect(both.filter((r) => r.isOk())).toHaveLength(1);
    expect(both[1 - taken]?._unsafeUnwrapErr().kind).toBe("already_answered");
    const after = await answer(third, true);
    expect(after._unsafeUnwrapErr()).toMatchObject({
      kind: "already_answered",
      message: expect.stringMatching(/answered already; only the first answer counts/),
    });
    // Its wait over, the host takes the prompt out with the answer it got: the one taken.
    const result = await running;
    expect(result.responses.map((r) => r.content)).toEqual([`go: ${String(taken === 0)}`]);
    await Promise.all([elsewhere.close(), third.close()]);
  });

  describe("a host that went away", () => {
    it("its live prompt leaves the listing once the lease runs out, and answers are refused", async () => {
      const { store, inbox, elsewhere } = setup();
      const conversation = newConversation(store, "gone");
      conversation.stream.startTurn("Go?");
      const controller = new AbortController();
      // A lease of 150 ms renewed every 50 ms; the renewals stop when the host "dies" (its pool ends).
      const hostPool = ctx().server.pool({ max: 3 });
      const hostInbox = new PostgresInbox(hostPool);
      const prompts = createInboxPrompts({
        inbox: hostInbox,
        conversation: conversation.name,
        leaseMs: 150,
        retryMs: 0,
      });
      const running = coordinatorFor(conversation, prompts)
        .run([{ id: "call_1", name: "asker", arguments: {} }], {
          turn: new TurnState(),
          signal: controller.signal,
        })
        .catch(() => undefined);
      const prompt = await livePrompt(elsewhere, conversation.name);
      await hostInbox.close();
      await hostPool.end();
      await new Promise((r) => setTimeout(r, 300));
      expect(
        (await elsewhere.list({ conversation: conversation.name }))._unsafeUnwrap().prompts,
      ).toEqual([]);
      const answered = await elsewhere.answer({
        conversation: conversation.name,
        promptId: prompt.prompt_id,
        reply: { type: "answer", value: true },
      });
      expect(answered._unsafeUnwrapErr().kind).toBe("unknown_prompt");
      expect(answered._unsafeUnwrapErr().message).toMatch(
        /is gone: the host waiting for it stopped/,
      );
      controller.abort();
      await running;
      await Promise.all([inbox.close(), elsewhere.close()]);
    });
  });
});
