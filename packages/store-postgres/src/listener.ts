import { randomBytes } from "node:crypto";
import { EventEmitter } from "eventemitter3";
import type pg from "pg";
import { parseNotices } from "./internal/notify.js";
import type { Names } from "./internal/sql.js";

/** One inbox notification: a prompt was added (`pending`) or answered (`answered`). */
export interface InboxNotice {
  readonly event: "pending" | "answered";
  /** The prompt's row id in the inbox. */
  readonly id: string;
  readonly conversation: string;
  /** Absent when the id was too long for a notification payload. */
  readonly promptId?: string;
}

/** Events of an {@link InboxListener}. */
export interface InboxListenerEvents {
  /** A notification of a subscribed kind (see {@link InboxListener.subscribe}). */
  notice: [notice: InboxNotice];
  /**
   * Listening (again). Notifications sent while the connection was down are lost, so whoever
   * waits must look at the inbox again now: the inbox's waits do.
   */
  connected: [];
  /** The connection was lost; reconnecting follows by itself. */
  disconnected: [cause: unknown];
}

/** Options of {@link InboxListener}. */
export interface InboxListenerOptions {
  /**
   * How often the idle connection is checked with a query (default 10 s): a connection that died
   * without telling (a network cut) is noticed within about twice this.
   */
  readonly heartbeatMs?: number;
  /** The longest pause between reconnection attempts (default 2 s); the first is after 50 ms. */
  readonly maxReconnectDelayMs?: number;
  /**
   * How long a channel nobody subscribes to any more is still listened on (default 5 s): a host
   * asking one question after another in a conversation then subscribes without a `LISTEN`
   * round trip each time. `0` gives channels up at once.
   */
  readonly lingerMs?: number;
}

/** What to hear: new prompts, answers in some conversations, or every answer. */
export interface NoticeSelection {
  readonly pending?: boolean;
  readonly conversations?: readonly string[];
  readonly allAnswers?: boolean;
}

/** A subscription: `ready` once the server delivers its notifications; `close` ends it. */
export interface NoticeSubscription {
  /** Resolves once listening on every channel of the selection (after a reconnection if down). */
  readonly ready: Promise<void>;
  /** Whether every channel was listened on already when subscribing. */
  readonly wasListening: boolean;
  close(): void;
}

// The package's access to a listener's own channel (assigned in the class's static block).
let wakeOf: (listener: InboxListener) => string;
let subscribeWake: (listener: InboxListener) => NoticeSubscription;
let wakeActive: (listener: InboxListener) => boolean;
let setWakeHook: (listener: InboxListener, hook: (notice: InboxNotice) => void) => void;

/** The channel that wakes this listener's hosts: answers to their live prompts. */
export function wakeChannel(listener: InboxListener): string {
  return wakeOf(listener);
}

/** Hears the listener's own channel until `close()` of the subscription. */
export function listenForWake(listener: InboxListener): NoticeSubscription {
  return subscribeWake(listener);
}

/** Whether the server delivers the listener's own channel now (connected, `LISTEN` done). */
export function isWakeListened(listener: InboxListener): boolean {
  return wakeActive(listener);
}

/**
 * Calls `hook` with every notice heard on the listener's own channel, before the `notice` event
 * (one hook per listener: the live prompts waiting through it).
 */
export function onWake(listener: InboxListener, hook: (notice: InboxNotice) => void): void {
  setWakeHook(listener, hook);
}

/**
 * `LISTEN` on the inbox's channels over one connection taken from the host's pool, held until
 * {@link InboxListener.close}. New prompts go to one channel and answers to one of 32 by
 * conversation, so a host waiting on its own conversations is not woken by every answer. A lost
 * connection (a restart of the server, a network cut found by the heartbeat) is replaced, the
 * channels are listened on again, and `connected` is emitted so waiters look again for what they
 * may have missed. Made by `PostgresInbox.listener()`.
 *
 * @example
 * const listener = inbox.listener();
 * listener.on("notice", (n) => console.log(n.event, n.conversation, n.promptId));
 * await listener.subscribe({ pending: true, allAnswers: true }).ready;
 */
