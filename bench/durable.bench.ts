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
import { atMost, num, type Row } from "./report.js";
import { medianAsyncMs, medianMs, medianPairAsyncMs, ms } from "./stats.js";

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
  return rows;
}
