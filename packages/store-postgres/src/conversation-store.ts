import { randomUUID } from "node:crypto";
import {
  ConversationStream,
  encodeEventText,
  FileConversationStore,
  isConversationName,
  type SaveOptions,
  type SaveResult,
  type StoredConversation,
  type StoreError,
  type StreamEvent,
} from "@jp/conversation";
import { err, ok, type Result } from "neverthrow";
import type pg from "pg";
import { storedFields } from "./internal/conversation-row.js";
import {
  type Claim,
  runSave,
  saveStatements,
  saveValues,
  type WritePlan,
} from "./internal/inbox-sync.js";
import { describe, type Names, namesFor, schemaProblem } from "./internal/sql.js";

/** Options of {@link PostgresConversationStore}. */
export interface PostgresStoreOptions {
  /** The PostgreSQL schema of the tables, as given to `migrate` (default `jp`). */
  readonly schema?: string;
}

// What this store last read or wrote of a stream: the events by identity, so a save writes only
// entries appended or replaced since (setMetadata replaces the entry object at its index), and
// the revision they are stored at, the only one a save may write such a difference over.
interface Snapshot {
  readonly store: PostgresConversationStore;
  readonly name: string;
  revision: string;
  readonly events: StreamEvent[];
}
const snapshots = new WeakMap<ConversationStream, Snapshot>();

// `create` names conversations exactly as the file store does (JP's `<id>-<slug>`); it touches
// no file.
const namer = new FileConversationStore(".");

interface ConversationRow {
  metadata: unknown;
  base_config: unknown;
  layout: StoredConversation["layout"];
  revision: string;
  event_count: number;
  events: string;
  rows: string;
  last: number | null;
}

/**
 * Conversations in PostgreSQL with the contract of `FileConversationStore`: `create`, `load`,
 * `save`, `list`, `revision`, the same `StoredConversation` and the same `StoreError` kinds.
 * Saves are compare-and-write against the revision the conversation was loaded with (one of two
 * concurrent saves gets a `conflict`, nothing written), and write only what changed: appending to
 * a 100,000-event conversation inserts the new events, and an entry whose metadata changed is
 * rewritten in place. Each save also keeps the inbox of pending prompts in step with the stream.
 *
 * @example
 * const store = new PostgresConversationStore(pool); // after `await migrate(pool)`
 * const conversation = store.create({ title: "Deploy" });
 * conversation.stream.startTurn("Ship it");
 * const saved = await store.save(conversation); // Err({ kind: "conflict" }) if someone saved since
 */
export class PostgresConversationStore {
  readonly #pool: pg.Pool;
  readonly #n: Names;
  readonly #save: ReturnType<typeof saveStatements>;

  /** @throws {TypeError} when `options.schema` is not a plain identifier (a programming error). */
  constructor(pool: pg.Pool, options: PostgresStoreOptions = {}) {
    const schema = options.schema ?? "jp";
    const problem = schemaProblem(schema);
    if (problem !== undefined) throw new TypeError(problem);
    this.#pool = pool;
    this.#n = namesFor(schema);
    this.#save = saveStatements(this.#n);
  }

  /** A new, empty conversation (not yet saved), named `<id>-<slug>` like JP's. */
  create(options: { readonly title?: string; readonly now?: Date } = {}): StoredConversation {
    return namer.create(options);
  }

  /** The names of all conversations, sorted as the file store sorts them. */
  async list(): Promise<Result<string[], StoreError>> {
    try {
      const { rows } = await this.#pool.query<{ name: string }>(
        `SELECT name FROM ${this.#n.conversations}`,
      );
      return ok(rows.map((r) => r.name).sort());
    } catch (cause) {
      return err(this.#io("", "cannot list the conversations", cause));
    }
  }

