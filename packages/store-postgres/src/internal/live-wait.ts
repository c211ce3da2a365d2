import type { StoredReply } from "@jp/coordinator";
import { err, ok, type Result } from "neverthrow";
import type { InboxError } from "../errors.js";
import {
  type InboxListener,
  isWakeListened,
  listenForWake,
  type NoticeSubscription,
  onWake,
} from "../listener.js";
import type { LiveTaken } from "./live.js";
import { oneAtATime } from "./one-at-a-time.js";

// The waits of live prompts on one listener, by row id. An answer to a live prompt is announced
// on the channel of its host's listener with the prompt's row id, so a notification goes straight
// to the one wait it concerns: no per-wait subscription, no scan of the other waits.

/** What {@link LiveWaits.wait} waits on. */
export interface LiveWaitSpec {
  /** Takes the reply out of the inbox if there is one (see `LivePrompts.take`). */
  readonly take: () => Promise<LiveTaken>;
  /** Look at once: the channel may not have been listened on when the prompt was opened. */
  readonly lookFirst: boolean;
  readonly signal?: AbortSignal;
  readonly timeoutMs?: number;
}

// Answers to rows not waited on yet, kept while prompts are being opened (an answer may come
// before the row id of its prompt is back); more than this many and the oldest are dropped.
const EARLY_MAX = 1024;

const registries = new WeakMap<InboxListener, LiveWaits>();

/** The live waits of `listener`, made on first use. */
export function liveWaits(listener: InboxListener): LiveWaits {
  let waits = registries.get(listener);
  if (waits === undefined) {
    waits = new LiveWaits(listener);
    registries.set(listener, waits);
  }
  return waits;
}

export class LiveWaits {
  readonly #listener: InboxListener;
  readonly #looks = new Map<string, () => void>();
  readonly #early = new Set<string>();
  #opening = 0;
  // Opens and waits under way: while there are any, the listener's channel is subscribed.
  #users = 0;
  #subscription: NoticeSubscription | undefined;

  constructor(listener: InboxListener) {
    this.#listener = listener;
    onWake(listener, (notice) => {
      if (notice.event !== "answered") return;
      const look = this.#looks.get(notice.id);
      if (look !== undefined) look();
      else if (this.#opening > 0) {
        this.#early.add(notice.id);
        if (this.#early.size > EARLY_MAX)
          this.#early.delete(this.#early.values().next().value as string);
      }
    });
    // Notifications sent while the connection was down are lost: every wait looks again.
    listener.on("connected", () => {
      for (const look of this.#looks.values()) look();
    });
  }

  /**
   * Before a prompt is opened: keeps the listener's channel listened on, and tells whether the
   * server delivers it now (waiting up to a second for a first `LISTEN`). Then nothing answered
   * after the prompt is announced goes unheard; `false` makes the wait look at once. Call
   * {@link LiveWaits.endOpen} once the prompt's wait is started (or the open failed).
   */
  beginOpen(): boolean | Promise<boolean> {
    this.#opening++;
    this.#use();
    if (isWakeListened(this.#listener)) return true;
    const probe = listenForWake(this.#listener);
    if (probe.wasListening) {
      probe.close();
      return true;
    }
    return readyWithin(probe.ready, 1_000).finally(() => probe.close());
  }

  /** After {@link LiveWaits.beginOpen}. */
  endOpen(): void {
    this.#opening--;
    if (this.#opening === 0) this.#early.clear();
    this.#unuse();
  }

  /**
   * Waits for the reply of the live prompt of row `id`: looks (takes the reply) on every answer
   * announced for the row and after every reconnection of the listener. `ok(undefined)` when the
   * row is gone without a reply (a save suspended the same prompt); `timeout` and `cancelled`
   * errors. Never more than one look at a time.
   */
  wait(id: string, spec: LiveWaitSpec): Promise<Result<StoredReply | undefined, InboxError>> {
    const { signal } = spec;
    return new Promise((resolve) => {
      let done = false;
      let timer: NodeJS.Timeout | undefined;
      const finish = (result: Result<StoredReply | undefined, InboxError>) => {
        if (done) return;
        done = true;
        this.#looks.delete(id);
        this.#unuse();
        signal?.removeEventListener("abort", onAbort);
        clearTimeout(timer);
        resolve(result);
      };
      // The look in flight, if any: its statement takes the reply out of the row. Once the wait
      // is ending, no new look starts.
      let taking: Promise<unknown> | undefined;
      let ending = false;
      const look = oneAtATime(
        async () => {
          // A database away for a moment: the next notification or reconnection looks again.
          const pending = spec.take().catch(() => undefined);
          taking = pending;
          const taken = await pending;
          taking = undefined;
          if (taken?.reply !== undefined) finish(ok(taken.reply));
          else if (taken !== undefined && !taken.present) finish(ok(undefined));
        },
        () => done || ending,
      );
      // A deadline or a stop while a look is in flight waits for that look: its statement may
      // have taken the reply out of the row already, and nothing else would ever see it. The
      // look's own ending comes first, so a reply it took is the one used.
      const end = (result: Result<StoredReply | undefined, InboxError>) => {
        ending = true;
        const inFlight = taking;
        if (inFlight === undefined) finish(result);
        else void inFlight.then(() => finish(result));
      };
      const onAbort = () =>
        end(err({ kind: "cancelled", message: "the wait for an answer was cancelled" }));
      this.#use();
      this.#looks.set(id, look);
      if (signal?.aborted) {
        onAbort();
        return;
      }
      signal?.addEventListener("abort", onAbort, { once: true });
      if (spec.timeoutMs !== undefined) {
        timer = setTimeout(
          () => end(err({ kind: "timeout", message: `no answer within ${spec.timeoutMs} ms` })),
          spec.timeoutMs,
        );
      }
      if (this.#early.delete(id) || spec.lookFirst) look();
    });
  }

  #use(): void {
    this.#users++;
    this.#subscription ??= listenForWake(this.#listener);
  }

  #unuse(): void {
    this.#users--;
    if (this.#users === 0) {
      this.#subscription?.close();
      this.#subscription = undefined;
    }
  }
}

// Whether `ready` resolves within `ms`.
async function readyWithin(ready: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(resolve, ms, false);
  });
  try {
    return await Promise.race([ready.then(() => true), late]);
  } finally {
    clearTimeout(timer);
  }
}
