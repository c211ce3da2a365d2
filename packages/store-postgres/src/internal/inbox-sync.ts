import type { ConversationStream } from "@jp/conversation";
import type pg from "pg";
import { type FoundPrompt, isSecret, suspendedPrompts } from "./markers.js";
import type { Names } from "./sql.js";

/**
 * Makes the inbox rows of one conversation mirror the prompts suspended in its stream, inside
 * the save's transaction (the conversation row is locked by then): new prompts are added,
 * prompts the turn went past are removed, answers given in the stream are copied. A host's live
 * row for a prompt that is now suspended gives way to it. Notifies listeners of new prompts and
 * new answers when the transaction commits.
 */
export async function syncInbox(
  client: pg.PoolClient,
  n: Names,
  conversation: string,
  stream: ConversationStream,
  now: Date,
): Promise<void> {
  const found = suspendedPrompts(stream, now);
  const ids = found.map((p) => p.view.prompt_id);
  // Rows of prompts no longer suspended, and live rows whose prompt is now suspended.
  await client.query(
    `DELETE FROM ${n.prompts} WHERE conversation = $1
       AND ((state = 'suspended' AND NOT (prompt_id = ANY($2::text[])))
         OR (state = 'live' AND (prompt_id = ANY($2::text[]) OR live_until < now())))`,
    [conversation, ids],
  );
  if (found.length === 0) return;
  // `old` sees the rows as they were before the upsert: only real changes are announced.
  const { rows } = await client.query<{
    prompt_id: string;
    id: string;
    answered: boolean;
    inserted: boolean;
    had: boolean;
  }>(
    `WITH old AS (
       SELECT prompt_id, reply IS NOT NULL AS had FROM ${n.prompts}
        WHERE conversation = $1 AND state = 'suspended'
     ), up AS (
       INSERT INTO ${n.prompts} AS p
         (conversation, prompt_id, state, event_seq, kind, tool_name, tool_call_id, secret,
          prompt, suspended_at, deadline, reply, answered_at)
       SELECT $1, r.prompt_id, 'suspended', r.event_seq, r.kind, r.tool_name, r.tool_call_id,
              r.secret, r.prompt, r.suspended_at, r.deadline, r.reply, r.answered_at
         FROM json_to_recordset($2::json) AS r(prompt_id text, event_seq integer, kind text,
              tool_name text, tool_call_id text, secret boolean, prompt json,
              suspended_at timestamptz, deadline timestamptz, reply json, answered_at timestamptz)
       ON CONFLICT (conversation, prompt_id) DO UPDATE SET
         event_seq = excluded.event_seq, prompt = excluded.prompt, deadline = excluded.deadline,
         reply = excluded.reply, answered_at = excluded.answered_at
       RETURNING p.prompt_id, p.id, p.reply IS NOT NULL AS answered
     )
     SELECT up.prompt_id, up.id, up.answered, old.prompt_id IS NULL AS inserted,
            coalesce(old.had, false) AS had
       FROM up LEFT JOIN old USING (prompt_id)`,
    [conversation, JSON.stringify(found.map(rowOf))],
  );
  for (const row of rows) {
    const event = row.inserted ? "pending" : row.answered && !row.had ? "answered" : undefined;
    if (event === undefined) continue;
    await client.query("SELECT pg_notify($1, $2)", [
      event === "pending" ? n.channel : n.answered(conversation),
      notice(event, conversation, row.prompt_id, row.id),
    ]);
    if (row.inserted && row.answered) {
      await client.query("SELECT pg_notify($1, $2)", [
        n.answered(conversation),
        notice("answered", conversation, row.prompt_id, row.id),
      ]);
    }
  }
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
