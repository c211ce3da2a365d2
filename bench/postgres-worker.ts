// One process of the PostgreSQL round-trip benchmark (bench/postgres.bench.ts starts eight).
//
//   node --import tsx bench/postgres-worker.ts <url> <index> <processes> <durationMs> <turns>
//
// It runs `turns` live turns at once, each asking yes/no questions through the inbox
// (createInboxPrompts), and answers through the inbox the questions of the next process
// (index + 1), which it hears of by `LISTEN`. A round trip: a question put in the inbox and
// announced, heard by another process, its prompt read and checked, answered, the waiting host
// woken by the answer's notification, the reply taken back, the turn going on to its next
// question. Every process says `listening` once it hears new prompts, starts its turns when the
// parent says `run` (every process listening by then), says `ready` once it has run for WARM_MS
// and completed WARM_ROUNDS round trips of this same workload (so nothing loads or compiles in
// the timed window, however busy the machine), and counts from the time the parent sends
// (`go <epoch ms>`). It prints `{ rounds, cpuMs, waitMs }`: round trips completed in the window,
// its own CPU time there, and the median time from a question asked to its answer in hand; then
// it stops its turns when the parent says `stop` (after taking the server's CPU time).

import { createInterface } from "node:readline";
import { ConversationStream } from "@jp/conversation";
import {
  type BuiltinTool,
  builtinExecutorSource,
  type PromptBackend,
  ToolCoordinator,
  TurnState,
} from "@jp/coordinator";
import { createInboxPrompts, type InboxNotice, PostgresInbox } from "@jp/store-postgres";
import pg from "pg";

const [url, index, processes, durationMs, turns] = process.argv.slice(2);
const me = Number(index);
const pool = new pg.Pool({ connectionString: url, max: 12 });
pool.on("error", () => {});
const inbox = new PostgresInbox(pool);

// Ten yes/no questions in a row, then done: a tool that needs a few decisions.
const quiz: BuiltinTool = {
  execute: ({ answers }) => {
    let n = 0;
    while (n < 10 && answers[`q${n}`] !== undefined) n++;
    return n < 10
      ? {
          type: "needs_input",
          question: { id: `q${n}`, text: `Question ${n}?`, answer_type: { type: "boolean" } },
        }
      : { type: "success", content: "done" };
  },
};
const executors = builtinExecutorSource({ quiz });
const tools = { quiz: { run: "unattended" as const } };

// Answers, through the inbox, the new prompts of conversations ending in `suffix`.
const listener = inbox.listener();
let answering = "";
listener.on("notice", (notice: InboxNotice) => {
  if (notice.event !== "pending" || notice.promptId === undefined) return;
  if (answering === "" || !notice.conversation.endsWith(answering)) return;
  void inbox.answer({
    conversation: notice.conversation,
    promptId: notice.promptId,
    reply: { type: "answer", value: true },
  });
});
await listener.subscribe({ pending: true }).ready;

// Warm-up: the same workload, until the JIT compiler has seen it run long enough.
const WARM_MS = 3_000;
const WARM_ROUNDS = 1_500;

/** Round trips whose answer arrived in the window, and how long each waited. */
const counted = { rounds: 0, warm: 0, waits: [] as number[], from: Infinity, to: Infinity };
const stopped = new AbortController();

/** Runs one host's turns until stopped, counting the round trips that end in the window. */
async function host(conversation: string) {
  const inner = createInboxPrompts({ inbox, conversation });
  const prompts: PromptBackend = {
    isHumanReachable: () => true,
    ask: async (request, options) => {
      const asked = performance.now();
      const reply = await inner.ask(request, options);
      if (reply.type === "answer") {
        counted.warm++;
        const now = Date.now();
        if (now >= counted.from && now <= counted.to) {
          counted.rounds++;
          counted.waits.push(performance.now() - asked);
        }
      }
      return reply;
    },
  };
  while (!stopped.signal.aborted) {
    const stream = ConversationStream.empty();
    stream.startTurn("Quiz");
    const coordinator = new ToolCoordinator({ stream, tools, executors, prompts });
    await coordinator.run([{ id: "call_1", name: "quiz", arguments: {} }], {
      turn: new TurnState(),
      signal: stopped.signal,
    });
  }
}

const lines = createInterface({ input: process.stdin });
const said = (word: string) =>
  new Promise<string>((resolve) => {
    const hear = (line: string) => {
      if (!line.startsWith(word)) return;
      lines.off("line", hear);
      resolve(line);
    };
    lines.on("line", hear);
  });
const run = said("run");
const go = said("go");
const stop = said("stop");

// Every process listens before any asks: then no question is announced unheard.
console.log("listening");
await run;
const name = (slot: number) => `${17_300_000_000 + me * 1000 + slot}-p${me}`;
answering = `-p${(me + 1) % Number(processes)}`;
const hosts = Array.from({ length: Number(turns) }, (_, slot) => host(name(slot)));

const warmUntil = Date.now() + WARM_MS;
while (Date.now() < warmUntil || counted.warm < WARM_ROUNDS) {
  await new Promise((r) => setTimeout(r, 50));
}
console.log("ready");
const start = Number((await go).split(" ")[1]);
counted.from = start;
counted.to = start + Number(durationMs);
await new Promise((r) => setTimeout(r, Math.max(0, start - Date.now())));
const cpu = process.cpuUsage();
await new Promise((r) => setTimeout(r, Math.max(0, counted.to - Date.now())));
const used = process.cpuUsage(cpu);
const waits = counted.waits.sort((a, b) => a - b);
const waitMs = waits[Math.floor(waits.length / 2)] ?? 0;
console.log(
  JSON.stringify({ rounds: counted.rounds, cpuMs: (used.user + used.system) / 1000, waitMs }),
);
await stop;
stopped.abort();
await Promise.all(hosts);
lines.close();
await inbox.close();
await pool.end();
process.exit(0);
