import {
  ConversationStream,
  createEvent,
  encodeEventText,
  type JsonObject,
  type StreamEvent,
} from "@jp/conversation";
import {
  answerPendingPrompt,
  checkPromptReply,
  PENDING_METADATA_KEY,
  type PendingPrompt,
  type PromptRequest,
  type StoredReply,
} from "@jp/coordinator";
import { err, ok, type Result } from "neverthrow";
import type pg from "pg";
import type { InboxError } from "../errors.js";
import { Batcher, prepared } from "./batch.js";
import { notice } from "./inbox-sync.js";
import { SEND_NOTES } from "./notify.js";
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
  wake: string | null;
  state: "suspended" | "live";
  event_seq: number | null;
  secret: boolean;
  live: boolean;
  answered: boolean;
  prompt: unknown;
  event: string | null;
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
            (p.state = 'suspended' OR p.live_until > now()) AS live, e.event::text AS event, p.wake
       FROM ${n.prompts} p
       LEFT JOIN ${n.events} e ON e.conversation = p.conversation AND e.seq = p.event_seq
      WHERE p.conversation = $1 AND p.prompt_id = $2
        FOR UPDATE OF p`,
    [conversation, promptId],
  );
  const row = rows[0];
  if (row === undefined) {
    if (locked.rowCount === 0) return fail(unknownConversation(conversation, promptId));
    return fail(unknownPrompt(conversation, promptId));
  }
  if (!row.live) {
    return fail(gone(conversation, promptId));
  }
  if (row.answered) {
    return fail(alreadyAnswered(conversation, promptId));
  }
  const prompt = promptOf(row.prompt);
  if (prompt === undefined) return fail(damaged(conversation, promptId));
  const answeredAt = target.now.toISOString();
  const notify = notice("answered", conversation, promptId, row.id);
  if (row.state === "live") {
    const checked = checkLiveReply(prompt.request, promptId, target.reply, target.now);
    if (checked.isErr()) return fail(checked.error);
    // On the conversation's channel, and on the host's own (see Answers).
    await client.query(
      `WITH p AS (UPDATE ${n.prompts} SET reply = $2, answered_at = $3 WHERE id = $1)
       SELECT pg_notify($4, $5), pg_notify(coalesce($6, $4), $5)`,
      [
        row.id,
        JSON.stringify(checked.value),
        answeredAt,
        n.answered(conversation),
        notify,
        row.wake,
      ],
    );
  } else {
    const checked = answerMarker(row.event, target);
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
  return ok({ id: row.id, state: row.state, secret: row.secret, prompt, answeredAt });
}

// The stored `tool_call_request` with the reply in its marker, as answerPendingPrompt writes it
// on the loaded stream. Read and written as text, so that numbers JSON.parse does not read
// exactly (an integer past 2^53, a -0.0) are written back as they were.
function answerMarker(
  stored: string | null,
  target: { promptId: string; reply: StoredReply; now: Date },
): Result<{ event: string; reply: StoredReply }, InboxError> {
  const decoded = stored === null ? undefined : ConversationStream.decodeText(`[${stored}]`);
  if (decoded === undefined || decoded.isErr() || decoded.value.length !== 1) {
    return err(unknownPromptOf(target.promptId));
  }
  const stream = decoded.value;
  const answered = answerPendingPrompt(stream, target.promptId, target.reply, target.now);
  if (answered.isErr()) return err(answered.error);
  const event = stream.events[0] as StreamEvent;
  return ok({ event: encodeEventText(event), reply: replyOf(event) });
}

/** The prompt an answer names, as one read finds it (every column `null` when there is none). */
interface TargetRow {
  id: string | null;
  wake: string | null;
  state: "suspended" | "live" | null;
  event_seq: number | null;
  secret: boolean | null;
  prompt: unknown;
  answered: boolean | null;
  open: boolean | null;
  event: string | null;
  revision: string | null;
  known: boolean;
}

type Target = { conversation: string; promptId: string; reply: StoredReply; now: Date };

/**
 * Answers without a transaction in the usual case: one read of the prompt (shared with the other
 * answers of the process given meanwhile, see {@link Batcher}), the check of the reply, and one
 * conditional write. A live prompt's write succeeds only while the row has no reply and its
 * host's lease lasts (written together with the other answers of the moment); a suspended
 * prompt's only while the conversation is still at the revision read, and it moves the revision,
 * so of two answers, or an answer and a save, exactly one goes through. When a write does not go
 * through, {@link answerInTransaction} decides under row locks (`undefined` is returned).
 */
export class Answers {
  readonly #pool: pg.Pool;
  readonly #n: Names;
  readonly #read: Batcher<{ conversation: string; promptId: string }, TargetRow>;
  readonly #live: Batcher<LiveWrite, LiveOutcome>;
  readonly #suspended: (values: unknown[]) => pg.QueryConfig<unknown[]>;

  constructor(pool: pg.Pool, n: Names) {
    this.#pool = pool;
    this.#n = n;
    const read = prepared(
      `SELECT t.ord, p.id, p.state, p.event_seq, p.secret, p.prompt, p.wake,
              p.reply IS NOT NULL AS answered,
              (p.state = 'suspended' OR p.live_until > now()) AS open,
              e.event::text AS event, c.revision, c.name IS NOT NULL AS known
         FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS t(conversation, prompt_id, ord)
         LEFT JOIN ${n.prompts} p ON p.conversation = t.conversation AND p.prompt_id = t.prompt_id
         LEFT JOIN ${n.conversations} c ON c.name = t.conversation
         LEFT JOIN ${n.events} e ON p.state = 'suspended' AND e.conversation = p.conversation
                                AND e.seq = p.event_seq
        ORDER BY t.ord`,
    );
    this.#read = new Batcher(async (items) => {
      const { rows } = await this.#pool.query<TargetRow>(
        read([items.map((i) => i.conversation), items.map((i) => i.promptId)]),
      );
      return rows;
    });
    // The answer is announced on the conversation's channel (waits on the conversation, inbox
    // views) and on the channel of the host's listener, which wakes that host alone. An answer
    // not written says why, from the row its prompt id names now: gone with its host, answered
    // already, or `retry` when a transaction must decide (the row changed under the write, or a
    // save made the prompt a suspended one).
    const live = prepared(
      `WITH u AS (
         SELECT * FROM json_to_recordset($1::json) AS u(id bigint, reply json,
                answered_at timestamptz, conversation text, prompt_id text, channel text)
       ), p AS (
         UPDATE ${n.prompts} p SET reply = u.reply, answered_at = u.answered_at FROM u
          WHERE p.id = u.id AND p.state = 'live' AND p.reply IS NULL AND p.live_until > now()
         RETURNING p.id, p.wake
       ), w AS (
         SELECT u.*, p.wake FROM p JOIN u ON u.id = p.id
       ), notes AS (
         SELECT channel, 'answered' AS event, id AS ord, id, conversation, prompt_id FROM w
         UNION ALL
         SELECT wake, 'answered', id, id, conversation, prompt_id FROM w WHERE wake IS NOT NULL
       )
       SELECT w.id::text AS id, 'written' AS outcome, ${SEND_NOTES} AS notified FROM w
       UNION ALL
       SELECT u.id::text, CASE
                WHEN q.id IS NULL THEN CASE WHEN c.name IS NULL THEN 'no_conversation'
                                            ELSE 'no_prompt' END
                WHEN q.id <> u.id THEN 'retry'
                WHEN q.state = 'live' AND q.live_until <= now() THEN 'gone'
                WHEN q.reply IS NOT NULL THEN 'answered'
                ELSE 'retry' END, NULL
         FROM u
         LEFT JOIN ${n.prompts} q ON q.conversation = u.conversation AND q.prompt_id = u.prompt_id
         LEFT JOIN ${n.conversations} c ON c.name = u.conversation
        WHERE NOT EXISTS (SELECT 1 FROM p WHERE p.id = u.id)`,
    );
    this.#live = new Batcher(async (items) => {
      // One write per row in a statement: a second answer to the same prompt waits for the next.
      const first = new Map<string, LiveWrite>();
      for (const item of items) if (!first.has(item.id)) first.set(item.id, item);
      const { rows } = await this.#pool.query<{ id: string; outcome: LiveOutcome }>(
        live([JSON.stringify([...first.values()])]),
      );
      const outcomes = new Map(rows.map((r) => [r.id, r.outcome]));
      // An answer to a prompt another answer of the same statement took: answered already.
      return items.map((item) => {
        const outcome = outcomes.get(item.id) ?? "retry";
        return outcome === "written" && first.get(item.id) !== item ? "answered" : outcome;
      });
    });
    // The marker, the revision and the inbox row in one statement, only if nothing changed since
    // the read: the conversation row is the one every save and answer moves first.
    this.#suspended = prepared(
      `WITH c AS (
         UPDATE ${n.conversations} SET revision = gen_random_uuid()::text, updated_at = now()
          WHERE name = $1 AND revision = $2 RETURNING name
       ), p AS (
         UPDATE ${n.prompts} SET reply = $6, answered_at = $7
          WHERE id = $5 AND state = 'suspended' AND event_seq = $3 AND reply IS NULL
            AND EXISTS (SELECT 1 FROM c)
         RETURNING id
       ), e AS (
         UPDATE ${n.events} SET event = $4
          WHERE conversation = $1 AND seq = $3 AND EXISTS (SELECT 1 FROM p)
       )
       SELECT pg_notify($8, $9) AS notified FROM p`,
    );
  }

  /** The answer's result, or `undefined` when a transaction must decide. */
  async answer(target: Target): Promise<Result<Answered, InboxError> | undefined> {
    const { conversation, promptId } = target;
    const row = await this.#read.submit({ conversation, promptId });
    if (row.id === null) {
      return err(
        row.known
          ? unknownPrompt(conversation, promptId)
          : unknownConversation(conversation, promptId),
      );
    }
    if (row.open !== true) return err(gone(conversation, promptId));
    if (row.answered === true) return err(alreadyAnswered(conversation, promptId));
    const prompt = promptOf(row.prompt);
    if (prompt === undefined) return err(damaged(conversation, promptId));
    const answeredAt = target.now.toISOString();
    const channel = this.#n.answered(conversation);
    if (row.state === "live") {
      const checked = checkLiveReply(prompt.request, promptId, target.reply, target.now);
      if (checked.isErr()) return err(checked.error);
      const outcome = await this.#live.submit({
        id: row.id,
        reply: checked.value,
        answered_at: answeredAt,
        conversation,
        prompt_id: promptId,
        channel,
      });
      switch (outcome) {
        case "written":
          return ok({ id: row.id, state: "live", secret: row.secret === true, prompt, answeredAt });
        case "answered":
          return err(alreadyAnswered(conversation, promptId));
        case "gone":
          return err(gone(conversation, promptId));
        case "no_prompt":
          return err(unknownPrompt(conversation, promptId));
        case "no_conversation":
          return err(unknownConversation(conversation, promptId));
        default:
          return undefined;
      }
    }
    if (row.revision === null || row.event_seq === null) return undefined;
    const checked = answerMarker(row.event, target);
    if (checked.isErr()) return err(checked.error);
    const { rowCount } = await this.#pool.query(
      this.#suspended([
        conversation,
        row.revision,
        row.event_seq,
        checked.value.event,
        row.id,
        JSON.stringify(checked.value.reply),
        answeredAt,
        channel,
        notice("answered", conversation, promptId, row.id),
      ]),
    );
    if (rowCount !== 1) return undefined;
    return ok({ id: row.id, state: "suspended", secret: row.secret === true, prompt, answeredAt });
  }
}

/** What became of an answer to a live prompt: see the statement in {@link Answers}. */
type LiveOutcome = "written" | "answered" | "gone" | "no_prompt" | "no_conversation" | "retry";

interface LiveWrite {
  readonly id: string;
  readonly reply: StoredReply;
  readonly answered_at: string;
  readonly conversation: string;
  readonly prompt_id: string;
  readonly channel: string;
}

/**
 * Checks a reply to a live prompt exactly as `answerPendingPrompt` checks one to a suspended
 * prompt: with `checkPromptReply`, the check it runs, on the request as this package wrote it to
 * the row. A request that is not one (a row written by something else) goes the full way
 * instead, `answerPendingPrompt` on a one-entry stream, whose marker decoding finds it wanting.
 */
export function checkLiveReply(
  request: PromptRequest,
  promptId: string,
  reply: StoredReply,
  now: Date,
): Result<StoredReply, InboxError> {
  if (isRequest(request)) {
    const checked = checkPromptReply(request, reply);
    return checked.isOk() ? ok(checked.value) : err({ ...checked.error, promptId });
  }
  const marker = {
    v: 1,
    prompt_id: promptId,
    request,
    turn: { remembered_tool_answers: {}, remembered_permission_decisions: {}, attempts: [] },
    suspended_at: now.toISOString(),
  };
  const event = createEvent("tool_call_request", {
    id: String((request as { tool_call_id?: unknown } | null)?.tool_call_id),
    name: String((request as { tool_name?: unknown } | null)?.tool_name),
    arguments: {},
    // The request was read from the database: plain JSON, decoded with the marker.
    metadata: { [PENDING_METADATA_KEY]: marker as unknown as JsonObject },
  });
  const stream = ConversationStream.from([event]);
  const answered = answerPendingPrompt(stream, promptId, reply, now);
  if (answered.isErr()) return err(answered.error);
  return ok(replyOf(stream.events[0] as StreamEvent));
}

// What checkPromptReply reads of a request is there: its kind, and a question's answer type and
// controls. (The rest of the row is shown to people, not used to check.)
function isRequest(request: unknown): request is PromptRequest {
  if (typeof request !== "object" || request === null) return false;
  const { kind } = request as { kind?: unknown };
  if (kind === "permission" || kind === "deliver") return true;
  if (kind !== "question") return false;
  const { question, controls } = request as { question?: unknown; controls?: unknown };
  if (typeof question !== "object" || question === null) return false;
  const answerType = (question as { answer_type?: unknown }).answer_type;
  return (
    typeof answerType === "object" &&
    answerType !== null &&
    typeof (answerType as { type?: unknown }).type === "string" &&
    typeof controls === "object" &&
    controls !== null
  );
}

function replyOf(event: StreamEvent): StoredReply {
  const metadata = (event as { metadata: JsonObject }).metadata;
  return (metadata[PENDING_METADATA_KEY] as unknown as { reply: StoredReply }).reply;
}

// The row's prompt as this package writes it, an object; a row written by something else may
// hold any JSON there (even `null`), which must not be read as one.
function promptOf(prompt: unknown): PendingPrompt | undefined {
  return typeof prompt === "object" && prompt !== null && !Array.isArray(prompt)
    ? (prompt as PendingPrompt)
    : undefined;
}

function damaged(conversation: string, promptId: string): InboxError {
  return {
    kind: "unknown_prompt",
    promptId,
    message: `prompt "${promptId}" of conversation ${conversation} cannot be answered: its inbox row holds no prompt (the "prompt" column is not an object), so something other than this package wrote it; repair or delete the row`,
  };
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

function unknownConversation(conversation: string, promptId: string): InboxError {
  return { kind: "unknown_conversation", promptId, message: `no conversation ${conversation}` };
}

function gone(conversation: string, promptId: string): InboxError {
  return {
    kind: "unknown_prompt",
    promptId,
    message: `prompt "${promptId}" of conversation ${conversation} is gone: the host waiting for it stopped; it is asked again when the turn runs again`,
  };
}

function alreadyAnswered(conversation: string, promptId: string): InboxError {
  return {
    kind: "already_answered",
    promptId,
    message: `prompt "${promptId}" of conversation ${conversation} was answered already; only the first answer counts`,
  };
}
