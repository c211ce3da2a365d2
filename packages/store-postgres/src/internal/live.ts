import type { PendingPrompt, PromptRequest, StoredReply } from "@jp/coordinator";
import type pg from "pg";
import { isSecret, promptIdOf } from "./markers.js";
import type { Names } from "./sql.js";

// The rows of prompts a host waits on in memory ('live'): put in the inbox while the host waits,
// answered there like any prompt, and taken back by the host, with or without a reply. A lease
// the host renews while it waits tells everyone else whether it is still there.

/** A live prompt as the inbox shows it. */
export function liveView(request: PromptRequest, now: Date): PendingPrompt {
  return {
    prompt_id: promptIdOf(request),
    kind: request.kind,
    tool_call_id: request.tool_call_id,
    tool_name: request.tool_name,
    ...(request.kind === "question" ? { inquiry_id: request.inquiry_id } : {}),
    request,
    ...(request.kind === "question" && request.progress !== undefined
      ? { progress: request.progress }
      : {}),
    suspended_at: now.toISOString(),
    expired: false,
    answered: false,
  };
}

/**
 * Puts a live prompt in the inbox and announces it; returns its row id. A row left by a host
 * whose lease ran out gives way; a prompt open under the same id otherwise is an error.
 */
export async function openLive(
  pool: pg.Pool,
  n: Names,
  prompt: { conversation: string; request: PromptRequest; host: string; leaseMs: number },
): Promise<string> {
  const view = liveView(prompt.request, new Date());
  const values = [
    prompt.conversation,
    view.prompt_id,
    prompt.host,
    prompt.leaseMs,
    view.kind,
    view.tool_name,
    view.tool_call_id,
    isSecret(prompt.request),
    JSON.stringify(view),
    view.suspended_at,
    n.channel,
  ];
  // One statement: the row and its notification (the payload names the prompt unless its id is
  // too long for one).
  const insert = () =>
    pool.query<{ id: string }>(
      `WITH i AS (
         INSERT INTO ${n.prompts} (conversation, prompt_id, state, host, live_until, kind,
                tool_name, tool_call_id, secret, prompt, suspended_at)
         VALUES ($1, $2, 'live', $3, now() + $4 * interval '1 millisecond', $5, $6, $7, $8, $9, $10)
         RETURNING id)
       SELECT i.id, pg_notify($11, CASE WHEN octet_length($2) + octet_length($1) < 7800
           THEN json_build_object('e', 'pending', 'id', i.id::text, 'c', $1::text, 'p', $2::text)::text
           ELSE json_build_object('e', 'pending', 'id', i.id::text, 'c', $1::text)::text END)
         FROM i`,
      values,
    );
  try {
    return ((await insert()).rows[0] as { id: string }).id;
  } catch (cause) {
    if ((cause as { code?: string }).code !== "23505") throw cause;
    // The same prompt is open already: if its host's lease ran out, the row gives way.
    await pool.query(
      `DELETE FROM ${n.prompts} WHERE conversation = $1 AND prompt_id = $2 AND live_until < now()`,
      [prompt.conversation, view.prompt_id],
    );
    return ((await insert()).rows[0] as { id: string }).id;
  }
}

/** Renews a live prompt's lease. */
export async function renewLive(pool: pg.Pool, n: Names, id: string, leaseMs: number) {
  await pool.query(
    `UPDATE ${n.prompts} SET live_until = now() + $2 * interval '1 millisecond' WHERE id = $1 AND state = 'live'`,
    [id, leaseMs],
  );
}

/**
 * Takes a live prompt out of the inbox if it has a reply, in one statement: `reply` is the reply
 * taken, `present` whether the row was there at all (a save that suspended the same prompt
 * replaces it).
 */
export async function takeAnswered(
  pool: pg.Pool,
  n: Names,
  id: string,
): Promise<{ reply: StoredReply | undefined; present: boolean }> {
  const { rows } = await pool.query<{ reply: StoredReply | null; present: boolean }>(
    `WITH d AS (DELETE FROM ${n.prompts} WHERE id = $1 AND state = 'live' AND reply IS NOT NULL
                RETURNING reply)
     SELECT (SELECT reply FROM d) AS reply,
            EXISTS (SELECT 1 FROM ${n.prompts} WHERE id = $1 AND state = 'live') AS present`,
    [id],
  );
  const row = rows[0] as { reply: StoredReply | null; present: boolean };
  return { reply: row.reply ?? undefined, present: row.present };
}

/**
 * Takes a live prompt out of the inbox and returns the reply it got, if any: deleting and reading
 * are one statement, so an answer that arrives as the host gives up waiting is either taken by
 * the host or refused to its sender (`unknown_prompt`), never dropped after being accepted.
 */
export async function closeLive(
  pool: pg.Pool,
  n: Names,
  id: string,
): Promise<{ reply: StoredReply | undefined }> {
  const { rows } = await pool.query<{ reply: StoredReply | null }>(
    `DELETE FROM ${n.prompts} WHERE id = $1 AND state = 'live' RETURNING reply`,
    [id],
  );
  return { reply: rows[0]?.reply ?? undefined };
}
