// One process of the PostgreSQL round-trip benchmark (bench/postgres.bench.ts starts eight).
//
//   node --import tsx bench/postgres-worker.ts <url> <index> <processes> <durationMs> <turns>
//
// It runs `turns` live turns at once, each asking yes/no questions through the inbox
// (createInboxPrompts), and answers through the inbox the questions of the next process
// (index + 1), which it hears of by `LISTEN`. A round trip: a question put in the inbox and
// announced, heard by another process, its prompt read and checked, answered, the waiting host
// woken by the answer's notification, the reply taken back, the turn going on to its next
// question. Before timing, every process warms up on its own questions (nothing loads or compiles
// in the timed window), says `ready`, and starts at the time the parent sends (`go <epoch ms>`).
// It prints `{ rounds, cpuMs, waitMs }`: round trips completed in the window, its own CPU time
// there, and the median time from a question asked to its answer in hand.
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

interface Counted {
  rounds: number;
  /** How long each question counted waited for its answer, in ms. */
  readonly waits: number[];
}

/** Runs one host's turns until `end`, counting the round trips that end by then. */
async function host(conversation: string, end: number, counted: Counted) {
  const inner = createInboxPrompts({ inbox, conversation });
  const prompts: PromptBackend = {
    isHumanReachable: () => true,
    ask: async (request, options) => {
      const asked = performance.now();
      const reply = await inner.ask(request, options);
      if (Date.now() <= end && reply.type === "answer") {
        counted.rounds++;
        counted.waits.push(performance.now() - asked);
      }
      return reply;
    },
  };
  const signal = AbortSignal.timeout(Math.max(1, end - Date.now()));
  while (Date.now() < end) {
    const stream = ConversationStream.empty();
    stream.startTurn("Quiz");
    const coordinator = new ToolCoordinator({ stream, tools, executors, prompts });
    await coordinator.run([{ id: "call_1", name: "quiz", arguments: {} }], {
      turn: new TurnState(),
      signal,
    });
  }
}

const name = (slot: number, role: string) => `${17_300_000_000 + me * 1000 + slot}-${role}${me}`;

// Warm-up: this process answers its own questions for a moment.
answering = `-w${me}`;
const warm: Counted = { rounds: 0, waits: [] };
await Promise.all(
  Array.from({ length: Number(turns) }, (_, slot) =>
    host(name(slot, "w"), Date.now() + 1_500, warm),
  ),
);

answering = `-p${(me + 1) % Number(processes)}`;
console.log("ready");
const start = await new Promise<number>((resolve) => {
  process.stdin.once("data", (chunk) => resolve(Number(String(chunk).trim().split(" ")[1])));
});
await new Promise((r) => setTimeout(r, Math.max(0, start - Date.now())));
const end = start + Number(durationMs);
const counted: Counted = { rounds: 0, waits: [] };
const cpu = process.cpuUsage();
const hosts = Array.from({ length: Number(turns) }, (_, slot) =>
  host(name(slot, "p"), end, counted),
);
await new Promise((r) => setTimeout(r, Math.max(0, end - Date.now())));
const used = process.cpuUsage(cpu);
await Promise.all(hosts);
const waits = counted.waits.sort((a, b) => a - b);
const waitMs = waits[Math.floor(waits.length / 2)] ?? 0;
console.log(
  JSON.stringify({ rounds: counted.rounds, cpuMs: (used.user + used.system) / 1000, waitMs }),
);
await inbox.close();
await pool.end();
process.exit(0);
