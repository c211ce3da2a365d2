import {
  ConversationStream,
  createEvent,
  decodeEvent,
  encodeEvent,
  type JsonObject,
  type StreamEvent,
} from "@jp/conversation";
import {
  answerPendingPrompt,
  PENDING_METADATA_KEY,
  type PromptRequest,
  type StoredReply,
} from "@jp/coordinator";
import { err, ok, type Result } from "neverthrow";
import type pg from "pg";
import type { InboxError } from "../errors.js";
import { notice } from "./inbox-sync.js";
import { type Names, Rollback } from "./sql.js";

/** What an answer wrote: the row answered. */
export interface Answered {
  readonly id: string;
  readonly state: "suspended" | "live";
}

interface PromptRow {
  id: string;
  state: "suspended" | "live";
  event_seq: number | null;
  live: boolean;
  answered: boolean;
  prompt: { request: PromptRequest };
}

/**
 * Answers one open prompt in its own transaction, exactly once: the row is locked and must have
 * no reply yet. A suspended prompt's reply goes into its marker in the stored events too, checked
 * by `answerPendingPrompt` exactly as a reply to the loaded stream would be, and the
 * conversation moves to a new revision (a writer that loaded it before gets a conflict). A live
 * prompt's reply waits in the row for its host. Listeners are notified on commit.
 */
export async function answerInTransaction(
  client: pg.PoolClient,
  n: Names,
  target: { conversation: string; promptId: string; reply: StoredReply; now: Date },
): Promise<Result<Answered, InboxError> | Rollback<Result<Answered, InboxError>>> {
  const { conversation, promptId } = target;
  const fail = (e: InboxError) => new Rollback(err<Answered, InboxError>(e));
  const peek = await client.query<{ state: string }>(
    `SELECT state FROM ${n.prompts} WHERE conversation = $1 AND prompt_id = $2`,
    [conversation, promptId],
  );
  const state = peek.rows[0]?.state;
  if (state === "suspended") {
    // The conversation first, then the prompt: the order a save locks them in.
    const locked = await client.query(
      `SELECT 1 FROM ${n.conversations} WHERE name = $1 FOR UPDATE`,
      [conversation],
    );
    if (locked.rowCount === 0) return fail(unknownPrompt(conversation, promptId));
  }
  const { rows } = await client.query<PromptRow>(
    `SELECT id, state, event_seq, prompt, reply IS NOT NULL AS answered,
            (state = 'suspended' OR live_until > now()) AS live
       FROM ${n.prompts} WHERE conversation = $1 AND prompt_id = $2 FOR UPDATE`,
    [conversation, promptId],
  );
  const row = rows[0];
  if (row === undefined || row.state !== state) {
    if (state === undefined) {
      const exists = await client.query(`SELECT 1 FROM ${n.conversations} WHERE name = $1`, [
        conversation,
      ]);
      if (exists.rowCount === 0) {
        return fail({
          kind: "unknown_conversation",
          promptId,
          message: `no conversation ${conversation}`,
        });
      }
    }
    return fail(unknownPrompt(conversation, promptId));
  }
  if (!row.live) {
    return fail({
      kind: "unknown_prompt",
      promptId,
      message: `prompt "${promptId}" of conversation ${conversation} is gone: the host waiting for it stopped; it is asked again when the turn runs again`,
    });
  }
  if (row.answered) {
    return fail({
      kind: "already_answered",
      promptId,
      message: `prompt "${promptId}" of conversation ${conversation} was answered already; only the first answer counts`,
    });
  }
  const checked =
    row.state === "live"
      ? checkLiveReply(row.prompt.request, promptId, target.reply, target.now)
      : await answerMarker(client, n, conversation, row.event_seq as number, target);
  if (checked.isErr()) return fail(checked.error);
  await client.query(
    `UPDATE ${n.prompts} SET reply = $2, answered_at = $3 WHERE id = $1`,
    [row.id, JSON.stringify(checked.value), target.now.toISOString()],
  );
  await client.query("SELECT pg_notify($1, $2)", [
    n.channel,
    notice("answered", conversation, promptId, row.id),
  ]);
  return ok({ id: row.id, state: row.state });
}

// Writes the reply into the marker of the stored `tool_call_request`, as answerPendingPrompt
// would on the loaded stream, and moves the conversation to a new revision.
async function answerMarker(
  client: pg.PoolClient,
  n: Names,
  conversation: string,
  seq: number,
  target: { promptId: string; reply: StoredReply; now: Date },
): Promise<Result<StoredReply, InboxError>> {
  const { rows } = await client.query<{ event: unknown }>(
    `SELECT event FROM ${n.events} WHERE conversation = $1 AND seq = $2`,
    [conversation, seq],
  );
  const decoded = decodeEvent(rows[0]?.event, [seq]);
  if (decoded.isErr()) return err(unknownPrompt(conversation, target.promptId));
  const stream = ConversationStream.from([decoded.value]);
  const answered = answerPendingPrompt(stream, target.promptId, target.reply, target.now);
  if (answered.isErr()) return err(answered.error);
  const event = stream.events[0] as StreamEvent;
  await client.query(`UPDATE ${n.events} SET event = $3 WHERE conversation = $1 AND seq = $2`, [
    conversation,
    seq,
    JSON.stringify(encodeEvent(event)),
  ]);
  await client.query(
    `UPDATE ${n.conversations} SET revision = gen_random_uuid()::text, updated_at = now() WHERE name = $1`,
    [conversation],
  );
  return ok(replyOf(event));
}

/**
 * Checks a reply to a live prompt exactly as `answerPendingPrompt` checks one to a suspended
 * prompt: the same function, on a one-entry stream holding the prompt.
 */
export function checkLiveReply(
  request: PromptRequest,
  promptId: string,
  reply: StoredReply,
  now: Date,
): Result<StoredReply, InboxError> {
  const marker = {
    v: 1,
    prompt_id: promptId,
    request,
    turn: { remembered_tool_answers: {}, remembered_permission_decisions: {}, attempts: [] },
    suspended_at: now.toISOString(),
  };
  const event = createEvent("tool_call_request", {
    id: request.tool_call_id,
    name: request.tool_name,
    arguments: {},
    metadata: { [PENDING_METADATA_KEY]: JSON.parse(JSON.stringify(marker)) },
  });
  const stream = ConversationStream.from([event]);
  const answered = answerPendingPrompt(stream, promptId, reply, now);
  if (answered.isErr()) return err(answered.error);
  return ok(replyOf(stream.events[0] as StreamEvent));
}

function replyOf(event: StreamEvent): StoredReply {
  const metadata = (event as { metadata: JsonObject }).metadata;
  return (metadata[PENDING_METADATA_KEY] as unknown as { reply: StoredReply }).reply;
}

function unknownPrompt(conversation: string, promptId: string): InboxError {
  return {
    kind: "unknown_prompt",
    promptId,
    message: `no open prompt "${promptId}" in conversation ${conversation} (wrong id or conversation, or the turn went on already)`,
  };
}
