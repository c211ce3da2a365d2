import { createEvent } from "@jp/conversation";
import {
  answerPendingPrompt,
  listPendingPrompts,
  type StoredReply,
  TurnState,
} from "@jp/coordinator";
import { describe, expect, it } from "vitest";
import { PostgresConversationStore, PostgresInbox } from "../src/index.js";
import { describeWithPostgres } from "./support/server.js";
import { coordinatorFor, newConversation, suspendAt } from "./support/turns.js";

describeWithPostgres("PostgresInbox", (ctx) => {
  const setup = () => ({
    store: new PostgresConversationStore(ctx().pool),
    inbox: new PostgresInbox(ctx().pool),
  });

  async function suspended(tool: "asker" | "planner" | "login" = "asker", slug = "inbox") {
    const { store, inbox } = setup();
    const conversation = newConversation(store, slug);
    const run = await suspendAt(conversation, tool);
    (await store.save(conversation))._unsafeUnwrap();
    const promptId = (run.pending[0] as { prompt_id: string }).prompt_id;
    return { store, inbox, conversation, promptId };
  }

  it("a saved suspended turn's prompt is in the inbox, as listPendingPrompts shows it", async () => {
    const { inbox, conversation, promptId } = await suspended();
    const got = (await inbox.get(conversation.name, promptId))._unsafeUnwrap();
    const [expected] = listPendingPrompts(conversation.stream);
    expect(got).toMatchObject({
      ...expected,
      conversation: conversation.name,
      state: "suspended",
      secret: false,
      answered: false,
    });
  });

  it("lists exactly what listPendingPrompts lists, also for a call another reader closed", async () => {
    const { store, inbox } = setup();
    const conversation = newConversation(store, "closed");
    conversation.stream.startTurn("Two calls");
    await coordinatorFor(conversation).run(
      [
        { id: "call_1", name: "asker", arguments: {} },
        { id: "call_2", name: "asker", arguments: {} },
      ],
      { turn: new TurnState(), suspend: true },
    );
    // A reader that does not know markers (JP) closes call_1 as interrupted, leaving its marker.
    conversation.stream.append(
      createEvent("tool_call_response", {
        id: "call_1",
        content: "Tool call was interrupted.",
        is_error: true,
      }),
    );
    (await store.save(conversation))._unsafeUnwrap();
    const listed = (await inbox.list({ conversation: conversation.name }))._unsafeUnwrap();
    expect(listed.prompts.map((p) => p.prompt_id).sort()).toEqual(
      listPendingPrompts(conversation.stream)
        .map((p) => p.prompt_id)
        .sort(),
    );
  });

  it("answering, claiming and resuming from the database ends the turn as the file flow does", async () => {
    const { store, inbox, conversation, promptId } = await suspended();
    const reply: StoredReply = { type: "answer", value: true };
    const now = new Date("2026-01-01T00:00:00Z");
    const answered = (
      await inbox.answer({ conversation: conversation.name, promptId, reply, now })
    )._unsafeUnwrap();
    expect(answered).toMatchObject({ answered: true, answered_at: now.toISOString() });
    // The same answer given to the stream in memory, as with the file store.
    const expected = conversation.stream.clone();
    answerPendingPrompt(expected, promptId, reply, now)._unsafeUnwrap();
    const loaded = (await store.load(conversation.name))._unsafeUnwrap();
    expect(loaded.stream.toJSON()).toEqual(expected.toJSON());
    expect(loaded.revision).not.toBe(conversation.revision);

    const claimed = (await inbox.claimResume({ worker: "w1", leaseMs: 60_000 }))._unsafeUnwrap();
    expect(claimed).toBe(conversation.name);
    expect((await inbox.claimResume({ worker: "w2", leaseMs: 60_000 }))._unsafeUnwrap()).not.toBe(
      conversation.name,
    );
    const result = await coordinatorFor(loaded).resume();
    expect(result.responses.map((r) => r.content)).toEqual(["go: true"]);
    (await store.save(loaded))._unsafeUnwrap();
    (await inbox.releaseResume(conversation.name, "w1"))._unsafeUnwrap();
    expect((await inbox.get(conversation.name, promptId))._unsafeUnwrapErr().kind).toBe(
      "unknown_prompt",
    );
  });

  it("an answer given to the loaded stream and saved reaches the inbox too", async () => {
    const { store, inbox, conversation, promptId } = await suspended();
    const loaded = (await store.load(conversation.name))._unsafeUnwrap();
    answerPendingPrompt(loaded.stream, promptId, { type: "answer", value: false })._unsafeUnwrap();
    (await store.save(loaded))._unsafeUnwrap();
    expect((await inbox.get(conversation.name, promptId))._unsafeUnwrap().answered).toBe(true);
    const again = await inbox.answer({
      conversation: conversation.name,
      promptId,
      reply: { type: "answer", value: true },
    });
    expect(again._unsafeUnwrapErr().kind).toBe("already_answered");
  });

  it("a writer that loaded before an inbox answer gets a conflict, so the answer is never lost", async () => {
    const { store, inbox, conversation, promptId } = await suspended();
    const early = (await store.load(conversation.name))._unsafeUnwrap();
    (
      await inbox.answer({
        conversation: conversation.name,
        promptId,
        reply: { type: "answer", value: true },
      })
    )._unsafeUnwrap();
    await coordinatorFor(early).resume();
    expect((await store.save(early))._unsafeUnwrapErr().kind).toBe("conflict");
  });

  it("of ten concurrent answers to one prompt exactly one is taken", async () => {
    const { store, inbox, conversation, promptId } = await suspended();
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        inbox.answer({
          conversation: conversation.name,
          promptId,
          reply: { type: "answer", value: i % 2 === 0 },
        }),
      ),
    );
    expect(results.filter((r) => r.isOk())).toHaveLength(1);
    expect(new Set(results.filter((r) => r.isErr()).map((r) => r._unsafeUnwrapErr().kind))).toEqual(
      new Set(["already_answered"]),
    );
    const loaded = (await store.load(conversation.name))._unsafeUnwrap();
    await coordinatorFor(loaded).resume();
    const responses = loaded.stream.events.filter((e) => e.type === "inquiry_response");
    expect(responses).toHaveLength(1);
  });

  describe("bad input: a typed error, and nothing written", () => {
    const cases: [
      string,
      (t: { name: string; promptId: string }) => Parameters<PostgresInbox["answer"]>[0],
      string,
    ][] = [
      [
        "an unknown prompt id",
        (t) => ({
          conversation: t.name,
          promptId: "call_9.go.1",
          reply: { type: "answer", value: true },
        }),
        "unknown_prompt",
      ],
      [
        "a malformed answer",
        (t) => ({
          conversation: t.name,
          promptId: t.promptId,
          reply: { type: "answer", value: "yes please" },
        }),
        "invalid_reply",
      ],
      [
        "a reply of the wrong kind",
        (t) => ({ conversation: t.name, promptId: t.promptId, reply: { type: "run" } as never }),
        "invalid_reply",
      ],
      [
        "a reply that is not an object",
        (t) => ({ conversation: t.name, promptId: t.promptId, reply: "true" as never }),
        "invalid_reply",
      ],
      [
        "the wrong conversation",
        (t) => ({
          conversation: "17000000002-other",
          promptId: t.promptId,
          reply: { type: "answer", value: true },
        }),
        "unknown_conversation",
      ],
      [
        "a conversation name outside JP's grammar",
        (t) => ({
          conversation: "../x",
          promptId: t.promptId,
          reply: { type: "answer", value: true },
        }),
        "invalid_input",
      ],
      [
        "an empty prompt id",
        (t) => ({ conversation: t.name, promptId: "", reply: { type: "answer", value: true } }),
        "invalid_input",
      ],
      [
        "a prompt id that is not a string",
        (t) => ({
          conversation: t.name,
          promptId: 7 as never,
          reply: { type: "answer", value: true },
        }),
        "invalid_input",
      ],
    ];
    it.each(cases)("%s", async (_, build, kind) => {
      const { inbox, conversation, promptId } = await suspended();
      const before = await ctx().server.dump();
      const answered = await inbox.answer(build({ name: conversation.name, promptId }));
      expect(answered._unsafeUnwrapErr().kind).toBe(kind);
      expect(answered._unsafeUnwrapErr().message).not.toBe("");
      expect(await ctx().server.dump()).toBe(before);
    });

    it("the right prompt id under another existing conversation is unknown there", async () => {
      const a = await suspended();
      const b = await suspended();
      const before = await ctx().server.dump();
      const answered = await a.inbox.answer({
        conversation: b.conversation.name,
        promptId: "call_x.go.1",
        reply: { type: "answer", value: true },
      });
      expect(answered._unsafeUnwrapErr().kind).toBe("unknown_prompt");
      expect(await ctx().server.dump()).toBe(before);
    });
  });

  it.each([4096, 4097, 20_000])(
    "a prompt of a call id of %i characters is listed, fetched and answered",
    async (length) => {
      const { store, inbox } = setup();
      const conversation = newConversation(store, "longid");
      await suspendAt(conversation, "asker", `call_${"x".repeat(length)}`);
      (await store.save(conversation))._unsafeUnwrap();
      const listed = (await inbox.list({ conversation: conversation.name }))._unsafeUnwrap();
      const promptId = listed.prompts[0]?.prompt_id as string;
      expect(promptId.length).toBeGreaterThan(length);
      expect((await inbox.get(conversation.name, promptId))._unsafeUnwrap().prompt_id).toBe(
        promptId,
      );
      const answered = await inbox.answer({
        conversation: conversation.name,
        promptId,
        reply: { type: "answer", value: true },
      });
      expect(answered._unsafeUnwrap().answered).toBe(true);
      const waited = await inbox.waitForAnswer(
        { conversation: conversation.name, promptId },
        { timeoutMs: 5_000 },
      );
      expect(waited._unsafeUnwrap().prompt_id).toBe(promptId);
    },
  );

  describe("a row written by something else, whose prompt is not an object", () => {
    it.each([
      ["live", "null"],
      ["live", "7"],
      ["live", "[]"],
      ["suspended", "null"],
    ])(
      "a %s row holding %s is an unknown_prompt error, and nothing written",
      async (state, json) => {
        const conversation = state === "live" ? "17999990010-foreign" : "17999990011-foreign";
        await ctx().pool.query(
          `INSERT INTO jp.prompts (conversation, prompt_id, state, host, live_until, event_seq,
           kind, tool_name, tool_call_id, secret, prompt, suspended_at)
         VALUES ($1, 'p1', $2, $3, $4, $5, 'question', 't', 'c', false, $6, now())
         ON CONFLICT (conversation, prompt_id) DO UPDATE SET prompt = excluded.prompt`,
          [
            conversation,
            state,
            state === "live" ? "elsewhere" : null,
            state === "live" ? new Date(Date.now() + 3_600_000) : null,
            state === "live" ? null : 0,
            json,
          ],
        );
        const before = await ctx().server.dump();
        const answered = await setup().inbox.answer({
          conversation,
          promptId: "p1",
          reply: { type: "answer", value: true },
        });
        expect(answered._unsafeUnwrapErr()).toMatchObject({
          kind: "unknown_prompt",
          promptId: "p1",
        });
        expect(answered._unsafeUnwrapErr().message).toContain("repair or delete the row");
        expect(await ctx().server.dump()).toBe(before);
      },
    );
  });

  describe("listing", () => {
    it("by conversation, tool and state, oldest or newest first, a page at a time", async () => {
      const made: { name: string; tool: string }[] = [];
      for (let i = 0; i < 5; i++) {
        const tool = i % 2 === 0 ? "asker" : "planner";
        const { conversation } = await suspended(tool, `list${i}`);
        made.push({ name: conversation.name, tool });
      }
      const { inbox } = setup();
      const mine = new Set(made.map((m) => m.name));
      const pages: string[][] = [];
      let cursor: string | undefined;
      do {
        const listed = await inbox.list({ limit: 2, ...(cursor ? { cursor } : {}) });
        if (listed.isErr()) throw new Error(listed.error.message);
        const page = listed.value;
        pages.push(page.prompts.map((p) => p.conversation).filter((c) => mine.has(c)));
        cursor = page.next;
      } while (cursor !== undefined);
      expect(pages.flat()).toEqual(made.map((m) => m.name));
      const newest = (await inbox.list({ order: "newest", limit: 1000 }))._unsafeUnwrap();
      expect(newest.prompts.map((p) => p.conversation).filter((c) => mine.has(c))).toEqual(
        made.map((m) => m.name).reverse(),
      );
      const planners = (await inbox.list({ toolName: "planner", limit: 1000 }))._unsafeUnwrap();
      expect(planners.prompts.every((p) => p.tool_name === "planner")).toBe(true);
      const one = (await inbox.list({ conversation: made[2]?.name as string }))._unsafeUnwrap();
      expect(one.prompts.map((p) => p.conversation)).toEqual([made[2]?.name]);
      expect(
        (await inbox.list({ state: "live", conversation: made[2]?.name as string }))._unsafeUnwrap()
          .prompts,
      ).toEqual([]);
    });

    it.each([
      [{ limit: 0 }],
      [{ limit: 1001 }],
      [{ limit: 1.5 }],
      [{ cursor: "not a cursor" }],
      [{ cursor: Buffer.from('["x", 1]').toString("base64url") }],
      [{ conversation: "nope" }],
    ])("refuses %j with invalid_input", async (options) => {
      const { inbox } = setup();
      expect((await inbox.list(options))._unsafeUnwrapErr().kind).toBe("invalid_input");
    });

    const cursorOf = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
    it.each([
      ["a 13th month and hour 99", ["2026-13-45 99:99:99+00", "1"]],
      ["February 30", ["2026-02-30 00:00:00+00", "1"]],
      ["February 29 of a year that is not leap", ["2100-02-29 00:00:00+00", "1"]],
      ["year 0", ["0000-01-01 00:00:00+00", "1"]],
      ["hour 24", ["2026-01-01 24:00:00+00", "1"]],
      ["second 60", ["2026-01-01 23:59:60+00", "1"]],
      ["an offset of 16 hours", ["2026-01-01 00:00:00+16", "1"]],
      ["an id above the bigint range", ["2026-01-01 00:00:00+00", "9223372036854775808"]],
      ["an id of 1e300", ["2026-01-01 00:00:00+00", 1e300]],
      ["a fractional id", ["2026-01-01 00:00:00+00", 1.5]],
      ["a negative id", ["2026-01-01 00:00:00+00", -1]],
    ])("refuses a cursor with %s as invalid_input, never a database error", async (_, value) => {
      const listed = await setup().inbox.list({ cursor: cursorOf(value) });
      expect(listed._unsafeUnwrapErr()).toMatchObject({
        kind: "invalid_input",
        message: '"cursor" is not one this inbox gave out',
      });
    });

    it.each([
      ["the largest bigint id", ["2026-01-01 00:00:00+00", "9223372036854775807"]],
      ["February 29 of a leap year", ["2024-02-29 23:59:59.999999+00", 1]],
      ["the widest offset", ["0001-01-01 00:00:00-15:59:59", "0"]],
    ])("takes a cursor with %s", async (_, value) => {
      expect((await setup().inbox.list({ cursor: cursorOf(value) })).isOk()).toBe(true);
    });
  });

  it("waiting resolves at once for a prompt answered already, and on NOTIFY for a later answer", async () => {
    const { inbox, conversation, promptId } = await suspended();
    const waiter = new PostgresInbox(ctx().pool);
    try {
      const waiting = waiter.waitForAnswer(
        { conversation: conversation.name },
        { timeoutMs: 10_000 },
      );
      await new Promise((r) => setTimeout(r, 50));
      const start = performance.now();
      (
        await inbox.answer({
          conversation: conversation.name,
          promptId,
          reply: { type: "answer", value: true },
        })
      )._unsafeUnwrap();
      const woke = await waiting;
      expect(woke._unsafeUnwrap().prompt_id).toBe(promptId);
      expect(performance.now() - start).toBeLessThan(2_000);
      const again = await waiter.waitForAnswer({ conversation: conversation.name, promptId });
      expect(again._unsafeUnwrap().answered).toBe(true);
    } finally {
      await waiter.close();
    }
  });

  it("a wait ends with timeout or cancelled, typed", async () => {
    const { conversation, promptId } = await suspended();
    const waiter = new PostgresInbox(ctx().pool);
    try {
      const timedOut = await waiter.waitForAnswer(
        { conversation: conversation.name, promptId },
        { timeoutMs: 50 },
      );
      expect(timedOut._unsafeUnwrapErr().kind).toBe("timeout");
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 20);
      const cancelled = await waiter.waitForAnswer(
        { conversation: conversation.name, promptId },
        { signal: controller.signal },
      );
      expect(cancelled._unsafeUnwrapErr().kind).toBe("cancelled");
    } finally {
      await waiter.close();
    }
  });

  it("a claimed conversation whose worker died is claimed again once the lease runs out", async () => {
    const { inbox, conversation, promptId } = await suspended();
    (
      await inbox.answer({
        conversation: conversation.name,
        promptId,
        reply: { type: "answer", value: true },
      })
    )._unsafeUnwrap();
    const claims = async (worker: string) => {
      const names: (string | undefined)[] = [];
      for (;;) {
        const name = (await inbox.claimResume({ worker, leaseMs: 300 }))._unsafeUnwrap();
        if (name === undefined) return names;
        names.push(name);
      }
    };
    expect(await claims("dead")).toContain(conversation.name);
    expect(await claims("second")).not.toContain(conversation.name);
    await new Promise((r) => setTimeout(r, 350));
    expect(await claims("third")).toContain(conversation.name);
    expect((await inbox.claimResume({ worker: "x", leaseMs: 0 }))._unsafeUnwrapErr().kind).toBe(
      "invalid_input",
    );
  });
});
