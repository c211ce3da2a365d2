import { rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { StoredConversation } from "@jp/conversation";
import { TurnState } from "@jp/coordinator";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createInboxPrompts, PostgresConversationStore, PostgresInbox } from "../src/index.js";
import { bundleWorker, runWorker, startWorker } from "./support/processes.js";
import { describeWithPostgres } from "./support/server.js";
import { coordinatorFor, newConversation, suspendAt } from "./support/turns.js";

let worker = "";
beforeAll(async () => {
  worker = await bundleWorker();
});
afterAll(() => rmSync(worker, { force: true }));

/** Every inquiry and tool call of the stream has exactly one response. */
function responsesPerRequest(conversation: StoredConversation): number[] {
  const counts = new Map<string, number>();
  for (const event of conversation.stream.events) {
    const id = (event as { id?: string }).id;
    if (event.type === "inquiry_request" || event.type === "tool_call_request") {
      counts.set(`${event.type}:${id}`, 0);
    }
    const request = event.type.replace("_response", "_request");
    if (event.type.endsWith("_response") && counts.has(`${request}:${id}`)) {
      counts.set(`${request}:${id}`, (counts.get(`${request}:${id}`) ?? 0) + 1);
    }
  }
  return [...counts.values()];
}

describeWithPostgres("reliability", (ctx) => {
  it("kill -9 of a worker mid-resume: another worker resumes the turn; nothing lost, nothing doubled", async () => {
    const store = new PostgresConversationStore(ctx().pool);
    const inbox = new PostgresInbox(ctx().pool);
    const conversation = newConversation(store, "killed");
    const run = await suspendAt(conversation, "asker");
    (await store.save(conversation))._unsafeUnwrap();
    const promptId = run.pending[0]?.prompt_id as string;
    (
      await inbox.answer({
        conversation: conversation.name,
        promptId,
        reply: { type: "answer", value: true },
      })
    )._unsafeUnwrap();

    const { child, line } = await startWorker(worker, [
      "resume",
      ctx().server.url,
      "doomed",
      "1500",
      "hang",
    ]);
    expect(line).toEqual({ claimed: conversation.name, resumed: 1 });
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGKILL");
    await exited;
    // While the dead worker's lease lasts, nobody else takes the turn.
    expect(
      (await inbox.claimResume({ worker: "early", leaseMs: 400 }))._unsafeUnwrap(),
    ).toBeUndefined();
    const leaseOver = async () =>
      (
        await ctx().pool.query<{ over: boolean }>(
          "SELECT lease_until <= now() AS over FROM jp.conversations WHERE name = $1",
          [conversation.name],
        )
      ).rows[0]?.over;
    while (!(await leaseOver())) await new Promise((r) => setTimeout(r, 50));
    expect(await runWorker(worker, ["resume", ctx().server.url, "second", "400"])).toEqual({
      claimed: conversation.name,
      saved: true,
      responses: 1,
    });
    const final = (await store.load(conversation.name))._unsafeUnwrap();
    expect(responsesPerRequest(final).every((n) => n === 1)).toBe(true);
    const tools = final.stream.events.filter((e) => e.type === "tool_call_response");
    expect(tools.map((e) => (e as { content: string }).content)).toEqual(["go: true"]);
    expect((await inbox.list({ conversation: conversation.name }))._unsafeUnwrap().prompts).toEqual(
      [],
    );
  });

  it("a database restart mid-turn: waiting hosts reconnect and go on; no answer lost", async () => {
    const store = new PostgresConversationStore(ctx().pool);
    const answerer = new PostgresInbox(ctx().server.pool({ max: 4 }));
    // Five live hosts waiting on their prompts, and one host waiting for its suspended turn.
    const hosts = Array.from({ length: 5 }, () => {
      const inbox = new PostgresInbox(ctx().server.pool({ max: 3 }), {
        listener: { heartbeatMs: 500 },
      });
      const conversation = newConversation(store, "restart");
      conversation.stream.startTurn("Go?");
      const prompts = createInboxPrompts({ inbox, conversation: conversation.name });
      const running = coordinatorFor(conversation, prompts).run(
        [{ id: "call_1", name: "asker", arguments: {} }],
        { turn: new TurnState() },
      );
      return { inbox, conversation, running };
    });
    const suspended = newConversation(store, "restartsuspended");
    const run = await suspendAt(suspended, "asker");
    (await store.save(suspended))._unsafeUnwrap();
    const waiterInbox = new PostgresInbox(ctx().server.pool({ max: 2 }));
    const waiting = waiterInbox.waitForAnswer(
      { conversation: suspended.name },
      { timeoutMs: 20_000 },
    );

    const live = async (name: string) => {
      for (;;) {
        const listed = await answerer.list({ conversation: name, state: "live" });
        const first = listed.isOk() ? listed.value.prompts[0] : undefined;
        if (first !== undefined) return first.prompt_id;
        await new Promise((r) => setTimeout(r, 10));
      }
    };
    const ids = await Promise.all(hosts.map((h) => live(h.conversation.name)));
    await new Promise((r) => setTimeout(r, 100)); // every listener is listening
    await ctx().server.restart();

    // Answer every prompt, retrying while the server comes back.
    const answer = async (conversation: string, promptId: string) => {
      for (;;) {
        const answered = await answerer.answer({
          conversation,
          promptId,
          reply: { type: "answer", value: true },
        });
        if (answered.isOk()) return;
        expect(answered.error.kind).toBe("database");
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    await Promise.all([
      ...hosts.map((h, i) => answer(h.conversation.name, ids[i] as string)),
      answer(suspended.name, run.pending[0]?.prompt_id as string),
    ]);
    const results = await Promise.all(hosts.map((h) => h.running));
    expect(results.map((r) => r.responses.map((x) => x.content))).toEqual(
      hosts.map(() => ["go: true"]),
    );
    expect((await waiting)._unsafeUnwrap().answered).toBe(true);
    const loaded = (await store.load(suspended.name))._unsafeUnwrap();
    expect((await coordinatorFor(loaded).resume()).responses.map((r) => r.content)).toEqual([
      "go: true",
    ]);
    await Promise.all([
      ...hosts.map((h) => h.inbox.close()),
      waiterInbox.close(),
      answerer.close(),
    ]);
  });

  it("a live host never misses an answer that another process gives the moment the prompt is announced", async () => {
    const store = new PostgresConversationStore(ctx().pool);
    const inbox = new PostgresInbox(ctx().pool);
    const conversation = newConversation(store, "instant");
    const turns = 30;
    const { child } = await startWorker(worker, [
      "autoanswer",
      ctx().server.url,
      conversation.name,
      String(turns * 2),
    ]);
    const prompts = createInboxPrompts({ inbox, conversation: conversation.name });
    try {
      for (let turn = 0; turn < turns; turn++) {
        conversation.stream.startTurn(`Turn ${turn}`);
        const result = await coordinatorFor(conversation, prompts).run(
          [{ id: "call_1", name: "planner", arguments: {} }],
          { turn: new TurnState(), signal: AbortSignal.timeout(10_000) },
        );
        expect(result.responses.map((r) => r.content)).toEqual(["basic x 1"]);
      }
    } finally {
      child.kill();
      await inbox.close();
    }
  });

  it("20 processes answering 1,000 pending prompts at once: each prompt gets exactly one response", async () => {
    const store = new PostgresConversationStore(ctx().pool);
    const inbox = new PostgresInbox(ctx().pool);
    // 100 conversations, each suspended at 10 concurrent calls: 1,000 prompts.
    const conversations: StoredConversation[] = [];
    const prompts: [string, string][] = [];
    for (let c = 0; c < 100; c++) {
      const conversation = newConversation(store, "many");
      conversation.stream.startTurn("Ten at once");
      const calls = Array.from({ length: 10 }, (_, i) => ({
        id: `call_${i}`,
        name: "asker",
        arguments: {},
      }));
      const run = await coordinatorFor(conversation).run(calls, {
        turn: new TurnState(),
        suspend: true,
      });
      (await store.save(conversation))._unsafeUnwrap();
      conversations.push(conversation);
      for (const p of run.pending) prompts.push([conversation.name, p.prompt_id]);
    }
    expect(prompts).toHaveLength(1000);
    // Every prompt goes to two different processes, each in its own random order.
    const files = Array.from({ length: 20 }, (_, w) => {
      const mine = prompts
        .filter((_, i) => [i % 20, (i + 7) % 20].includes(w))
        .map(([c, p]) => [c, p, w % 2 === 0] as const)
        .sort(() => Math.random() - 0.5);
      const file = join(tmpdir(), `jp-answers-${process.pid}-${w}.json`);
      writeFileSync(file, JSON.stringify(mine));
      return { file, mine };
    });
    const started = performance.now();
    const outcomes = (await Promise.all(
      files.map(({ file }) => runWorker(worker, ["answer", ctx().server.url, file])),
    )) as string[][];
    const elapsed = performance.now() - started;
    for (const { file } of files) rmSync(file, { force: true });
    const taken = new Map<string, number>();
    files.forEach(({ mine }, w) => {
      mine.forEach(([c, p], i) => {
        const outcome = outcomes[w]?.[i];
        expect(["ok", "already_answered"]).toContain(outcome);
        if (outcome === "ok") taken.set(`${c}/${p}`, (taken.get(`${c}/${p}`) ?? 0) + 1);
      });
    });
    expect(taken.size).toBe(1000);
    expect([...taken.values()].every((n) => n === 1)).toBe(true);
    console.log(
      `20 processes, 2,000 answers to 1,000 prompts: ${Math.round(elapsed)} ms (process starts included)`,
    );

    // Every turn resumes with one response per question and per call.
    for (const conversation of conversations) {
      const loaded = (await store.load(conversation.name))._unsafeUnwrap();
      const result = await coordinatorFor(loaded).resume();
      expect(result.responses).toHaveLength(10);
      expect(result.pending).toEqual([]);
      expect(responsesPerRequest(loaded).every((n) => n === 1)).toBe(true);
      (await store.save(loaded))._unsafeUnwrap();
    }
    const open = await inbox.list({ answered: false, limit: 1000 });
    expect(
      open
        ._unsafeUnwrap()
        .prompts.filter((p) => p.tool_name === "asker" && p.conversation.endsWith("-many")),
    ).toEqual([]);
  }, 120_000);
});
