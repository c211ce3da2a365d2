// `npm run bench -w @jp/store-postgres`: starts a throwaway PostgreSQL (as the tests do, without
// statement logging) and prints medians measured in this run. Figures go to docs/performance.md.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createEvent, FileConversationStore, type StoredConversation } from "@jp/conversation";
import {
  answerPendingPrompt,
  type BuiltinTool,
  builtinExecutorSource,
  ToolCoordinator,
  TurnState,
} from "@jp/coordinator";
import type pg from "pg";
import { migrate, PostgresConversationStore, PostgresInbox } from "../src/index.js";
import { createTemplate, startServer } from "../test/support/postgres.js";

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
let serial = 17_200_000_000;
const fresh = (store: { create(): StoredConversation }): StoredConversation => ({
  ...store.create(),
  name: `${serial++}-bench`,
});

const percentile = (xs: number[], p: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] as number;
};
const ms = (v: number) => `${v.toFixed(2)} ms`;

async function suspendAndSave(
  store: PostgresConversationStore | FileConversationStore,
  conversation: StoredConversation,
) {
  conversation.stream.startTurn("Go?");
  const coordinator = new ToolCoordinator({ stream: conversation.stream, tools, executors });
  const result = await coordinator.run([{ id: "call_1", name: "asker", arguments: {} }], {
    turn: new TurnState(),
    suspend: true,
  });
  (await store.save(conversation))._unsafeUnwrap();
  return result.pending[0]?.prompt_id as string;
}

/** From the start of `inbox.answer` to the waiting host awake, with `hosts` hosts waiting. */
async function wakeLatency(
  server: { pool(o?: pg.PoolConfig): pg.Pool },
  hosts: number,
  samples: number,
) {
  const pool = server.pool({ max: 4 });
  const store = new PostgresConversationStore(pool);
  const answerer = new PostgresInbox(pool);
  const waiters = Array.from({ length: hosts }, () => new PostgresInbox(server.pool({ max: 2 })));
  await Promise.all(waiters.map((w) => w.listener().start()));
  // Each host hears only the answers of its own conversations' channel (1 of 32).
  const times: number[] = [];
  while (times.length < samples) {
    const conversations = await Promise.all(
      waiters.map(async () => {
        const conversation = fresh(store);
        return { conversation, promptId: await suspendAndSave(store, conversation) };
      }),
    );
    const woke = conversations.map(({ conversation }, i) =>
      (waiters[i] as PostgresInbox)
        .waitForAnswer({ conversation: conversation.name })
        .then(() => performance.now()),
    );
    await new Promise((r) => setTimeout(r, 20));
    for (let i = 0; i < hosts && times.length < samples; i++) {
      const { conversation, promptId } = conversations[i] as (typeof conversations)[number];
      const start = performance.now();
      (
        await answerer.answer({
          conversation: conversation.name,
          promptId,
          reply: { type: "answer", value: true },
        })
      )._unsafeUnwrap();
      times.push(((await woke[i]) as number) - start);
    }
  }
  await Promise.all(waiters.map((w) => w.close()));
  return times;
}

/** The durable round trip in one process: suspend and save, answer, load, resume and save. */
async function durableRounds(
  store: PostgresConversationStore | FileConversationStore,
  answer: (c: StoredConversation, id: string) => Promise<void>,
  rounds: number,
) {
  const start = performance.now();
  for (let i = 0; i < rounds; i++) {
    const conversation = fresh(store);
    const promptId = await suspendAndSave(store, conversation);
    await answer(conversation, promptId);
    const loaded = (await store.load(conversation.name))._unsafeUnwrap();
    await new ToolCoordinator({ stream: loaded.stream, tools, executors }).resume();
    (await store.save(loaded))._unsafeUnwrap();
  }
  return (rounds * 1000) / (performance.now() - start);
}

/** Median time of appending one event and saving, on a conversation of `events` events. */
async function appendMs(store: PostgresConversationStore, events: number) {
  const conversation = fresh(store);
  const { stream } = conversation;
  for (let i = 0; stream.length < events; i++) {
    stream.startTurn(`Turn ${i}`);
    stream.append(createEvent("chat_response", { message: `Reply ${i}, with some words in it.` }));
  }
  (await store.save(conversation))._unsafeUnwrap();
  const times: number[] = [];
  for (let i = 0; i < 41; i++) {
    stream.append(createEvent("chat_response", { message: `More ${i}` }));
    const start = performance.now();
    (await store.save(conversation))._unsafeUnwrap();
    if (i >= 10) times.push(performance.now() - start);
  }
  return { median: percentile(times, 0.5), length: stream.length };
}

