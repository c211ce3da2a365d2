// Where the demo keeps its conversation: JP's directory layout under .jp/conversations (the
// default), or PostgreSQL with `--postgres <url>`, where a suspended turn's prompts wait in the
// inbox of every conversation and are answered through it, exactly once, from any process.
import { join, resolve } from "node:path";
import { FileConversationStore, type StoredConversation } from "@jp/conversation";
import { answerPendingPromptInStore, listPendingPrompts, type StoredReply } from "@jp/coordinator";

/** What went wrong, in a sentence for the terminal; `kind` as the store names it. */
export interface DemoStoreError {
  readonly kind: string;
  readonly message: string;
}

type Outcome<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly error: DemoStoreError };

/** The demo's conversation store, whichever it is. */
export interface DemoStore {
  /** The options that pick this store, for the commands printed to go on ("" for files). */
  readonly option: string;
  /** What names the conversation on the command line: its directory, or its name in PostgreSQL. */
  where(conversation: StoredConversation): string;
  /** Where it was written, for the last line of the demo. */
  describe(conversation: StoredConversation): string;
  /** A new conversation, not saved yet. */
  create(title: string): StoredConversation;
  /** The conversation a command-line argument names. */
  open(arg: string): Promise<Outcome<StoredConversation>>;
  save(conversation: StoredConversation): Promise<Outcome<void>>;
  /** Answers one pending prompt, exactly once. */
  answer(arg: string, promptId: string, reply: StoredReply): Promise<Outcome<void>>;
  /** The pending prompts of a conversation, as JSON-ready values. */
  pending(arg: string): Promise<Outcome<readonly unknown[]>>;
  /** Lets go of the database connections, if any. */
  close(): Promise<void>;
}

const ok = <T>(value: T): Outcome<T> => ({ ok: true, value });
const failed = <T>(error: DemoStoreError): Outcome<T> => ({ ok: false, error });

/**
 * The store the command line picks: PostgreSQL at `postgres` (migrated on first use), else the
 * file store under `out` (default `.jp/conversations` in the working directory), or the one
 * holding the directory a command names.
 */
export async function openDemoStore(options: {
  readonly postgres: string | undefined;
  readonly out: string | undefined;
}): Promise<Outcome<DemoStore>> {
  if (options.postgres !== undefined) return openPostgres(options.postgres);
  return ok(fileStore(options.out));
}

function fileStore(out: string | undefined): DemoStore {
  // A directory on the command line names its own store: its parent. A new conversation goes
  // under `out`.
  const locate = (dir: string) => {
    const path = resolve(dir);
    const store = new FileConversationStore(join(path, ".."));
    return { store, name: path.slice(store.root.length + 1) };
  };
  let current = new FileConversationStore(out ?? join(process.cwd(), ".jp/conversations"));
  return {
    option: "",
    where: (conversation) => join(current.root, conversation.name),
    describe: (conversation) => join(current.root, conversation.name),
    create: (title) => current.create({ title }),
    async open(dir) {
      const { store, name } = locate(dir);
      const loaded = await store.load(name);
      if (loaded.isErr()) return failed(loaded.error);
      current = store;
      return ok(loaded.value);
    },
    async save(conversation) {
      const saved = await current.save(conversation);
      return saved.isErr() ? failed(saved.error) : ok(undefined);
    },
    async answer(dir, promptId, reply) {
      const { store, name } = locate(dir);
      // Load, answer, save; if another process saved first, load again and answer again.
      const answered = await answerPendingPromptInStore(store, name, promptId, reply);
      return answered.isErr() ? failed(answered.error) : ok(undefined);
    },
    async pending(dir) {
      const opened = await this.open(dir);
      return opened.ok ? ok(listPendingPrompts(opened.value.stream)) : opened;
    },
    close: async () => {},
  };
}

async function openPostgres(url: string): Promise<Outcome<DemoStore>> {
  // Loaded only here: the demo without --postgres needs neither pg nor the store.
  const [{ default: pg }, { migrate, PostgresConversationStore, PostgresInbox }] =
    await Promise.all([import("pg"), import("@jp/store-postgres")]);
  let pool: import("pg").Pool;
  try {
    // allowExitOnIdle: the demo ends when its work is done, without closing the pool first.
    pool = new pg.Pool({ connectionString: url, max: 4, allowExitOnIdle: true });
  } catch (cause) {
    return failed({ kind: "database", message: `not a PostgreSQL URL: ${String(cause)}` });
  }
  pool.on("error", () => {}); // an idle connection the server ended: the next query reconnects
  const migrated = await migrate(pool);
  if (migrated.isErr()) {
    await pool.end().catch(() => {});
    return failed(migrated.error);
  }
  const store = new PostgresConversationStore(pool);
  const inbox = new PostgresInbox(pool);
  return ok({
    option: `--postgres ${shown(url)} `,
    where: (conversation) => conversation.name,
    describe: (conversation) => `PostgreSQL as ${conversation.name}`,
    create: (title) => store.create({ title }),
    async open(name) {
      const loaded = await store.load(name);
      return loaded.isErr() ? failed(loaded.error) : ok(loaded.value);
    },
    async save(conversation) {
      const saved = await store.save(conversation);
      return saved.isErr() ? failed(saved.error) : ok(undefined);
    },
    async answer(name, promptId, reply) {
      // Through the inbox: checked as answerPendingPrompt checks it, taken exactly once.
      const answered = await inbox.answer({ conversation: name, promptId, reply });
      return answered.isErr() ? failed(answered.error) : ok(undefined);
    },
    async pending(name) {
      const loaded = await store.load(name);
      if (loaded.isErr()) return failed(loaded.error);
      const listed = await inbox.list({ conversation: name, limit: 1000 });
      return listed.isErr() ? failed(listed.error) : ok(listed.value.prompts);
    },
    async close() {
      await inbox.close();
      await pool.end();
    },
  });
}

// The URL as printed in the commands to go on: a password never reaches the terminal.
function shown(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password === "") return url;
    parsed.password = "***";
    return parsed.toString();
  } catch {
    return "<url>";
  }
}
