import type { ConversationStream } from "@jp/conversation";
import type pg from "pg";
import { prepared } from "./batch.js";
import { type FoundPrompt, isSecret, suspendedPrompts } from "./markers.js";
import { SEND_NOTES } from "./notify.js";
import type { Names } from "./sql.js";

/** How a save claims the conversation row: a new conversation, or one at a known revision. */
export type Claim = "insert" | "update";

/** What a save writes to the events table. */
export interface WritePlan {
  /** Delete every event from this sequence number on (a stream that got shorter, or written whole). */
  readonly truncateFrom: number | undefined;
  /** `[seq, event]` pairs of entries replaced in place, as a JSON array. */
  readonly replaced: string | undefined;
  /** Entries to write from sequence number `appendFrom` on, as a JSON array. */
  readonly appended: string | undefined;
  readonly appendFrom: number;
}

/** The conversation row a save writes. */
export interface ConversationFields {
  readonly name: string;
  readonly metadata: string;
  readonly baseConfig: string | null;
  readonly layout: string;
  readonly revision: string;
  readonly eventCount: number;
}

/**
 * A whole save in one statement, so one round trip and one commit: the conversation row moves
 * to the new revision if it is at the expected one (or is inserted if there is none), and only
 * then are the events written (replaced entries updated in place, appended ones inserted, a
 * shorter stream cut) and the inbox rows brought in step with the prompts suspended in the last
 * turn: new prompts added, prompts the turn went past removed, answers given in the stream
 * copied, a host's live row for a prompt now suspended turned into the suspended one. Listeners
 * hear of new prompts and new answers when it commits. `claimed` is 0 when the revision did not
 * match (then nothing was written).
 */
function saveText(n: Names, claim: Claim): string {
  const claimSql =
    claim === "insert"
      ? `INSERT INTO ${n.conversations} (name, metadata, base_config, layout, revision, event_count)
         VALUES ($1, $10, $11, $12, $13, $14) ON CONFLICT (name) DO NOTHING RETURNING name`
      : `UPDATE ${n.conversations} SET metadata = $10, base_config = $11, layout = $12,
                revision = $13, event_count = $14, updated_at = now()
          WHERE name = $1 AND revision = $15 RETURNING name`;
  return `WITH claim AS (${claimSql}),
    cut AS (
      DELETE FROM ${n.events}
       WHERE conversation = $1 AND $2::integer >= 0 AND seq >= $2::integer
         AND EXISTS (SELECT 1 FROM claim)
    ), rep AS (
      UPDATE ${n.events} e SET event = u.value -> 1 FROM json_array_elements($3::json) u
       WHERE e.conversation = $1 AND e.seq = (u.value ->> 0)::integer
         AND EXISTS (SELECT 1 FROM claim)
    ), app AS (
      INSERT INTO ${n.events} AS e (conversation, seq, event)
      SELECT $1, $4::integer + t.ord - 1, t.value
        FROM json_array_elements($5::json) WITH ORDINALITY t(value, ord)
       WHERE EXISTS (SELECT 1 FROM claim)
      ON CONFLICT (conversation, seq) DO UPDATE SET event = excluded.event
    ), old AS (
      SELECT prompt_id, reply IS NOT NULL AS had FROM ${n.prompts}
       WHERE conversation = $1 AND state = 'suspended'
    ), gone AS (
      DELETE FROM ${n.prompts}
       WHERE conversation = $1 AND NOT (prompt_id = ANY($6::text[]))
         AND (state = 'suspended' OR live_until < now())
         AND EXISTS (SELECT 1 FROM claim)
    ), up AS (
      INSERT INTO ${n.prompts} AS p
        (conversation, prompt_id, state, event_seq, kind, tool_name, tool_call_id, secret,
         prompt, suspended_at, deadline, reply, answered_at)
      SELECT $1, r.prompt_id, 'suspended', r.event_seq, r.kind, r.tool_name, r.tool_call_id,
             r.secret, r.prompt, r.suspended_at, r.deadline, r.reply, r.answered_at
        FROM json_to_recordset($7::json) AS r(prompt_id text, event_seq integer, kind text,
             tool_name text, tool_call_id text, secret boolean, prompt json,
             suspended_at timestamptz, deadline timestamptz, reply json, answered_at timestamptz)
       WHERE EXISTS (SELECT 1 FROM claim)
      ON CONFLICT (conversation, prompt_id) DO UPDATE SET
        state = 'suspended', host = NULL, live_until = NULL, wake = NULL,
        event_seq = excluded.event_seq,
        kind = excluded.kind, tool_name = excluded.tool_name, tool_call_id = excluded.tool_call_id,
        secret = excluded.secret, prompt = excluded.prompt,
        suspended_at = CASE WHEN p.state = 'live' THEN excluded.suspended_at ELSE p.suspended_at END,
        deadline = excluded.deadline, reply = excluded.reply, answered_at = excluded.answered_at
      RETURNING p.prompt_id, p.id, p.reply IS NOT NULL AS answered
    ), notes AS (
      SELECT CASE WHEN k.event = 'pending' THEN $8::text ELSE $9::text END AS channel,
             k.event, up.id AS ord, up.id, $1::text AS conversation, up.prompt_id
        FROM up LEFT JOIN old USING (prompt_id),
             LATERAL (VALUES ('pending', old.prompt_id IS NULL),
                             ('answered', up.answered AND NOT coalesce(old.had, false)))
                AS k(event, wanted)
       WHERE k.wanted
    )
    SELECT (SELECT count(*) FROM claim)::integer AS claimed, ${SEND_NOTES}::integer AS notified`;
}