export class InboxListener extends EventEmitter<InboxListenerEvents> {
  readonly #pool: pg.Pool;
  readonly #names: Names;
  readonly #heartbeatMs: number;
  readonly #maxDelayMs: number;
  readonly #lingerMs: number;
  readonly #wake: string;
  #client: pg.PoolClient | undefined;
  #closed = false;
  #connecting: Promise<void> | undefined;
  #heartbeat: NodeJS.Timeout | undefined;
  #delayMs = 50;
  // Channels by number of subscriptions, those the server delivers now, and waiters for them.
  readonly #wanted = new Map<string, number>();
  // Channels nobody subscribes to, since when: given up `lingerMs` later.
  readonly #unwantedSince = new Map<string, number>();
  #sweep: NodeJS.Timeout | undefined;
  readonly #active = new Set<string>();
  #waiters: { channels: readonly string[]; resolve: () => void }[] = [];
  #wakeHook: ((notice: InboxNotice) => void) | undefined;
  // LISTEN and UNLISTEN go one after another, so the server's set matches `#active`.
  #chain: Promise<unknown> = Promise.resolve();

  /** @internal Made by `PostgresInbox.listener()`. */
  constructor(pool: pg.Pool, names: Names, options: InboxListenerOptions = {}) {
    super();
    this.#pool = pool;
    this.#names = names;
    this.#heartbeatMs = options.heartbeatMs ?? 10_000;
    this.#maxDelayMs = options.maxReconnectDelayMs ?? 2_000;
    this.#lingerMs = options.lingerMs ?? 5_000;
    // This listener's own channel: answers to the live prompts of its hosts (see createInboxPrompts).
    this.#wake = `${names.schema}_w${randomBytes(5).toString("hex")}`;
  }

  /** Whether its connection is up now. */
  get connected(): boolean {
    return this.#client !== undefined;
  }

