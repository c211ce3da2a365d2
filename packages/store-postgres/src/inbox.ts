import { isConversationName } from "@jp/conversation";
import type { PendingPrompt, StoredReply } from "@jp/coordinator";
import { err, ok, type Result } from "neverthrow";
import type pg from "pg";
import type { InboxError } from "./errors.js";
import { type Answered, Answers, answerInTransaction } from "./internal/answer.js";
import { named } from "./internal/batch.js";
import { LivePrompts } from "./internal/live.js";
import { describe, inTransaction, type Names, namesFor, schemaProblem } from "./internal/sql.js";
import { waitFor } from "./internal/wait.js";
import { InboxListener, type InboxListenerOptions } from "./listener.js";

/** A prompt in the inbox: the coordinator's `PendingPrompt`, and where it stands. */
export interface InboxPrompt extends PendingPrompt {
  readonly conversation: string;
  /** `suspended`: saved in the conversation; `live`: a host waits for it in memory. */
  readonly state: "suspended" | "live";
  /** A secret question: listed, never answerable through the inbox (see the README). */
  readonly secret: boolean;
  /** When the answer was taken (ISO 8601). */
  readonly answered_at?: string;
}

/** What {@link PostgresInbox.list} selects, and how it pages. */
export interface InboxListOptions {
  readonly conversation?: string;
  readonly toolName?: string;
  readonly kind?: PendingPrompt["kind"];
  readonly state?: InboxPrompt["state"];
  /** Only answered (`true`) or only unanswered (`false`) prompts. */
  readonly answered?: boolean;
  /** By age: `oldest` first (default) or `newest` first. */
  readonly order?: "oldest" | "newest";
  /** Page size, 1 to 1,000 (default 50). */
  readonly limit?: number;
  /** The `next` of the previous page. */
  readonly cursor?: string;
}

/** One page of prompts; `next` is there when more follow. */
export interface InboxPage {
  readonly prompts: readonly InboxPrompt[];
  readonly next?: string;
}

/** Options of {@link PostgresInbox}. */
export interface PostgresInboxOptions {
  /** The PostgreSQL schema of the tables, as given to `migrate` (default `jp`). */
  readonly schema?: string;
  /** Of the listener the inbox starts on its first wait. */
  readonly listener?: InboxListenerOptions;
}

/** Options of {@link PostgresInbox.waitForAnswer}. */
export interface WaitOptions {
  readonly signal?: AbortSignal;
  /** Give up after this long (`timeout` error); no limit by default. */
  readonly timeoutMs?: number;
}

interface Row {
  id: string;
  conversation: string;
  state: InboxPrompt["state"];
  secret: boolean;
  prompt: PendingPrompt;
  deadline: Date | null;
  expired: boolean;
  answered: boolean;
  answered_at: Date | null;
  cursor: string;
}

// A timestamptz as PostgreSQL prints it, e.g. `2026-11-23 21:49:20.123456+00`.
const TIMESTAMP =
  /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.\d{1,6})?[+-](\d{2})(?::(\d{2}))?(?::(\d{2}))?$/;
const MAX_BIGINT = 9223372036854775807n;

/**
 * The pending prompts of every conversation in the database, in one place: listed by
 * conversation, tool, kind and age, a page at a time; answered from any process, exactly once;
 * waited on through `LISTEN`/`NOTIFY`. Suspended prompts come from conversations saved with
 * {@link PostgresConversationStore}; live ones from hosts waiting through `createInboxPrompts`.
 *
 * @example
 * const inbox = new PostgresInbox(pool);
 * const { prompts } = (await inbox.list({ order: "oldest" }))._unsafeUnwrap();
 * const first = prompts[0];
 * if (first) await inbox.answer({ conversation: first.conversation, promptId: first.prompt_id, reply: { type: "answer", value: "pro" } });
 */
export class PostgresInbox {
  readonly #pool: pg.Pool;
  readonly #n: Names;
  readonly #listenerOptions: InboxListenerOptions;
  #listener: InboxListener | undefined;
  #answers: Answers | undefined;

