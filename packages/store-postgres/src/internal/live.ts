import type { PendingPrompt, PromptRequest, StoredReply } from "@jp/coordinator";
import type pg from "pg";
import { Batcher, prepared } from "./batch.js";
import { isSecret, promptIdOf } from "./markers.js";
import { SEND_NOTES } from "./notify.js";
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

/** A prompt a host puts in the inbox while it waits. */
export interface LiveOpen {
  readonly conversation: string;
  readonly request: PromptRequest;
  readonly host: string;
  readonly leaseMs: number;
  /** The channel of the host's listener: answers to this prompt wake it there. */
  readonly wake: string;
}

/** What a look at a live prompt found: the reply taken, and whether the row was there at all. */
export interface LiveTaken {
  readonly reply: StoredReply | undefined;
  /** `false` when the row is gone (a save that suspended the same prompt replaced it). */
  readonly present: boolean;
}

/**
 * The live prompts of one inbox (one pool): opening, looking at, renewing and closing them. The
 * statements of many waiting hosts of the process go to the server together (see
 * {@link Batcher}): one insert opens every prompt asked meanwhile, one delete takes every answer
 * noticed meanwhile, one update renews every lease due, one delete closes every wait that ended.
 */
export class LivePrompts {
  readonly #pool: pg.Pool;
  readonly #n: Names;
  readonly #open: Batcher<LiveOpen, string | undefined>;
  readonly #take: Batcher<string, LiveTaken>;
  readonly #renew: Batcher<{ id: string; leaseMs: number }, undefined>;
  readonly #close: Batcher<string, { reply: StoredReply | undefined }>;
  // The prompts whose leases are renewed, by lease length: one timer per length, not per prompt.
  readonly #leases = new Map<
    number,
    { readonly ids: Set<string>; readonly timer: NodeJS.Timeout }
  >();