  /**
   * Loads a conversation, its events in one consistent read. A name outside JP's grammar is an
   * `invalid-id` error; a missing conversation `not-found`; stored events, metadata or base
   * configuration `FileConversationStore` would not load from its files `corrupt`.
   */
  async load(name: string): Promise<Result<StoredConversation, StoreError>> {
    const bad = this.#checkName(name);
    if (bad !== undefined) return err(bad);
    let row: ConversationRow | undefined;
    try {
      // One statement, so the events are those of the revision read with them. As text: the
      // column keeps each event as written, and an integer past 2^53 or a -0.0 in it must not be
      // read as a double (see ConversationStream.decodeText).
      const result = await this.#pool.query<ConversationRow>(
        `SELECT c.metadata, c.base_config, c.layout, c.revision, c.event_count,
                e.events, e.rows, e.last
           FROM ${this.#n.conversations} c,
           LATERAL (SELECT coalesce(json_agg(event ORDER BY seq), '[]'::json)::text AS events,
                           count(*) AS rows, max(seq) AS last
                      FROM ${this.#n.events} WHERE conversation = c.name) e
          WHERE c.name = $1`,
        [name],
      );
      row = result.rows[0];
    } catch (cause) {
      return err(this.#io(name, `cannot load conversation ${name}`, cause));
    }
    if (row === undefined) {
      return err({ kind: "not-found", path: this.#path(name), message: `no conversation ${name}` });
    }
    const count = Number(row.rows);
    if (count !== row.event_count || (row.last ?? -1) !== count - 1) {
      return err(
        this.#corrupt(name, `expected events 0 to ${row.event_count - 1}, found ${count}`),
      );
    }
    const fields = storedFields(row.metadata, row.base_config);
    if (fields.isErr()) return err(this.#corrupt(name, fields.error));
    const stream = ConversationStream.decodeText(row.events);
    if (stream.isErr()) return err(this.#corrupt(name, stream.error.message));
    snapshots.set(stream.value, {
      store: this,
      name,
      revision: row.revision,
      events: stream.value.events.slice(),
    });
    return ok({
      name,
      metadata: fields.value.metadata,
      baseConfig: fields.value.baseConfig,
      layout: row.layout,
      stream: stream.value,
      revision: row.revision,
    });
  }

  /** The current revision of a conversation (`null` if there is none of that name). */
  async revision(name: string): Promise<Result<string | null, StoreError>> {
    const bad = this.#checkName(name);
    if (bad !== undefined) return err(bad);
    try {
      const { rows } = await this.#pool.query<{ revision: string }>(
        `SELECT revision FROM ${this.#n.conversations} WHERE name = $1`,
        [name],
      );
      return ok(rows[0]?.revision ?? null);
    } catch (cause) {
      return err(this.#io(name, `cannot read the revision of ${name}`, cause));
    }
  }

  /**
   * Saves a conversation if and only if it is still at `options.expectedRevision`, by default
   * `conversation.revision` (never saved: no conversation of that name may exist); otherwise a
   * `conflict` error and nothing is written. On success `conversation.revision` is the new
   * revision. Only entries appended or replaced since this store loaded or saved the stream are
   * written; a stream it does not know, or one saved over a revision other than the one it was
   * loaded or last saved at, is written whole. The stream is written as it is when `save` is
   * called: entries appended while the save is under way go with the next. `lockTimeoutMs` is
   * accepted for compatibility and not used: PostgreSQL's row lock orders concurrent saves.
   */
  async save(
    conversation: StoredConversation,
    options: SaveOptions = {},
  ): Promise<Result<SaveResult, StoreError>> {
    const { name, stream } = conversation;
    const bad = this.#checkName(name);
    if (bad !== undefined) return err(bad);
    const expected =
      options.expectedRevision !== undefined
        ? options.expectedRevision
        : (conversation.revision ?? null);
    const known = snapshots.get(stream);
    // A difference is only good over the revision it was taken from: over any other (a newer one
    // named by `expectedRevision`) the stream is written whole, as the file store writes it.
    const snapshot =
      known?.store === this && known.name === name && known.revision === expected
        ? known
        : undefined;
    let plan: Plan;
    try {
      plan = planWrite(stream.events, snapshot);
    } catch (cause) {
      return err(
        this.#corrupt(name, `the conversation cannot be stored as JSON: ${describe(cause)}`),
      );
    }
    const revision = randomUUID();
    const claim: Claim = expected === null ? "insert" : "update";
    try {
      const fields = {
        name,
        metadata: JSON.stringify(conversation.metadata),
        baseConfig:
          conversation.baseConfig === undefined ? null : JSON.stringify(conversation.baseConfig),
        layout: conversation.layout,
        revision,
        eventCount: plan.length,
      };
      const values = saveValues(this.#n, fields, plan, stream, expected, new Date());
      if (!(await runSave(this.#pool, this.#save[claim], values))) {
        const { rows } = await this.#pool.query<{ revision: string }>(
          `SELECT revision FROM ${this.#n.conversations} WHERE name = $1`,
          [name],
        );
        return err(this.#conflict(name, expected, rows[0]?.revision ?? null));
      }
    } catch (cause) {
      return err(this.#io(name, `cannot save conversation ${name}`, cause));
    }
    conversation.revision = revision;
    if (snapshot !== undefined) {
      // Brought up to date in place: copying a long stream's entries on every save would cost
      // in proportion to its length.
      updateSnapshot(snapshot.events, plan);
      snapshot.revision = revision;
    } else {
      snapshots.set(stream, { store: this, name, revision, events: plan.entries.slice() });
    }
    return ok({ revision });
  }

  #checkName(name: unknown): StoreError | undefined {
    if (isConversationName(name as string)) return undefined;
    return {
      kind: "invalid-id",
      path: this.#path(""),
      message: `${JSON.stringify(name)} is not a conversation name: expected <id> or <id>-<slug>, where the id is digits and the slug letters, digits and "-"`,
    };
  }

  #path(name: string): string {
    return `postgres:${this.#n.schema}/${name}`;
  }

  #io(name: string, what: string, cause: unknown): StoreError {
    return { kind: "io", path: this.#path(name), message: `${what}: ${describe(cause)}`, cause };
  }

  #corrupt(name: string, reason: string): StoreError {
    return {
      kind: "corrupt",
      path: this.#path(name),
      message: `conversation ${name} is corrupt: ${reason}`,
    };
  }

  #conflict(name: string, expected: string | null, found: string | null): StoreError {
    const what =
      expected === null
        ? `conversation ${name} already exists`
        : found === null
          ? `conversation ${name} is gone since it was loaded`
          : `conversation ${name} was saved by another writer since it was loaded`;
    return {
      kind: "conflict",
      path: this.#path(name),
      message: `${what}; nothing was written: load it again, apply the change and save that`,
      expectedRevision: expected,
      currentRevision: found,
    };
  }
}

// What a save writes, and the entries it writes as they were when the save began: the stream
// may grow while the statement runs, and what is recorded as written must be what was.
interface Plan extends WritePlan {
  /** The stream's length when the save began. */
  readonly length: number;
  /** The entries replaced in place, by index. */
  readonly changed: readonly (readonly [number, StreamEvent])[];
  /** The entries written from `appendFrom` on. */
  readonly entries: readonly StreamEvent[];
}

// Entries are immutable and replaced as a whole (setMetadata, sanitize): comparing by identity
// with what was last read or written finds every change, at the cost of one pointer compare per
// entry and no serialisation of unchanged ones.
function planWrite(events: readonly StreamEvent[], snapshot: Snapshot | undefined): Plan {
  const length = events.length;
  if (snapshot === undefined) {
    // Written whole: every entry over what is stored, and anything beyond cut off.
    const entries = events.slice();
    return {
      length,
      truncateFrom: length,
      replaced: undefined,
      appended: length === 0 ? undefined : jsonArray(entries),
      appendFrom: 0,
      changed: [],
      entries,
    };
  }
  const before = snapshot.events;
  const common = Math.min(before.length, length);
  const replaced: string[] = [];
  const changed: (readonly [number, StreamEvent])[] = [];
  for (let i = 0; i < common; i++) {
    const event = events[i] as StreamEvent;
    if (event !== before[i]) {
      changed.push([i, event]);
      replaced.push(`[${i},${encodeEventText(event)}]`);
    }
  }
  const entries = events.slice(before.length);
  return {
    length,
    truncateFrom: length < before.length ? length : undefined,
    replaced: replaced.length === 0 ? undefined : `[${replaced.join(",")}]`,
    appended: entries.length === 0 ? undefined : jsonArray(entries),
    appendFrom: before.length,
    changed,
    entries,
  };
}

// Only the entries the plan found changed, cut or appended: no second pass over a long stream.
function updateSnapshot(before: StreamEvent[], plan: Plan): void {
  for (const [i, event] of plan.changed) before[i] = event;
  before.length = Math.min(before.length, plan.length);
  for (const event of plan.entries) before.push(event);
}

// Each event as its JSON text: one decoded holding numbers JSON.parse does not read exactly is
// written as it was read.
function jsonArray(events: readonly StreamEvent[]): string {
  return `[${events.map(encodeEventText).join(",")}]`;
}
