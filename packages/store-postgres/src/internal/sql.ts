import type pg from "pg";

// Identifiers cannot be bound as parameters: the schema name is checked against a strict
// grammar and quoted, so no text from outside ever reaches SQL unquoted.
const SCHEMA = /^[a-z_][a-z0-9_]{0,49}$/;

/** Why `schema` cannot name the store's schema, or `undefined` if it can. */
export function schemaProblem(schema: unknown): string | undefined {
  if (typeof schema === "string" && SCHEMA.test(schema)) return undefined;
  return `${JSON.stringify(schema)} cannot name the schema: use 1 to 50 of a-z, 0-9 and _, not starting with a digit`;
}

/** The store's tables and its notification channels in one schema. */
export interface Names {
  readonly schema: string;
  readonly conversations: string;
  readonly events: string;
  readonly prompts: string;
  readonly migrations: string;
  /** The channel of new prompts, unquoted (as `pg_notify` takes it). */
  readonly channel: string;
  /**
   * The channel of answers in a conversation: one of {@link ANSWER_CHANNELS}, chosen by the
   * conversation's name, so a host waiting on one conversation hears few answers of others.
   */
  readonly answered: (conversation: string) => string;
  /** Every answer channel. */
  readonly allAnswered: readonly string[];
}

/** How many channels answers are spread over. */
export const ANSWER_CHANNELS = 32;

// FNV-1a over the UTF-16 code units: the same bucket in every process, cheap to compute.
function bucketOf(conversation: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < conversation.length; i++) {
    hash ^= conversation.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % ANSWER_CHANNELS;
}

/** The qualified, quoted names in `schema` (checked with {@link schemaProblem} first). */
export function namesFor(schema: string): Names {
  const q = (table: string) => `"${schema}"."${table}"`;
  return {
    schema,
    conversations: q("conversations"),
    events: q("events"),
    prompts: q("prompts"),
    migrations: q("schema_migrations"),
    channel: `${schema}_inbox`,
    answered: (conversation) => `${schema}_answered_${bucketOf(conversation)}`,
    allAnswered: Array.from({ length: ANSWER_CHANNELS }, (_, i) => `${schema}_answered_${i}`),
  };
}

/** Anything that runs queries: a pool or one checked-out client. */
export type Queryable = Pick<pg.Pool, "query"> | pg.PoolClient;

/**
 * Runs `body` in a transaction on one client of the pool; rolls back when it throws or returns
 * `{ rollback: true }`-marked results (see {@link Rollback}).
 */
export async function inTransaction<T>(
  pool: pg.Pool,
  body: (client: pg.PoolClient) => Promise<T | Rollback<T>>,
  begin = "BEGIN",
): Promise<T> {
  const client = await pool.connect();
  let broken: unknown;
  try {
    await client.query(begin);
    const result = await body(client);
    if (result instanceof Rollback) {
      await client.query("ROLLBACK");
      return result.value;
    }
    await client.query("COMMIT");
    return result;
  } catch (cause) {
    broken = cause;
    await client.query("ROLLBACK").catch(() => {});
    throw cause;
  } finally {
    // A client whose connection failed must not go back to the pool.
    client.release(isConnectionError(broken) ? (broken as Error) : undefined);
  }
}

/** A transaction's result that rolls it back (an expected failure, returned as a value). */
export class Rollback<T> {
  constructor(readonly value: T) {}
}

/** Whether an error means the connection is gone (server restarting, network), not the query. */
export function isConnectionError(cause: unknown): boolean {
  if (cause === undefined || cause === null) return false;
  const code = (cause as { code?: unknown }).code;
  if (typeof code === "string") {
    // 57P01-03: admin shutdown, crash shutdown, cannot connect now; 08xxx: connection exceptions.
    if (/^(57P0[1-3]|08\w{3})$/.test(code)) return true;
    if (["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "ENOTFOUND"].includes(code)) {
      return true;
    }
  }
  const message = cause instanceof Error ? cause.message : String(cause);
  return /Connection terminated|not queryable|connection error|Client was closed/i.test(message);
}

/** The driver's error in one line, for a message. */
export function describe(cause: unknown): string {
  if (cause instanceof Error) {
    const code = (cause as { code?: unknown }).code;
    return typeof code === "string" ? `${cause.message} (${code})` : cause.message;
  }
  return String(cause);
}
