// biome-ignore-all assist/source/organizeImports: the imports the docs show stay in their region
// Type-checked, not run: it needs a PostgreSQL server (packages/store-postgres's tests run it).
import {
  type ExecutorSource,
  type PromptBackend,
  type ToolCall,
  ToolCoordinator,
  type ToolsConfig,
  TurnState,
} from "@jp/coordinator";
import type { StoredConversation } from "@jp/conversation";
import type { PostgresConversationStore, PostgresInbox } from "@jp/store-postgres";

// What the host has: its tools, the model's calls, the store and inbox of the block before, the
// conversation, and a backend of its own for secret questions (its terminal, its web page).
declare const tools: ToolsConfig;
declare const executors: ExecutorSource;
declare const calls: readonly ToolCall[];
declare const store: PostgresConversationStore;
declare const inbox: PostgresInbox;
declare const conversation: StoredConversation;
declare const terminal: PromptBackend;

// #region inbox-prompts
import { createInboxPrompts } from "@jp/store-postgres";

const prompts = createInboxPrompts({
  inbox,
  conversation: conversation.name,
  waitMs: 5 * 60_000, // then the turn suspends at the prompt instead (save it; it stays in the inbox)
  secrets: terminal, // optional: where secret questions are asked (see below)
});
const result = await new ToolCoordinator({
  stream: conversation.stream,
  tools,
  executors,
  prompts,
}).run(calls, { turn: new TurnState() });
await store.save(conversation); // result.pending: the prompts it suspended at, if any
// #endregion
console.log(result.responses.length);
