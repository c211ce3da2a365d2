import { hostname } from "node:os";
import type {
  AskOptions,
  LaterReply,
  PromptBackend,
  PromptRequest,
  ReplyFor,
  StoredReply,
} from "@jp/coordinator";
import type { Result } from "neverthrow";
import type { InboxError } from "./errors.js";
import { inboxInternals, type PostgresInbox } from "./inbox.js";
import { liveWaits } from "./internal/live-wait.js";
import { isSecret } from "./internal/markers.js";
import { isConnectionError } from "./internal/sql.js";
import { wakeChannel } from "./listener.js";

/** Options of {@link createInboxPrompts}. */
export interface InboxPromptsOptions {
  readonly inbox: PostgresInbox;
  /** The conversation the coordinator records in (it need not be saved yet). */
  readonly conversation: string;
  /**
   * How long a prompt waits in the inbox for an answer before the turn suspends at it (the
   * backend replies `later`; save the conversation and the prompt stays in the inbox, now
   * suspended). `0` suspends at once; by default it waits as long as the turn runs.
   */
  readonly waitMs?: number;
  /**
   * Where secret questions are asked: a prompt backend of this host (its terminal, its web
   * page), so the answer goes from the person to this process and never through the database.
   * Without one, a secret question suspends the turn (then answer it in memory with
   * `resume({ answers })`, or at a live prompt when the turn resumes).
   */
  readonly secrets?: PromptBackend;
  /** The host's name in the inbox (default `<hostname>:<pid>`). */
  readonly host?: string;
  /**
   * How long a waiting prompt stays listed without this host renewing it (default 30 s; renewed
   * every third of it). A host that dies leaves its prompt for at most this long.
   */
  readonly leaseMs?: number;
  /** How long to retry when the database cannot be reached (a restart), default 30 s. */
  readonly retryMs?: number;
}

/**
 * A `PromptBackend` whose prompts go to the inbox: a live `run()` puts each prompt there, waits,
 * and goes on the moment any process answers it with `inbox.answer` (`NOTIFY`, within
 * milliseconds), also across a restart of the database. After `waitMs` without an answer the turn
 * suspends at the prompt instead. Secret questions never go to the inbox (see `secrets`).
 *
 * @example
 * const prompts = createInboxPrompts({ inbox, conversation: conversation.name, waitMs: 60_000 });
 * const coordinator = new ToolCoordinator({ stream: conversation.stream, tools, executors, prompts });
 * const { pending } = await coordinator.run(calls, { turn: new TurnState() });
 * await store.save(conversation); // prompts still pending are now suspended in the inbox
 */
export function createInboxPrompts(options: InboxPromptsOptions): PromptBackend {
  const { live } = inboxInternals(options.inbox);
  const leaseMs = options.leaseMs ?? 30_000;
  const retryMs = options.retryMs ?? 30_000;
  const host = options.host ?? `${hostname()}:${process.pid}`;
  const { conversation, inbox } = options;
  return {
    isHumanReachable: () => true,
    async ask<R extends PromptRequest>(
      request: R,
      { signal }: AskOptions,
    ): Promise<ReplyFor<R> | LaterReply> {
      if (isSecret(request)) {
        return options.secrets === undefined
          ? { type: "later" }
          : options.secrets.ask(request, { signal });
      }
      if (options.waitMs === 0) return { type: "later" };
      const listener = inbox.listener();
      const waits = liveWaits(listener);
      // Listening on the listener's own channel, where answers to this host's prompts are
      // announced, before the prompt is: then nothing can come unnoticed, and no look is needed
      // until a notification. An answer that comes before the prompt's row id is known here is
      // kept for it and makes the first look happen.
      const began = waits.beginOpen();
      let id: string;
      let waiting: Promise<Result<StoredReply | undefined, InboxError>>;
      try {
        const listening = typeof began === "boolean" ? began : await began;
        const opened = await retrying(
          () => live.open({ conversation, request, host, leaseMs, wake: wakeChannel(listener) }),
          retryMs,
        );
        // A saved turn's prompt, resumed before anyone answered it: it stays in the inbox, where
        // an answer goes into the saved conversation, and the turn suspends at it again.
        if (opened === "suspended") return { type: "later" };
        id = opened;
        live.hold(id, leaseMs);
        waiting = waits.wait(id, {
          take: () => live.take(id),
          lookFirst: !listening,
          signal,
          ...(options.waitMs === undefined ? {} : { timeoutMs: options.waitMs }),
        });
      } finally {
        waits.endOpen();
      }
      let waited: Result<StoredReply | undefined, InboxError>;
      try {
        waited = await waiting;
      } finally {
        live.release(id, leaseMs);
      }
      if (waited.isOk() && waited.value !== undefined) return waited.value as ReplyFor<R>;
      // The wait ended without a reply: the row comes out with whatever reply it got meanwhile,
      // in one statement, so an answer accepted at the last moment is still the one used.
      const { reply } = await retrying(() => live.close(id), retryMs);
      if (reply !== undefined) return reply as ReplyFor<R>;
      return signal.aborted ? ({ type: "cancelled" } as ReplyFor<R>) : { type: "later" };
    },
  };
}

// Retries while the database is unreachable (a restart takes a fraction of a second).
async function retrying<T>(body: () => Promise<T>, retryMs: number): Promise<T> {
  const until = Date.now() + retryMs;
  for (let delay = 50; ; delay = Math.min(delay * 2, 1000)) {
    try {
      return await body();
    } catch (cause) {
      if (!isConnectionError(cause) || Date.now() + delay > until) throw cause;
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}