/** The save statements of one schema (see {@link saveText}). */
export function saveStatements(n: Names): Record<Claim, ReturnType<typeof prepared>> {
  return { insert: prepared(saveText(n, "insert")), update: prepared(saveText(n, "update")) };
}

/** The parameters of a save statement. */
export function saveValues(
  n: Names,
  fields: ConversationFields,
  plan: WritePlan,
  stream: ConversationStream,
  expected: string | null,
  now: Date,
): unknown[] {
  const found = suspendedPrompts(stream, now);
  return [
    fields.name,
    plan.truncateFrom ?? -1,
    plan.replaced ?? "[]",
    plan.appendFrom,
    plan.appended ?? "[]",
    found.map((p) => p.view.prompt_id),
    JSON.stringify(found.map(rowOf)),
    n.channel,
    n.answered(fields.name),
    fields.metadata,
    fields.baseConfig,
    fields.layout,
    fields.revision,
    fields.eventCount,
    ...(expected === null ? [] : [expected]),
  ];
}

/** Runs a save statement: whether the conversation row was claimed (else nothing was written). */
export async function runSave(
  pool: pg.Pool,
  statement: ReturnType<typeof prepared>,
  values: unknown[],
): Promise<boolean> {
  const { rows } = await pool.query<{ claimed: number }>(statement(values));
  return rows[0]?.claimed === 1;
}

function rowOf(p: FoundPrompt) {
  const { view } = p;
  return {
    prompt_id: view.prompt_id,
    event_seq: p.seq,
    kind: view.kind,
    tool_name: view.tool_name,
    tool_call_id: view.tool_call_id,
    secret: isSecret(view.request),
    prompt: view,
    suspended_at: view.suspended_at,
    deadline: view.deadline ?? null,
    reply: p.reply ?? null,
    answered_at: p.reply === undefined ? null : (p.answeredAt ?? new Date().toISOString()),
  };
}

/** The payload of an inbox notification: ids only, never a reply (payloads may be logged). */
export function notice(
  event: "pending" | "answered",
  conversation: string,
  promptId: string,
  id: string,
): string {
  const full = JSON.stringify({ e: event, id, c: conversation, p: promptId });
  // NOTIFY payloads stop at 8000 bytes: a very long prompt id is looked up by row id instead.
  return Buffer.byteLength(full) < 7900 ? full : JSON.stringify({ e: event, id, c: conversation });
}
