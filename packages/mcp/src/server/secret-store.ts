/**
 * Answers to secret questions, held in this process only (never in the state a client echoes).
 * An entry lives until its call finishes or `ttlMs` passes.
 */
export class SecretStore {
  readonly #calls = new Map<string, StoredCall>();
  readonly #ttlMs: number;

  constructor(ttlMs = 3_600_000) {
    this.#ttlMs = ttlMs;
  }

  /**
   * Aborts once call `callId` is over here: finished, refused, or expired. A secret page of a
   * 2026-07-28 call is given this, not a request's signal: each request ends with its round, while
   * the page must stay open until the client comes back with the round's response.
   */
  signal(callId: string): AbortSignal {
    return this.#call(callId).stop.signal;
  }

  /** A secret page was opened for `questionId`; `answer` settles when it is submitted. */
  expect(callId: string, questionId: string, answer: Promise<string>): void {
    // A rejected page must not become an unhandled rejection while nobody waits on it.
    answer.catch(() => undefined);
    this.#call(callId).secrets.set(questionId, { pending: answer });
  }

  #call(callId: string): StoredCall {
    let call = this.#calls.get(callId);
    if (call === undefined) {
      const made: StoredCall = { secrets: new Map(), stop: new AbortController() };
      this.#calls.set(callId, made);
      // Only this entry expires: a call of the same id stored again later keeps its own time.
      setTimeout(() => {
        if (this.#calls.get(callId) === made) this.forget(callId);
      }, this.#ttlMs).unref();
      call = made;
    }
    return call;
  }

  /** The submitted secret, waiting at most `timeoutMs`; undefined when it never came. */
  async take(
    callId: string,
    questionId: string,
    timeoutMs: number,
    signal: AbortSignal,
  ): Promise<string | undefined> {
    const entry = this.#calls.get(callId)?.secrets.get(questionId);
    if (entry === undefined) return undefined;
    const value = await settleWithin(entry.pending, timeoutMs, signal);
    if (value !== undefined) entry.value = value;
    return value;
  }

  /** The secrets submitted so far in a call, by question id. */
  answers(callId: string): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [id, entry] of this.#calls.get(callId)?.secrets ?? []) {
      if (entry.value !== undefined) out[id] = entry.value;
    }
    return out;
  }

  /** The ids of a call's secret questions. */
  ids(callId: string): Set<string> {
    return new Set(this.#calls.get(callId)?.secrets.keys() ?? []);
  }

  /** The call is over here: its secrets go, and its pages are told (see {@link signal}). */
  forget(callId: string): void {
    const call = this.#calls.get(callId);
    if (call === undefined) return;
    this.#calls.delete(callId);
    call.stop.abort();
  }
}

interface StoredCall {
  readonly secrets: Map<string, { pending: Promise<string>; value?: string }>;
  readonly stop: AbortController;
}

/** The promise's value, or undefined when it rejects, `ms` pass or `signal` aborts first. */
export function settleWithin<T>(
  promise: Promise<T>,
  ms: number,
  signal: AbortSignal,
): Promise<T | undefined> {
  return new Promise((resolve) => {
    const done = (value: T | undefined) => {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      resolve(value);
    };
    const onAbort = () => done(undefined);
    const timer = setTimeout(() => done(undefined), ms);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(done, () => done(undefined));
  });
}