const template = await createTemplate();
const server = await startServer(template, { logStatements: false, maxConnections: 400 });
try {
  const pool = server.pool({ max: 10 });
  (await migrate(pool))._unsafeUnwrap();
  const store = new PostgresConversationStore(pool);
  console.log(`node ${process.version}, ${new Date().toISOString()}`);
  console.log("## @jp/store-postgres (PostgreSQL 15, throwaway server, fsync off)");

  console.log("answer-to-wake latency through NOTIFY (inbox.answer called -> waiting host awake):");
  await wakeLatency(server, 1, 20); // warm-up
  for (const [hosts, samples] of [
    [1, 100],
    [10, 100],
    [100, 100],
  ] as const) {
    const times = await wakeLatency(server, hosts, samples);
    console.log(
      `  ${String(hosts).padStart(3)} waiting hosts: median ${ms(percentile(times, 0.5))}, p99 ${ms(percentile(times, 0.99))} (${times.length} answers)`,
    );
  }

  console.log("append one event and save (median of 31):");
  const append = [];
  for (const events of [10, 1_000, 100_000]) {
    const { median, length } = await appendMs(store, events);
    append.push(median);
    console.log(`  at ${String(length).padStart(6)} events: ${ms(median)}`);
  }
  console.log(
    `  ratio 100,000 / 10 events: ${((append[2] as number) / (append[0] as number)).toFixed(2)} (goal: flat)`,
  );

  const inbox = new PostgresInbox(pool);
  const root = mkdtempSync(join(tmpdir(), "jp-bench-files-"));
  try {
    const files = new FileConversationStore(root);
    await durableRounds(files, async () => {}, 10);
    const fileRate = await durableRounds(
      files,
      async (c, id) => {
        const loaded = (await files.load(c.name))._unsafeUnwrap();
        answerPendingPrompt(loaded.stream, id, { type: "answer", value: true })._unsafeUnwrap();
        (await files.save(loaded))._unsafeUnwrap();
      },
      200,
    );
    const pgRate = await durableRounds(
      store,
      async (c, id) => {
        (
          await inbox.answer({
            conversation: c.name,
            promptId: id,
            reply: { type: "answer", value: true },
          })
        )._unsafeUnwrap();
      },
      200,
    );
    console.log(
      "durable question round trip, one process (suspend + save, answer, load + resume + save):",
    );
    console.log(
      `  FileConversationStore ${Math.round(fileRate)}/s; PostgreSQL ${Math.round(pgRate)}/s`,
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }

  const processes = 8;
  const duration = 5_000;
  const worker = join(import.meta.dirname, "bench-worker.ts");
  const children = Array.from({ length: processes }, (_, i) =>
    spawn(
      process.execPath,
      [
        "--conditions=@jp/source",
        "--import",
        "tsx",
        worker,
        server.url,
        String(i),
        String(processes),
        String(duration),
        "8",
      ],
      { stdio: ["pipe", "pipe", "inherit"] },
    ),
  );
  const outputs = children.map((child) => {
    let out = "";
    const ready = new Promise<void>((resolve) => {
      child.stdout.on("data", (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes("ready\n")) resolve();
      });
    });
    const done = new Promise<string>((resolve) => child.once("exit", () => resolve(out)));
    return { ready, done };
  });
  await Promise.all(outputs.map((o) => o.ready));
  const startAt = Date.now() + 200;
  for (const child of children) child.stdin.end(`go ${startAt}\n`);
  const rounds = (await Promise.all(outputs.map((o) => o.done))).reduce(
    (sum, out) =>
      sum + (JSON.parse(out.trim().split("\n").at(-1) as string) as { rounds: number }).rounds,
    0,
  );
  console.log(
    `live question round trips across ${processes} processes (8 turns each, each answered by another process): ${Math.round((rounds * 1000) / duration)}/s`,
  );
} finally {
  await server.stop();
  rmSync(template, { recursive: true, force: true });
}
