import type { Result } from "neverthrow";
import { err } from "neverthrow";
import type { InboxError } from "../errors.js";
import {
  type InboxListener,
  type InboxNotice,
  type NoticeSubscription,
  watchConversation,
} from "../listener.js";
import { oneAtATime } from "./one-at-a-time.js";

/** What {@link waitFor} waits on. */
export interface WaitSpec<T> {
  readonly listener: InboxListener;
  /** Listens on the channels whose notifications the wait hears. */
  readonly subscribe: () => NoticeSubscription;
  /** The conversation waited on: only its notifications are offered to `matches`. */
  readonly conversation: string;
  /** Whether a notification may concern the wait: then the state is looked at again. */
  readonly matches: (notice: InboxNotice) => boolean;
  /** The state: a result ends the wait, `undefined` goes on waiting (also when unreachable). */
  readonly check: () => Promise<Result<T, InboxError> | undefined>;
  readonly signal?: AbortSignal;
  readonly timeoutMs?: number;
  /**
   * Look at once (default). `false` when the caller listened on the selection's channels since
   * before the state could change: then only notifications and reconnections bring a look.
   */
  readonly lookFirst?: boolean;
}

/**
 * Waits for `check` to give a result, looking again on every matching notification and every
 * (re)connection of the listener: a notification lost while the connection was down is made up
 * for by the look taken once listening again. Never more than one look at a time.
 */
export function waitFor<T>(spec: WaitSpec<T>): Promise<Result<T, InboxError>> {
  const { listener, signal } = spec;
  return new Promise((resolve) => {
    let done = false;
    const subscription = spec.subscribe();
    let unwatch = () => {};
    const finish = (result: Result<T, InboxError>) => {
      if (done) return;
      done = true;
      subscription.close();
      unwatch();
      listener.off("connected", look);
      signal?.removeEventListener("abort", onAbort);
      clearTimeout(timer);
      resolve(result);
    };
    const look = oneAtATime(
      async () => {
        const result = await spec.check().catch(() => undefined);
        if (result !== undefined) finish(result);
      },
      () => done,
    );
    const onNotice = (notice: InboxNotice) => {
      if (spec.matches(notice)) look();
    };
    const onAbort = () =>
      finish(err({ kind: "cancelled", message: "the wait for an answer was cancelled" }));
    const timer =
      spec.timeoutMs === undefined
        ? undefined
        : setTimeout(
            () =>
              finish(err({ kind: "timeout", message: `no answer within ${spec.timeoutMs} ms` })),
            spec.timeoutMs,
          );
    if (signal?.aborted) return onAbort();
    signal?.addEventListener("abort", onAbort, { once: true });
    unwatch = watchConversation(listener, spec.conversation, onNotice);
    listener.on("connected", look);
    // Looking now, and again once the server delivers the channels' notifications: whatever
    // changed before that is seen by the second look, whatever after by a notification.
    if (spec.lookFirst !== false) look();
    void subscription.ready.then(() => {
      if (!subscription.wasListening) look();
    });
  });
}
