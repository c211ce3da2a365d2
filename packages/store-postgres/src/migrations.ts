import { err, ok, type Result } from "neverthrow";
import type pg from "pg";
import type { MigrationError } from "./errors.js";
import { describe, inTransaction, type Names, namesFor, schemaProblem } from "./internal/sql.js";

/** One step of the schema, applied once, in order, in the same transaction as its record. */
interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: (n: Names) => string;
}

// Never edit a shipped step: add the next one. A database records every version it has applied.
const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "conversations, events and the inbox of prompts",
    sql: (n) => `
      CREATE TABLE ${n.conversations} (
        name text PRIMARY KEY,
        metadata json NOT NULL,
        base_config json,
        layout text NOT NULL CHECK (layout IN ('base_config', 'legacy_config_delta')),
        revision text NOT NULL,
        event_count integer NOT NULL DEFAULT 0,
        lease_owner text,
        lease_until timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      -- json, not jsonb: an event is kept as written, key order included.
      CREATE TABLE ${n.events} (
        conversation text NOT NULL REFERENCES ${n.conversations} (name) ON DELETE CASCADE,
        seq integer NOT NULL CHECK (seq >= 0),
        event json NOT NULL,
        PRIMARY KEY (conversation, seq)
      );
      -- One row per open prompt: 'suspended' mirrors a marker saved in the events (answers are
      -- written into the marker too); 'live' is a host waiting in memory, for as long as its lease.
      CREATE TABLE ${n.prompts} (
        id bigserial PRIMARY KEY,
        -- No foreign key: a live prompt may belong to a conversation not saved yet.
        conversation text NOT NULL,
        prompt_id text NOT NULL,
        state text NOT NULL CHECK (state IN ('suspended', 'live')),
        event_seq integer,
        host text,
        live_until timestamptz,
        kind text NOT NULL,
        tool_name text NOT NULL,
        tool_call_id text NOT NULL,
        secret boolean NOT NULL,
        prompt json NOT NULL,
        suspended_at timestamptz NOT NULL,
        deadline timestamptz,
        reply json,
        answered_at timestamptz,
        CHECK ((state = 'suspended') = (event_seq IS NOT NULL)),
        CHECK ((state = 'live') = (live_until IS NOT NULL))
      );
      CREATE UNIQUE INDEX ON ${n.prompts} (conversation, prompt_id);
      CREATE INDEX ON ${n.prompts} (suspended_at, id);
      CREATE INDEX ON ${n.prompts} (tool_name, suspended_at, id);
      CREATE INDEX ON ${n.prompts} (conversation, suspended_at, id);
    `,
  },
  {
    version: 2,
    name: "the channel that wakes the host of a live prompt; one index fewer",
    // Answers to a live prompt are announced on its host's own channel too, so they wake that
    // one process and no other. The conversation's prompts are found by the unique index on
    // (conversation, prompt_id): a second index by conversation only cost every write.
    sql: (n) => `
      ALTER TABLE ${n.prompts} ADD COLUMN wake text;
      DROP INDEX IF EXISTS "${n.schema}".prompts_conversation_suspended_at_id_idx;
    `,
  },
  {
    version: 3,
    name: "room on the inbox's pages for the answers to its prompts",
    // An answer rewrites its prompt's row. With room left on the row's page the new version goes
    // there and no index gets an entry for it (a heap-only update); on a full page each of the
    // table's four indexes gets one. Prompts are short-lived, so half-full pages cost little.
    sql: (n) => `ALTER TABLE ${n.prompts} SET (fillfactor = 50);`,
  },
];

/** The schema version this package writes and reads. */
export const SCHEMA_VERSION = (MIGRATIONS.at(-1) as Migration).version;

/** Options of {@link migrate}. */
export interface MigrateOptions {
  /** The PostgreSQL schema holding the tables (default `jp`); created if missing. */
  readonly schema?: string;
}

/** What {@link migrate} did. */
export interface MigrateResult {
  /** The versions applied by this call, in order (empty: already up to date). */
  readonly applied: readonly number[];
  /** The database's schema version now. */
  readonly version: number;
}

/**
 * Brings the store's tables up to {@link SCHEMA_VERSION}: one transaction, under an advisory lock,
 * so processes starting together apply each step exactly once, and a second call does nothing.
 * A database already migrated by a newer version of this package is left alone (`too-new`).
 *
 * @example
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
 * const migrated = await migrate(pool);
 * if (migrated.isErr()) throw new Error(migrated.error.message);
 */
export async function migrate(
  pool: pg.Pool,
  options: MigrateOptions = {},
): Promise<Result<MigrateResult, MigrationError>> {
  const schema = options.schema ?? "jp";
  const problem = schemaProblem(schema);
  if (problem !== undefined) return err({ kind: "invalid-schema", message: problem });
  const n = namesFor(schema);
  try {
    return await inTransaction<Result<MigrateResult, MigrationError>>(pool, async (client) => {
      // Every migrating process of this schema waits here for the one before it.
      await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`jp-store:${schema}`]);
      await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
      await client.query(
        `CREATE TABLE IF NOT EXISTS ${n.migrations} (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
      );
      const { rows } = await client.query<{ version: number }>(
        `SELECT version FROM ${n.migrations} ORDER BY version`,
      );
      const done = new Set(rows.map((r) => r.version));
      const newest = Math.max(0, ...done);
      if (newest > SCHEMA_VERSION) {
        return err<MigrateResult, MigrationError>({
          kind: "too-new",
          message: `schema "${schema}" is at version ${newest}, newer than this package's ${SCHEMA_VERSION}: upgrade @jp/store-postgres`,
        });
      }
      const applied: number[] = [];
      for (const step of MIGRATIONS) {
        if (done.has(step.version)) continue;
        await client.query(step.sql(n));
        await client.query(`INSERT INTO ${n.migrations} (version, name) VALUES ($1, $2)`, [
          step.version,
          step.name,
        ]);
        applied.push(step.version);
      }
      return ok({ applied, version: SCHEMA_VERSION });
    });
  } catch (cause) {
    return err({
      kind: "database",
      message: `cannot migrate schema "${schema}": ${describe(cause)}`,
      cause,
    });
  }
}