  /** @throws {TypeError} when `options.schema` is not a plain identifier (a programming error). */
  constructor(pool: pg.Pool, options: PostgresInboxOptions = {}) {
    const schema = options.schema ?? "jp";
    const problem = schemaProblem(schema);
    if (problem !== undefined) throw new TypeError(problem);
    this.#pool = pool;
    this.#n = namesFor(schema);
    this.#listenerOptions = options.listener ?? {};
    const n = this.#n;
    let live: LivePrompts | undefined;
    internals.set(this, {
      pool,
      names: n,
      get live() {
        live ??= new LivePrompts(pool, n);
        return live;
      },
    });
  }

  /**
   * The listener behind the waits, started on first use. For a live inbox view, handle its
   * `notice` events after `listener().subscribe({ pending: true, allAnswers: true })`.
   */
  listener(): InboxListener {
    if (this.#listener === undefined) {
      this.#listener = new InboxListener(this.#pool, this.#n, this.#listenerOptions);
      void this.#listener.start();
    }
    return this.#listener;
  }

  /** Stops the listener, if one was started. The pool is the host's: it stays open. */
  async close(): Promise<void> {
    await this.#listener?.close();
    this.#listener = undefined;
  }

  /** One page of open prompts (a live prompt whose host went away is not listed). */
  async list(options: InboxListOptions = {}): Promise<Result<InboxPage, InboxError>> {
    const limit = options.limit ?? 50;
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
      return err(invalid(`"limit" must be an integer from 1 to 1000, not ${String(limit)}`));
    }
    if (options.conversation !== undefined && !isConversationName(options.conversation)) {
      return err(invalid(`${JSON.stringify(options.conversation)} is not a conversation name`));
    }
    const newest = options.order === "newest";
    const where = ["(state = 'suspended' OR live_until > now())"];
    const params: unknown[] = [];
    const add = (sql: string, value: unknown) => {
      params.push(value);
      where.push(sql.replace("?", `$${params.length}`));
    };
    if (options.conversation !== undefined) add("conversation = ?", options.conversation);
    if (options.toolName !== undefined) add("tool_name = ?", options.toolName);
    if (options.kind !== undefined) add("kind = ?", options.kind);
    if (options.state !== undefined) add("state = ?", options.state);
    if (options.answered !== undefined) {
      where.push(options.answered ? "reply IS NOT NULL" : "reply IS NULL");
    }
    if (options.cursor !== undefined) {
      const cursor = decodeCursor(options.cursor);
      if (cursor === undefined) return err(invalid('"cursor" is not one this inbox gave out'));
      params.push(cursor[0], cursor[1]);
      const op = newest ? "<" : ">";
      where.push(
        `(suspended_at, id) ${op} ($${params.length - 1}::timestamptz, $${params.length}::bigint)`,
      );
    }
    params.push(limit + 1);
    const dir = newest ? "DESC" : "ASC";
    try {
      const { rows } = await this.#pool.query<Row>(
        named(
          `SELECT ${COLUMNS} FROM ${this.#n.prompts} WHERE ${where.join(" AND ")}
          ORDER BY suspended_at ${dir}, id ${dir} LIMIT $${params.length}`,
          params,
        ),
      );
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      return ok({
        prompts: page.map(viewOf),
        ...(rows.length > limit && last !== undefined ? { next: encodeCursor(last) } : {}),
      });
    } catch (cause) {
      return err(database("cannot list the inbox", cause));
    }
  }

  /** One open prompt, or an `unknown_prompt` error. */
  async get(conversation: string, promptId: string): Promise<Result<InboxPrompt, InboxError>> {
    const bad = checkTarget(conversation, promptId);
    if (bad !== undefined) return err(bad);
    try {
      const { rows } = await this.#pool.query<Row>(
        named(
          `SELECT ${COLUMNS} FROM ${this.#n.prompts}
          WHERE conversation = $1 AND prompt_id = $2 AND (state = 'suspended' OR live_until > now())`,
          [conversation, promptId],
        ),
      );
      const row = rows[0];
      if (row === undefined) {
        return err({
          kind: "unknown_prompt",
          promptId,
          message: `no open prompt "${promptId}" in conversation ${conversation}`,
        });
      }
      return ok(viewOf(row));
    } catch (cause) {
      return err(database(`cannot read prompt "${promptId}"`, cause));
    }
  }

  /**
   * Answers one prompt, checked exactly as `answerPendingPrompt` checks a reply, and exactly
   * once: of two processes answering the same prompt one succeeds and the other gets
   * `already_answered`. A typed error writes nothing. A secret's answer is refused
   * (`secret_not_stored`) before anything is sent to the database. Waiting hosts and resumers
   * are notified when the answer is committed.
   */
  async answer(target: {
    readonly conversation: string;
    readonly promptId: string;
    readonly reply: StoredReply;
    readonly now?: Date;
  }): Promise<Result<InboxPrompt, InboxError>> {
    const { conversation, promptId } = target;
    const bad = checkTarget(conversation, promptId);
    if (bad !== undefined) return err(bad);
    const now = target.now ?? new Date();
    try {
      const input = { conversation, promptId, reply: target.reply, now };
      this.#answers ??= new Answers(this.#pool, this.#n);
      const answered =
        (await this.#answers.answer(input)) ??
        (await inTransaction<Result<Answered, InboxError>>(this.#pool, (client) =>
          answerInTransaction(client, this.#n, input),
        ));
      if (answered.isErr()) return err(answered.error);
      const { prompt, state, secret, answeredAt } = answered.value;
      return ok({
        ...prompt,
        expired: false,
        answered: true,
        conversation,
        state,
        secret,
        answered_at: answeredAt,
      });
    } catch (cause) {
      return err(database(`cannot answer prompt "${promptId}"`, cause));
    }
  }

  /**
   * Resolves when a prompt of `conversation` (or the one `promptId` names) has an answer: at
   * once if it has one already, else within milliseconds of the answer's commit (`NOTIFY`).
   * Wake-ups survive a dropped connection: the listener reconnects and the inbox is looked at
   * again. Errors: `unknown_prompt` when the prompt is not open, `timeout`, `cancelled`.
   */
  async waitForAnswer(
    target: { readonly conversation: string; readonly promptId?: string },
    options: WaitOptions = {},
  ): Promise<Result<InboxPrompt, InboxError>> {
    const bad = checkTarget(target.conversation, target.promptId ?? "-");
    if (bad !== undefined) return err(bad);
    const listener = this.listener();
    return waitFor({
      listener,
      subscribe: () => listener.subscribe({ conversations: [target.conversation] }),
      conversation: target.conversation,
      matches: (notice) =>
        notice.event === "answered" &&
        notice.conversation === target.conversation &&
        (target.promptId === undefined ||
          notice.promptId === undefined ||
          notice.promptId === target.promptId),
      check: () => this.#answered(target),
      ...options,
    });
  }

  // The answered prompt waited for; `undefined` while there is none (or the database is away).
  async #answered(target: {
    readonly conversation: string;
    readonly promptId?: string;
  }): Promise<Result<InboxPrompt, InboxError> | undefined> {
    if (target.promptId !== undefined) {
      const got = await this.get(target.conversation, target.promptId);
      if (got.isErr()) return got.error.kind === "database" ? undefined : got;
      return got.value.answered ? got : undefined;
    }
    const page = await this.list({ conversation: target.conversation, answered: true, limit: 1 });
    if (page.isErr()) return undefined;
    const first = page.value.prompts[0];
    return first === undefined ? undefined : ok(first);
  }

  /**
   * Takes the lease of one conversation whose suspended turn can go on (a prompt answered or past
   * its deadline) and returns its name, or `undefined` when there is none. Workers call it in a
   * loop: no two hold the same conversation at once, and when a worker dies its lease runs out
   * after `leaseMs` and another worker takes the turn. Leasing changes no revision.
   */
  async claimResume(options: {
    readonly worker: string;
    readonly leaseMs: number;
  }): Promise<Result<string | undefined, InboxError>> {
    if (!(Number.isInteger(options.leaseMs) && options.leaseMs > 0)) {
      return err(invalid('"leaseMs" must be a positive integer'));
    }
    const n = this.#n;
    try {
      const { rows } = await this.#pool.query<{ name: string }>(
        `UPDATE ${n.conversations} c
            SET lease_owner = $1, lease_until = now() + $2 * interval '1 millisecond'
          WHERE c.name = (
            SELECT c2.name FROM ${n.conversations} c2
             WHERE (c2.lease_until IS NULL OR c2.lease_until < now())
               AND EXISTS (SELECT 1 FROM ${n.prompts} p
                            WHERE p.conversation = c2.name AND p.state = 'suspended'
                              AND (p.reply IS NOT NULL OR p.deadline <= now()))
             ORDER BY c2.updated_at LIMIT 1 FOR UPDATE SKIP LOCKED)
          RETURNING c.name`,
        [options.worker, options.leaseMs],
      );
      return ok(rows[0]?.name);
    } catch (cause) {
      return err(database("cannot claim a conversation to resume", cause));
    }
  }

  /** Gives a lease back (after the resumed turn is saved), if `worker` still holds it. */
  async releaseResume(conversation: string, worker: string): Promise<Result<void, InboxError>> {
    try {
      await this.#pool.query(
        `UPDATE ${this.#n.conversations} SET lease_owner = NULL, lease_until = NULL
          WHERE name = $1 AND lease_owner = $2`,
        [conversation, worker],
      );
      return ok(undefined);
    } catch (cause) {
      return err(database(`cannot release conversation ${conversation}`, cause));
    }
  }
}

