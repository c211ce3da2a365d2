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
  type PendingPrompt,
  type PromptRequest,
  type StoredReply,
} from "@jp/coordinator";
import { err, ok, type Result } from "neverthrow";
import type pg from "pg";
import type { InboxError } from "../errors.js";
import { notice } from "./inbox-sync.js";
import { type Names, Rollback } from "./sql.js";

/** What an answer wrote: the row answered, as the inbox lists it. */
export interface Answered {
  readonly id: string;
  readonly state: "suspended" | "live";
  readonly secret: boolean;
  readonly prompt: PendingPrompt;
  readonly answeredAt: string;
}

interface PromptRow {
  id: string;
  state: "suspended" | "live";
  event_seq: number | null;
  secret: boolean;
  live: boolean;
  answered: boolean;
  prompt: PendingPrompt;
  event: unknown;
  known: boolean;
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
  // The conversation first, then the prompt: the order a save locks them in. (A live prompt's
  // conversation may not be saved yet: then there is nothing to lock.)
  const locked = await client.query(`SELECT 1 FROM ${n.conversations} WHERE name = $1 FOR UPDATE`, [
    conversation,
  ]);
  const { rows } = await client.query<PromptRow>(
    `SELECT p.id, p.state, p.event_seq, p.secret, p.prompt, p.reply IS NOT NULL AS answered,
            (p.state = 'suspended' OR p.live_until > now()) AS live, e.event
       FROM ${n.prompts} p
       LEFT JOIN ${n.events} e ON e.conversation = p.conversation AND e.seq = p.event_seq
      WHERE p.conversation = $1 AND p.prompt_id = $2
        FOR UPDATE OF p`,
    [conversation, promptId],
  );
  const row = rows[0];
  if (row === undefined) {
    if (locked.rowCount === 0) {
      return fail({
        kind: "unknown_conversation",
        promptId,
        message: `no conversation ${conversation}`,
      });
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
  const answeredAt = target.now.toISOString();
  const notify = notice("answered", conversation, promptId, row.id);
  if (row.state === "live") {
    const checked = checkLiveReply(row.prompt.request, promptId, target.reply, target.now);
    if (checked.isErr()) return fail(checked.error);
    await client.query(
      `WITH p AS (UPDATE ${n.prompts} SET reply = $2, answered_at = $3 WHERE id = $1)
       SELECT pg_notify($4, $5)`,
      [row.id, JSON.stringify(checked.value), answeredAt, n.answered(conversation), notify],
    );
  } else {
    const checked = answerMarker(row.event, row.event_seq as number, target);
    if (checked.isErr()) return fail(checked.error);
    // The marker, the revision and the inbox row in one statement.
    await client.query(
      `WITH e AS (UPDATE ${n.events} SET event = $3 WHERE conversation = $1 AND seq = $2),
            c AS (UPDATE ${n.conversations} SET revision = gen_random_uuid()::text, updated_at = now()
                   WHERE name = $1),
            p AS (UPDATE ${n.prompts} SET reply = $5, answered_at = $6 WHERE id = $4)
       SELECT pg_notify($7, $8)`,
      [
        conversation,
        row.event_seq,
        checked.value.event,
        row.id,
        JSON.stringify(checked.value.reply),
        answeredAt,
        n.answered(conversation),
        notify,
      ],
    );
  }
  return ok({ id: row.id, state: row.state, secret: row.secret, prompt: row.prompt, answeredAt });
}

// The stored `tool_call_request` with the reply in its marker, as answerPendingPrompt writes it
// on the loaded stream.
function answerMarker(
  stored: unknown,
  seq: number,
  target: { promptId: string; reply: StoredReply; now: Date },
): Result<{ event: string; reply: StoredReply }, InboxError> {
  const decoded = decodeEvent(stored, [seq]);
  if (decoded.isErr()) return err(unknownPromptOf(target.promptId));
  const stream = ConversationStream.from([decoded.value]);
  const answered = answerPendingPrompt(stream, target.promptId, target.reply, target.now);
  if (answered.isErr()) return err(answered.error);
  const event = stream.events[0] as StreamEvent;
  return ok({ event: JSON.stringify(encodeEvent(event)), reply: replyOf(event) });
}

/**
 * Answers a live prompt without a transaction, if the prompt is live: one read, the check, and
 * one conditional write that succeeds only while the row has no reply and its host's lease lasts
 * (exactly once, as with the transaction). Returns `undefined` when the prompt is not a live one
 * (then {@link answerInTransaction} decides), so the common case of a waiting host costs two
 * statements.
 */
export async function answerLive(
  pool: pg.Pool,
  n: Names,
  target: { conversation: string; promptId: string; reply: StoredReply; now: Date },
): Promise<Result<Answered, InboxError> | undefined> {
  const { conversation, promptId } = target;
  const { rows } = await pool.query<{ id: string; secret: boolean; prompt: PendingPrompt }>(
    `SELECT id, secret, prompt FROM ${n.prompts}
      WHERE conversation = $1 AND prompt_id = $2 AND state = 'live' AND reply IS NULL
        AND live_until > now()`,
    [conversation, promptId],
  );
  const row = rows[0];
  if (row === undefined) return undefined;
  const checked = checkLiveReply(row.prompt.request, promptId, target.reply, target.now);
  if (checked.isErr()) return err(checked.error);
  const answeredAt = target.now.toISOString();
  const written = await pool.query(
    `WITH p AS (UPDATE ${n.prompts} SET reply = $2, answered_at = $3
                 WHERE id = $1 AND state = 'live' AND reply IS NULL AND live_until > now()
                 RETURNING id)
     SELECT pg_notify($4, $5) FROM p`,
    [
      row.id,
      JSON.stringify(checked.value),
      answeredAt,
      n.answered(conversation),
      notice("answered", conversation, promptId, row.id),
    ],
  );
  // Taken first by another answer, or the host gave up meanwhile: the transaction says which.
  if (written.rowCount !== 1) return undefined;
  return ok({ id: row.id, state: "live", secret: row.secret, prompt: row.prompt, answeredAt });
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

function unknownPromptOf(promptId: string): InboxError {
  return { kind: "unknown_prompt", promptId, message: `no open prompt "${promptId}"` };
}

function unknownPrompt(conversation: string, promptId: string): InboxError {
  return {
    kind: "unknown_prompt",
    promptId,
    message: `no open prompt "${promptId}" in conversation ${conversation} (wrong id or conversation, or the turn went on already)`,
  };
}
