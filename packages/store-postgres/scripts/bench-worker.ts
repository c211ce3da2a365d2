// One process of the round-trip benchmark: it runs `concurrency` live turns whose questions go
// to the inbox, and answers, through the inbox, the questions of the next process. Prints the
// number of round trips (a question shown, answered elsewhere, its host going on) completed in
// `durationMs` from the start time the parent sends (`go <epoch ms>` on stdin, after every
// process said `ready`).

import { ConversationStream } from "@jp/conversation";
import {
  type BuiltinTool,
  builtinExecutorSource,
  type PromptBackend,
  ToolCoordinator,
  TurnState,
} from "@jp/coordinator";
import pg from "pg";
import { createInboxPrompts, PostgresInbox } from "../src/index.js";

const [url, index, processes, durationMs, concurrency] = process.argv.slice(2);
const me = Number(index);
const pool = new pg.Pool({ connectionString: url, max: Number(concurrency) + 6 });
pool.on("error", () => {});
const inbox = new PostgresInbox(pool);

// Asks yes/no questions one after another, 200 per call.
const quiz: BuiltinTool = {
  execute: ({ answers }) => {
    const n = Object.keys(answers).length;
    return n < 200
      ? {
          type: "needs_input",
          question: { id: `q${n}`, text: `Question ${n}?`, answer_type: { type: "boolean" } },
        }
      : { type: "success", content: "done" };
  },
};
const executors = builtinExecutorSource({ quiz });

const next = `-p${(me + 1) % Number(processes)}`;
const listener = inbox.listener();
listener.on("notice", (notice) => {
  if (notice.event !== "pending" || !notice.conversation.endsWith(next) || !notice.promptId) return;
  void inbox.answer({
    conversation: notice.conversation,
    promptId: notice.promptId,
    reply: { type: "answer", value: true },
  });
});
await listener.subscribe({ pending: true }).ready;

console.log("ready");
const start = await new Promise<number>((resolve) => {
  process.stdin.once("data", (chunk) => resolve(Number(String(chunk).trim().split(" ")[1])));
});
const end = start + Number(durationMs);
let rounds = 0;
await new Promise((r) => setTimeout(r, Math.max(0, start - Date.now())));

async function host(slot: number): Promise<void> {
  const conversation = `${17_100_000_000 + me * 1000 + slot}-p${me}`;
  const inner = createInboxPrompts({ inbox, conversation });
  const prompts: PromptBackend = {
    isHumanReachable: () => true,
    ask: async (request, options) => {
      const reply = await inner.ask(request, options);
      if (Date.now() <= end) rounds++;
      return reply;
    },
  };
  const signal = AbortSignal.timeout(Math.max(1, end - Date.now()));
  while (Date.now() < end) {
    const stream = ConversationStream.empty();
    stream.startTurn("Quiz");
    const coordinator = new ToolCoordinator({
      stream,
      tools: { quiz: { run: "unattended" } },
      executors,
      prompts,
      maxQuestionsPerCall: 1000,
    });
    await coordinator.run([{ id: "call_1", name: "quiz", arguments: {} }], {
      turn: new TurnState(),
      signal,
    });
  }
}
await Promise.all(Array.from({ length: Number(concurrency) }, (_, slot) => host(slot)));
console.log(JSON.stringify({ rounds }));
await inbox.close();
await pool.end();
process.exit(0);
