import { EventEmitter } from "eventemitter3";
import type pg from "pg";

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
}

/**
 * `LISTEN` on the inbox's channel over one connection taken from the host's pool, held until
 * {@link InboxListener.close}. A lost connection (a restart of the server, a network cut found
 * by the heartbeat) is replaced, `LISTEN` is issued again, and `connected` is emitted so waiters
 * look again for what they may have missed. Created by the inbox on its first wait.
 */
export class InboxListener extends EventEmitter<InboxListenerEvents> {
  readonly #pool: pg.Pool;
  readonly #channel: string;
  readonly #heartbeatMs: number;
  readonly #maxDelayMs: number;
  #client: pg.PoolClient | undefined;
  #closed = false;
  #connecting: Promise<void> | undefined;
  #heartbeat: NodeJS.Timeout | undefined;
  #delayMs = 50;

  /** @param channel The channel, unquoted (`<schema>_inbox`). */
  constructor(pool: pg.Pool, channel: string, options: InboxListenerOptions = {}) {
    super();
    this.#pool = pool;
    this.#channel = channel;
    this.#heartbeatMs = options.heartbeatMs ?? 10_000;
    this.#maxDelayMs = options.maxReconnectDelayMs ?? 2_000;
  }

  /** Whether it is listening now. */
  get connected(): boolean {
    return this.#client !== undefined;
  }

  /** Starts listening (idempotent); resolves once the first `LISTEN` is in place or failed. */
  start(): Promise<void> {
    if (this.#closed || this.#client !== undefined) return Promise.resolve();
    this.#connecting ??= this.#connect().finally(() => {
      this.#connecting = undefined;
    });
    return this.#connecting;
  }

  /** Stops listening and gives the connection back to the pool. */
  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#heartbeat);
    const client = this.#client;
    this.#client = undefined;
    if (client === undefined) return;
    client.removeAllListeners("notification");
    try {
      await client.query(`UNLISTEN "${this.#channel}"`);
      client.release();
    } catch (cause) {
      client.release(cause as Error);
    }
  }

  async #connect(): Promise<void> {
    let client: pg.PoolClient | undefined;
    try {
      client = await this.#pool.connect();
      const taken = client;
      taken.on("error", (cause) => this.#lost(taken, cause));
      taken.on("end", () => this.#lost(taken, new Error("the listening connection ended")));
      taken.on("notification", (message) => {
        if (message.channel !== this.#channel) return;
        const notice = parseNotice(message.payload);
        if (notice !== undefined) this.emit("notice", notice);
      });
      await taken.query(`LISTEN "${this.#channel}"`);
      if (this.#closed) {
        taken.release();
        return;
      }
      this.#client = taken;
      this.#delayMs = 50;
      this.#startHeartbeat(taken);
      this.emit("connected");
    } catch (cause) {
      if (client !== undefined) client.release(cause as Error);
      this.#retry(cause);
    }
  }

  #lost(client: pg.PoolClient, cause: unknown): void {
    if (this.#client !== client) return;
    this.#client = undefined;
    clearInterval(this.#heartbeat);
    client.removeAllListeners("notification");
    try {
      client.release(cause instanceof Error ? cause : new Error(String(cause)));
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

function parseNotice(payload: string | undefined): InboxNotice | undefined {
  try {
    const value = JSON.parse(payload ?? "") as Record<string, unknown>;
    if (
      (value.e !== "pending" && value.e !== "answered") ||
      typeof value.id !== "string" ||
      typeof value.c !== "string"
    ) {
      return undefined;
    }
    return {
      event: value.e,
      id: value.id,
      conversation: value.c,
      ...(typeof value.p === "string" ? { promptId: value.p } : {}),
    };
  } catch {
    return undefined;
  }
}