/** What the prompt backend of this package uses of an inbox (not public). */
interface InboxInternals {
  readonly pool: pg.Pool;
  readonly names: Names;
  /** The inbox's live prompts, whose statements go to the server together. */
  readonly live: LivePrompts;
}
const internals = new WeakMap<PostgresInbox, InboxInternals>();

/** The pool, table names and live prompts behind an inbox. */
export function inboxInternals(inbox: PostgresInbox): InboxInternals {
  const found = internals.get(inbox);
  if (found === undefined) throw new TypeError("not a PostgresInbox");
  return found;
}

const COLUMNS = `id, conversation, state, secret, prompt, deadline, answered_at,
  reply IS NOT NULL AS answered,
  (reply IS NULL AND deadline IS NOT NULL AND deadline <= now()) AS expired,
  json_build_array(suspended_at::text, id)::text AS cursor`;

function viewOf(row: Row): InboxPrompt {
  return {
    ...row.prompt,
    expired: row.expired,
    answered: row.answered,
    conversation: row.conversation,
    state: row.state,
    secret: row.secret,
    ...(row.answered_at === null ? {} : { answered_at: row.answered_at.toISOString() }),
  };
}

function encodeCursor(row: Row): string {
  return Buffer.from(row.cursor, "utf-8").toString("base64url");
}

