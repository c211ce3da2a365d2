import { mkdtempSync, rmSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type ConversationStream,
  createEvent,
  FileConversationStore,
  type StoredConversation,
} from "@jp/conversation";
import {
  answerPendingPrompt,
  type BuiltinTool,
  builtinExecutorSource,
  listPendingPrompts,
  ToolCoordinator,
  TurnState,
} from "@jp/coordinator";
import { atMost, num, type Row, scaling } from "./report.js";
import { medianAsyncMs, medianMs, medianPairAsyncMs, ms, perItemMs, sizes } from "./stats.js";

const SUITE = "durable questions";

// One question, then done.
const asker: BuiltinTool = {
  execute: ({ answers }) =>
    answers.go === undefined
      ? {
          type: "needs_input",
          question: { id: "go", text: "Go?", answer_type: { type: "boolean" } },
        }
      : { type: "success", content: "done" },
};
const tools = { asker: { run: "unattended" as const } };
const executors = builtinExecutorSource({ asker });

/** A conversation of about `events` events whose last turn is suspended at one answered question. */
async function suspended(events: number): Promise<StoredConversation> {
  const conversation = new FileConversationStore(tmpdir()).create({ title: "bench" });
  const { stream } = conversation;
  for (let i = 0; stream.length < events - 4; i++) {
    stream.startTurn(`Turn ${i}`);
    stream.append(createEvent("chat_response", { message: `Reply ${i}, with some words in it.` }));
  }
  stream.startTurn("Last turn");
  const coordinator = new ToolCoordinator({ stream, tools, executors });
  await coordinator.run([{ id: "call_1", name: "asker", arguments: {} }], {
    turn: new TurnState(),
    suspend: true,
  });
  answerPendingPrompt(stream, "call_1.go.1", { type: "answer", value: true })._unsafeUnwrap();
  return conversation;
}

/** The median time of `resume()` alone, on fresh copies of a suspended stream. */
async function resumeMs(stream: ConversationStream): Promise<number> {
  const runs = 21;
  const copies = Array.from({ length: runs + 3 }, () => stream.clone());
  let next = 0;
  return medianAsyncMs(
    async () => {
      const copy = copies[next++] as ConversationStream;
      await new ToolCoordinator({ stream: copy, tools, executors }).resume();
    },
    runs,
    3,
  );
}

/** A turn suspended at `n` questions, one per call, and their prompt ids in line order. */
async function suspendedAt(n: number): Promise<{ stream: ConversationStream; ids: string[] }> {
  const conversation = new FileConversationStore(tmpdir()).create({ title: "bench" });
  const { stream } = conversation;
  stream.startTurn("Many questions");
  const calls = Array.from({ length: n }, (_, i) => ({
    id: `call_${i}`,
    name: "asker",
    arguments: {},
  }));
  const { pending } = await new ToolCoordinator({ stream, tools, executors }).run(calls, {
    turn: new TurnState(),
    suspend: true,
  });
  return { stream, ids: pending.map((p) => p.prompt_id) };
}

/**
 * Per answer: n pending prompts of one turn answered one by one, then one resume. Up to 1,000
 * prompts, which keeps the suite's run short.
 */
async function manyPendingPoints(): Promise<{ n: number; perItem: number }[]> {
  const ns = sizes().filter((n) => n <= 1_000);
  const turns = new Map<number, { stream: ConversationStream; ids: string[] }>();
  for (const n of ns) turns.set(n, await suspendedAt(n));
  return perItemMs(
    ns,
    async (n) => {
      const turn = turns.get(n) as { stream: ConversationStream; ids: string[] };
      const stream = turn.stream.clone();
      for (const id of turn.ids) {
        answerPendingPrompt(stream, id, { type: "answer", value: true })._unsafeUnwrap();
      }
      await new ToolCoordinator({ stream, tools, executors }).resume();
    },
    { itemsPerSample: 10_000, rounds: 5 },
  );
}

/** Durable questions: resume overhead against the conversation's length, and listing cost. */
export async function durableBench(): Promise<Row[]> {
  const rows: Row[] = [];
  const small = await suspended(10);
  const large = await suspended(100_000);
  await resumeMs(small.stream); // warm-up: the first measured size must not pay for compilation
  const [a, b] = [await resumeMs(small.stream), await resumeMs(large.stream)];
  rows.push({
    id: "durable.resume",
    suite: SUITE,
    title: "resume one answered question, beyond loading",
    measured: `${ms(a)} at 10 events, ${ms(b)} at ${num(large.stream.length)} events (ratio ${(b / a).toFixed(2)})`,
    values: { smallMs: a, largeMs: b, ratio: b / a },
    goal: { text: "≤ 1 ms, and ≤ 1.3× from 10 to 100,000 events", met: b <= 1 && b / a <= 1.3 },
  });

  const root = mkdtempSync(join(tmpdir(), "jp-bench-durable-"));
  try {
    const store = new FileConversationStore(root);
    (await store.save(large))._unsafeUnwrap();
    const file = join(root, large.name, "events.json");
    let pending = 0;
    const list = medianMs(() => {
      pending = listPendingPrompts(large.stream).length;
    });
    // Timed alternately, so that the machine's load and the collector weigh on both alike.
    const [loadMs, parse] = await medianPairAsyncMs(
      async () => {
        const loaded = (await store.load(large.name))._unsafeUnwrap();
        pending = listPendingPrompts(loaded.stream).length;
      },
      async () => JSON.parse(await readFile(file, "utf8")),
      11,
      2,
    );
    rows.push({
      id: "durable.list-pending",
      suite: SUITE,
      title: `list the pending prompts of ${num(large.stream.length)} events (${pending} pending)`,
      measured: `${ms(list)} on the loaded stream; load + list ${ms(loadMs)} vs reading + JSON.parse of events.json ${ms(parse)}: ratio ${(loadMs / parse).toFixed(2)}`,
      values: { listMs: list, loadAndListMs: loadMs, parseMs: parse, ratio: loadMs / parse },
      goal: atMost(loadMs / parse, 2, "load + list ≤ 2 × reading + JSON.parse"),
    });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }

  const table = scaling(
    "µs per answer",
    (await manyPendingPoints()).map((p) => ({ n: p.n, perItem: p.perItem * 1000 })),
  );
  rows.push({
    id: "durable.many-pending",
    suite: SUITE,
    title:
      "per answer, as n pending prompts of one suspended turn are answered one by one, then resumed",
    measured: `${num(table.points.at(-1)?.perItem ?? 0, 2)} µs per answer at ${num(table.points.at(-1)?.n ?? 0)} prompts`,
    values: Object.fromEntries(table.points.map((p) => [`us@${p.n}`, p.perItem])),
    scaling: table,
    goal: atMost(table.ratio, 1.3, "flat: largest vs smallest n ≤ 1.3×"),
  });
  return rows;
}
