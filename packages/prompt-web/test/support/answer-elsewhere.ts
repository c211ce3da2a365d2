// Another process answering a stored prompt, as a CLI or a worker would:
//   node --conditions=@jp/source --import tsx answer-elsewhere.ts file <root> <conversation> <prompt id> '<reply JSON>'
//   node --conditions=@jp/source --import tsx answer-elsewhere.ts postgres <url> <conversation> <prompt id> '<reply JSON>'
// Prints the error's kind and exits 1 when the answer is not taken.
import { FileConversationStore } from "@jp/conversation";
import { answerPendingPromptInStore, type StoredReply } from "@jp/coordinator";

const [kind, where, conversation, promptId, json] = process.argv.slice(2);
if (
  where === undefined ||
  conversation === undefined ||
  promptId === undefined ||
  json === undefined
) {
  throw new Error(
    "usage: answer-elsewhere.ts file|postgres <root|url> <conversation> <prompt id> <reply JSON>",
  );
}
const reply = JSON.parse(json) as StoredReply;
let failure: string | undefined;
if (kind === "file") {
  const answered = await answerPendingPromptInStore(
    new FileConversationStore(where),
    conversation,
    promptId,
    reply,
  );
  if (answered.isErr()) failure = answered.error.kind;
} else {
  // Loaded only here: the file case needs neither.
  const { default: pg } = await import("pg");
  const { PostgresInbox } = await import("@jp/store-postgres");
  const pool = new pg.Pool({ connectionString: where, max: 2 });
  const answered = await new PostgresInbox(pool).answer({ conversation, promptId, reply });
  if (answered.isErr()) failure = answered.error.kind;
  await pool.end();
}
if (failure !== undefined) {
  process.stdout.write(`${failure}\n`);
  process.exit(1);
}