  constructor(pool: pg.Pool, n: Names) {
    this.#pool = pool;
    this.#n = n;
    // A row per prompt and its notification, in one statement; a prompt open already under the
    // same id comes back without a row id, and is tried alone (see `open`).
    const open = prepared(
      `WITH r AS (
         SELECT * FROM json_to_recordset($1::json) AS r(ord integer, conversation text,
                prompt_id text, host text, lease_ms double precision, kind text, tool_name text,
                tool_call_id text, secret boolean, prompt json, suspended_at timestamptz, wake text)
       ), i AS (
         INSERT INTO ${n.prompts} (conversation, prompt_id, state, host, live_until, kind,
                tool_name, tool_call_id, secret, prompt, suspended_at, wake)
         SELECT conversation, prompt_id, 'live', host, now() + lease_ms * interval '1 millisecond',
                kind, tool_name, tool_call_id, secret, prompt, suspended_at, wake
           FROM r ORDER BY ord
         ON CONFLICT (conversation, prompt_id) DO NOTHING
         RETURNING id, conversation, prompt_id
       ), notes AS (
         SELECT $2::text AS channel, 'pending' AS event, id AS ord, id, conversation, prompt_id
           FROM i
       )
       SELECT i.id, i.conversation, i.prompt_id, ${SEND_NOTES} AS notified FROM i`,
    );
    this.#open = new Batcher(async (items) => {
      const rows = items.map((item, ord) => {
        const view = liveView(item.request, new Date());
        return {
          ord,
          conversation: item.conversation,
          prompt_id: view.prompt_id,
          host: item.host,
          lease_ms: item.leaseMs,
          kind: view.kind,
          tool_name: view.tool_name,
          tool_call_id: view.tool_call_id,
          secret: isSecret(item.request),
          prompt: view,
          suspended_at: view.suspended_at,
          wake: item.wake,
        };
      });
      const result = await this.#pool.query<{
        id: string;
        conversation: string;
        prompt_id: string;
      }>(open([JSON.stringify(rows), n.channel]));
      // Each inserted row to the first item of its key (two hosts may ask the same prompt).
      const ids = new Map<string, string[]>();
      for (const row of result.rows) {
        const key = JSON.stringify([row.conversation, row.prompt_id]);
        ids.set(key, [...(ids.get(key) ?? []), row.id]);
      }
      return rows.map((row) => ids.get(JSON.stringify([row.conversation, row.prompt_id]))?.shift());
    });

    // Takes the answered rows out and says, for the others, whether they are still there.
    const take = prepared(
      `WITH ids AS (SELECT DISTINCT unnest($1::bigint[]) AS id),
            d AS (DELETE FROM ${n.prompts} p USING ids
                   WHERE p.id = ids.id AND p.state = 'live' AND p.reply IS NOT NULL
               RETURNING p.id, p.reply)
       SELECT ids.id::text AS id, d.reply,
              d.id IS NOT NULL OR EXISTS (SELECT 1 FROM ${n.prompts} p
                                           WHERE p.id = ids.id AND p.state = 'live') AS present
         FROM ids LEFT JOIN d ON d.id = ids.id`,
    );
    this.#take = new Batcher(async (items) => {
      const { rows } = await this.#pool.query<{
        id: string;
        reply: StoredReply | null;
        present: boolean;
      }>(take([items]));
      const byId = new Map(rows.map((r) => [r.id, r]));
      // A reply goes to the first look at its row only (a row is looked at by one host).
      return items.map((id) => {
        const row = byId.get(id);
        byId.delete(id);
        return row === undefined
          ? { reply: undefined, present: false }
          : { reply: row.reply ?? undefined, present: row.present };
      });
    });

    const renew = prepared(
      `UPDATE ${n.prompts} p SET live_until = now() + r.lease_ms * interval '1 millisecond'
         FROM json_to_recordset($1::json) AS r(id bigint, lease_ms double precision)
        WHERE p.id = r.id AND p.state = 'live'`,
    );
    this.#renew = new Batcher(async (items) => {
      await this.#pool.query(renew([JSON.stringify(items)]));
      return items.map(() => undefined);
    });

    // Deleting and reading in one statement: see `close`.
    const close = prepared(
      `DELETE FROM ${n.prompts} p USING (SELECT DISTINCT unnest($1::bigint[]) AS id) ids
        WHERE p.id = ids.id AND p.state = 'live' RETURNING p.id::text AS id, p.reply`,
    );
    this.#close = new Batcher(async (items) => {
      const { rows } = await this.#pool.query<{ id: string; reply: StoredReply | null }>(
        close([items]),
      );
      const byId = new Map(rows.map((r) => [r.id, r.reply ?? undefined]));
      // A reply goes to the first close of its row only (a row is closed by its one host).
      return items.map((id) => {
        const reply = byId.get(id);
        byId.delete(id);
        return { reply };
      });
    });
  }

  /**
   * Puts a live prompt in the inbox and announces it; returns its row id, or `"suspended"` when
   * the prompt waits there already as a saved turn's (a turn resumed before it was answered): it
   * is answered there, into the saved conversation, and not asked a second time. A row left by a
   * host whose lease ran out gives way; a prompt open under the same id otherwise is an error.
   */
  async open(prompt: LiveOpen): Promise<string | "suspended"> {
    const id = await this.#open.submit(prompt);
    if (id !== undefined) return id;
    // The same prompt is open already: if its host's lease ran out, the row gives way.
    const promptId = promptIdOf(prompt.request);
    const { rows } = await this.#pool.query<{ state: string }>(
      `DELETE FROM ${this.#n.prompts} WHERE conversation = $1 AND prompt_id = $2 AND live_until < now()
       RETURNING state`,
      [prompt.conversation, promptId],
    );
    if (rows.length === 0) {
      const { rowCount } = await this.#pool.query(
        `SELECT 1 FROM ${this.#n.prompts} WHERE conversation = $1 AND prompt_id = $2 AND state = 'suspended'`,
        [prompt.conversation, promptId],
      );
      if (rowCount !== null && rowCount > 0) return "suspended";
    }
    const again = await this.#open.submit(prompt);
    if (again !== undefined) return again;
    throw Object.assign(
      new Error(`prompt "${promptId}" of conversation ${prompt.conversation} is open already`),
      { code: "23505" },
    );
  }

  /** Renews a live prompt's lease. */
  renew(id: string, leaseMs: number): Promise<undefined> {
    return this.#renew.submit({ id, leaseMs });
  }

  /**
   * Renews the prompt's lease every third of `leaseMs` until {@link LivePrompts.release}: the
   * prompts of one lease length share one timer, and its renewals go in one statement.
   */
  hold(id: string, leaseMs: number): void {
    let group = this.#leases.get(leaseMs);
    if (group === undefined) {
      const ids = new Set<string>();
      const timer = setInterval(
        () => {
          for (const held of ids) void this.renew(held, leaseMs).catch(() => {});
        },
        Math.max(1, Math.floor(leaseMs / 3)),
      );
      timer.unref();
      group = { ids, timer };
      this.#leases.set(leaseMs, group);
    }
    group.ids.add(id);
  }

  /** Stops renewing the prompt's lease. */
  release(id: string, leaseMs: number): void {
    const group = this.#leases.get(leaseMs);
    if (group === undefined) return;
    group.ids.delete(id);
    if (group.ids.size === 0) {
      clearInterval(group.timer);
      this.#leases.delete(leaseMs);
    }
  }

  /** Takes a live prompt out of the inbox if it has a reply. */
  take(id: string): Promise<LiveTaken> {
    return this.#take.submit(id);
  }

  /**
   * Takes a live prompt out of the inbox and returns the reply it got, if any: deleting and
   * reading are one statement, so an answer that arrives as the host gives up waiting is either
   * taken by the host or refused to its sender (`unknown_prompt`), never dropped after being
   * accepted.
   */
  close(id: string): Promise<{ reply: StoredReply | undefined }> {
    return this.#close.submit(id);
  }
}