  /** Starts connecting (idempotent); resolves once connected or the attempt failed. */
  start(): Promise<void> {
    if (this.#closed || this.#client !== undefined) return Promise.resolve();
    this.#connecting ??= this.#connect().finally(() => {
      this.#connecting = undefined;
    });
    return this.#connecting;
  }

  /** Hears the selected notifications (as `notice` events) until `close()` of the subscription. */
  subscribe(selection: NoticeSelection): NoticeSubscription {
    const channels = new Set<string>();
    if (selection.pending === true) channels.add(this.#names.channel);
    if (selection.allAnswers === true) for (const c of this.#names.allAnswered) channels.add(c);
    for (const c of selection.conversations ?? []) channels.add(this.#names.answered(c));
    return this.#subscribe([...channels]);
  }

  static {
    wakeOf = (listener) => listener.#wake;
    subscribeWake = (listener) => listener.#subscribe([listener.#wake]);
    wakeActive = (listener) =>
      listener.#client !== undefined && listener.#active.has(listener.#wake);
    setWakeHook = (listener, hook) => {
      listener.#wakeHook = hook;
    };
  }

  #subscribe(list: readonly string[]): NoticeSubscription {
    const wasListening = list.every((c) => this.#active.has(c));
    const fresh = list.filter((c) => (this.#wanted.get(c) ?? 0) === 0);
    for (const c of list) {
      this.#wanted.set(c, (this.#wanted.get(c) ?? 0) + 1);
      this.#unwantedSince.delete(c);
    }
    const ready = wasListening
      ? Promise.resolve()
      : new Promise<void>((resolve) => this.#waiters.push({ channels: list, resolve }));
    if (fresh.length > 0 && this.#client !== undefined) this.#sync(this.#client);
    void this.start();
    let open = true;
    return {
      ready,
      wasListening,
      close: () => {
        if (!open) return;
        open = false;
        for (const c of list) {
          const left = (this.#wanted.get(c) ?? 1) - 1;
          if (left > 0) this.#wanted.set(c, left);
          else {
            this.#wanted.delete(c);
            this.#unwantedSince.set(c, performance.now());
          }
        }
        if (this.#lingerMs === 0) {
          if (this.#client !== undefined) this.#sync(this.#client);
        } else {
          this.#sweep ??= setTimeout(() => {
            this.#sweep = undefined;
            if (this.#client !== undefined) this.#sync(this.#client);
          }, this.#lingerMs).unref();
        }
      },
    };
  }

  /** Stops listening and gives the connection back to the pool. */
  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#heartbeat);
    clearTimeout(this.#sweep);
    this.#sweep = undefined;
    const client = this.#client;
    this.#client = undefined;
    this.#active.clear();
    if (client === undefined) return;
    // Closed now: notifications still coming in on the way out reach nobody.
    const own = handlers.get(client);
    if (own !== undefined) client.removeListener("notification", own.notification);
    try {
      await this.#chain;
      await client.query("UNLISTEN *");
      release(client);
    } catch (cause) {
      release(client, cause);
    }
  }

  // Brings the server's channels in line with the subscriptions, then resolves who waited.
  #sync(client: pg.PoolClient): Promise<unknown> {
    this.#chain = this.#chain.then(async () => {
      if (this.#client !== client) return;
      const add = [...this.#wanted.keys()].filter((c) => !this.#active.has(c));
      const now = performance.now();
      const lingering = (c: string) =>
        now - (this.#unwantedSince.get(c) ?? Number.NEGATIVE_INFINITY) < this.#lingerMs;
      const drop = [...this.#active].filter((c) => !this.#wanted.has(c) && !lingering(c));
      for (const c of drop) this.#unwantedSince.delete(c);
      // Some still linger: look again once the first of them is due.
      if (!this.#closed && this.#sweep === undefined) {
        const since = [...this.#active]
          .filter((c) => !this.#wanted.has(c) && lingering(c))
          .map((c) => this.#unwantedSince.get(c) as number);
        if (since.length > 0) {
          this.#sweep = setTimeout(
            () => {
              this.#sweep = undefined;
              if (this.#client !== undefined) this.#sync(this.#client);
            },
            Math.max(1, Math.min(...since) + this.#lingerMs - now),
          ).unref();
        }
      }
      // Inactive from now on: a subscription made while UNLISTEN is under way must wait for the
      // LISTEN that follows it, not count on a channel about to go quiet.
      for (const c of drop) this.#active.delete(c);
      if (add.length + drop.length > 0) {
        await client.query(
          [...add.map((c) => `LISTEN "${c}"`), ...drop.map((c) => `UNLISTEN "${c}"`)].join(";"),
        );
      }
      if (this.#client !== client) return;
      for (const c of add) this.#active.add(c);
      this.#waiters = this.#waiters.filter((w) => {
        const done = w.channels.every((c) => this.#active.has(c) || !this.#wanted.has(c));
        if (done) w.resolve();
        return !done;
      });
    });
    this.#chain = this.#chain.catch((cause: unknown) => this.#lost(client, cause));
    return this.#chain;
  }

  async #connect(): Promise<void> {
    let client: pg.PoolClient | undefined;
    try {
      client = await this.#pool.connect();
      const taken = client;
      const own: Handlers = {
        error: (cause) => this.#lost(taken, cause),
        end: () => this.#lost(taken, new Error("the listening connection ended")),
        notification: (message) => {
          const hook = message.channel === this.#wake ? this.#wakeHook : undefined;
          for (const notice of parseNotices(message.payload)) {
            hook?.(notice);
            this.emit("notice", notice);
            const watchers = watching.get(this)?.get(notice.conversation);
            if (watchers !== undefined) for (const watcher of [...watchers]) watcher(notice);
          }
        },
      };
      handlers.set(taken, own);
      taken.on("error", own.error);
      taken.on("end", own.end);
      taken.on("notification", own.notification);
      if (this.#closed) {
        release(taken);
        return;
      }
      this.#client = taken;
      this.#active.clear();
      await this.#sync(taken);
      if (this.#client !== taken) return;
      this.#delayMs = 50;
      this.#startHeartbeat(taken);
      this.emit("connected");
    } catch (cause) {
      if (client !== undefined && this.#client !== client) release(client, cause);
      else if (client !== undefined) this.#lost(client, cause);
      else this.#retry(cause);
    }
  }

  #lost(client: pg.PoolClient, cause: unknown): void {
    if (this.#client !== client) return;
    this.#client = undefined;
    this.#active.clear();
    clearInterval(this.#heartbeat);
    try {
      release(client, cause);
    } catch {
      // Released already: the pool dropped it.
    }
    this.#retry(cause);
  }

  #retry(cause: unknown): void {
    if (this.#closed) return;
    this.emit("disconnected", cause);
    const delay = this.#delayMs;
    this.#delayMs = Math.min(this.#delayMs * 2, this.#maxDelayMs);
    setTimeout(() => void this.start(), delay).unref();
  }

  // A query now and then: a connection that died silently fails it (or never answers).
  #startHeartbeat(client: pg.PoolClient): void {
    clearInterval(this.#heartbeat);
    this.#heartbeat = setInterval(() => {
      const timer = setTimeout(
        () => this.#lost(client, new Error("the listening connection stopped answering")),
        this.#heartbeatMs,
      );
      timer.unref();
      client.query("SELECT 1").then(
        () => clearTimeout(timer),
        (cause: unknown) => {
          clearTimeout(timer);
          this.#lost(client, cause);
        },
      );
    }, this.#heartbeatMs);
    this.#heartbeat.unref();
  }
}

interface Handlers {
  readonly error: (cause: Error) => void;
  readonly end: () => void;
  readonly notification: (message: pg.Notification) => void;
}

// The listener's own handlers on the connection it holds. The connection goes back to the pool
// and on to other users: whatever the listener hung on it must come off with it, or every
// listener that ever held it stays reachable from it.
const handlers = new WeakMap<pg.PoolClient, Handlers>();

// Taken off once the pool has the connection back, with its own error handler on it again. A
// connection released with an error is discarded, never reused: it keeps an error handler, so
// a late error on its socket still has someone listening.
function release(client: pg.PoolClient, cause?: unknown): void {
  try {
    client.release(
      cause === undefined ? undefined : cause instanceof Error ? cause : new Error(String(cause)),
    );
  } finally {
    const own = handlers.get(client);
    if (own !== undefined) {
      handlers.delete(client);
      if (cause === undefined) client.removeListener("error", own.error);
      client.removeListener("end", own.end);
      client.removeListener("notification", own.notification);
    }
  }
}

// The package's own waits, by conversation: a notification reaches the waits of its
// conversation only, however many wait in the process.
const watching = new WeakMap<InboxListener, Map<string, Set<(notice: InboxNotice) => void>>>();

/**
 * Calls `watcher` with every notification about `conversation` the listener hears (those of the
 * channels subscribed to), until the returned function is called.
 */
export function watchConversation(
  listener: InboxListener,
  conversation: string,
  watcher: (notice: InboxNotice) => void,
): () => void {
  let byConversation = watching.get(listener);
  if (byConversation === undefined) {
    byConversation = new Map();
    watching.set(listener, byConversation);
  }
  let watchers = byConversation.get(conversation);
  if (watchers === undefined) {
    watchers = new Set();
    byConversation.set(conversation, watchers);
  }
  watchers.add(watcher);
  return () => {
    watchers.delete(watcher);
    if (watchers.size === 0 && byConversation.get(conversation) === watchers) {
      byConversation.delete(conversation);
    }
  };
}