function decodeCursor(cursor: string): [string, string] | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf-8"));
    if (!Array.isArray(value) || value.length !== 2) return undefined;
    const [at, id] = value as unknown[];
    if (typeof at !== "string" || !isTimestamp(at)) return undefined;
    // Every cursor this package gives out, and nothing PostgreSQL would refuse: a bigint row id.
    if (typeof id === "number") {
      return Number.isSafeInteger(id) && id >= 0 ? [at, String(id)] : undefined;
    }
    if (typeof id !== "string" || !/^\d{1,19}$/.test(id) || BigInt(id) > MAX_BIGINT) {
      return undefined;
    }
    return [at, id];
  } catch {
    return undefined;
  }
}

// The shape alone lets through dates PostgreSQL refuses (a 13th month, February 30, hour 99):
// each field is held to its range, as the server will.
function isTimestamp(text: string): boolean {
  const match = TIMESTAMP.exec(text);
  if (match === null) return false;
  const [year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0, tz = 0, tzm = 0, tzs = 0] =
    match.slice(1).map((field) => Number(field ?? "0"));
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
  return (
    year >= 1 &&
    days !== undefined &&
    day >= 1 &&
    day <= days &&
    hour <= 23 &&
    minute <= 59 &&
    second <= 59 &&
    tz <= 15 &&
    tzm <= 59 &&
    tzs <= 59
  );
}

function checkTarget(conversation: unknown, promptId: unknown): InboxError | undefined {
  if (typeof conversation !== "string" || !isConversationName(conversation)) {
    return invalid(`${JSON.stringify(conversation)} is not a conversation name`);
  }
  // No upper bound: every prompt id a save put in the inbox can be fetched and answered.
  if (typeof promptId !== "string" || promptId === "") {
    return invalid("the prompt id must be a non-empty string");
  }
  return undefined;
}

function invalid(message: string): InboxError {
  return { kind: "invalid_input", message };
}

function database(what: string, cause: unknown): InboxError {
  return { kind: "database", message: `${what}: ${describe(cause)}`, cause };
}
