// biome-ignore-all assist/source/organizeImports: the imports the docs show stay in their region
// Type-checked, not run: it needs a PostgreSQL server (packages/store-postgres's tests run it).
import type { ExecutorSource, ToolCall, ToolsConfig } from "@jp/coordinator";

// What the host brings: its tools and the model's tool calls.
declare const tools: ToolsConfig;
declare const executors: ExecutorSource;
declare const calls: readonly ToolCall[];
declare function refresh(conversation: string, promptId?: string): void;
declare function refreshAll(): void;

// #region example
import pg from "pg";
import { ToolCoordinator, TurnState } from "@jp/coordinator";
import { migrate, PostgresConversationStore, PostgresInbox } from "@jp/store-postgres";

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
pool.on("error", () => {}); // a server restart ends idle connections with an error event
(await migrate(pool))._unsafeUnwrap(); // idempotent, versioned, safe from many processes at once
const store = new PostgresConversationStore(pool);
const inbox = new PostgresInbox(pool);

// A request handler: the turn suspends at the question; saving puts the prompt in the inbox.
const conversation = store.create({ title: "Deploy" });
conversation.stream.startTurn("Ship it");
await new ToolCoordinator({ stream: conversation.stream, tools, executors }).run(calls, {
  turn: new TurnState(),
  suspend: true,
});
await store.save(conversation);

// Any process: list and answer. Of two processes answering one prompt, one gets `already_answered`.
const { prompts } = (await inbox.list({ order: "oldest", limit: 20 }))._unsafeUnwrap();
const [oldest] = prompts;
if (oldest !== undefined) {
  const answered = await inbox.answer({
    conversation: oldest.conversation,
    promptId: oldest.prompt_id,
    reply: { type: "answer", value: "pro" },
  });
  if (answered.isErr()) console.log(answered.error.kind); // already_answered, invalid_reply, …
}

// Any worker: take a turn that can go on, resume it, save it, give it back.
const name = (await inbox.claimResume({ worker: "w3", leaseMs: 60_000 }))._unsafeUnwrap();
if (name !== undefined) {
  const loaded = (await store.load(name))._unsafeUnwrap();
  await new ToolCoordinator({ stream: loaded.stream, tools, executors }).resume();
  await store.save(loaded); // a `conflict` if someone answered meanwhile: load again and resume
  await inbox.releaseResume(name, "w3");
}
// #endregion

// #region listener
const listener = inbox.listener();
listener.on("notice", (n) => refresh(n.conversation, n.promptId)); // n.event: "pending" | "answered"
listener.on("connected", refreshAll); // (re)connected: notices sent while it was down are lost
await listener.subscribe({ pending: true, allAnswers: true }).ready;
// #endregion
