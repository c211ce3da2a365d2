/**
 * Answers to secret questions, held in this process only (never in the state a client echoes).
 * An entry lives until its call finishes or `ttlMs` passes.
 */
export class SecretStore {
  readonly #calls = new Map<string, Map<string, { pending: Promise<string>; value?: string }>>();
  readonly #ttlMs: number;

  constructor(ttlMs = 3_600_000) {
    this.#ttlMs = ttlMs;
  }

  /** A secret page was opened for `questionId`; `answer` settles when it is submitted. */
  expect(callId: string, questionId: string, answer: Promise<string>): void {
    let call = this.#calls.get(callId);
    if (call === undefined) {
      call = new Map();
      this.#calls.set(callId, call);
      setTimeout(() => this.#calls.delete(callId), this.#ttlMs).unref();
    }
    // A rejected page must not become an unhandled rejection while nobody waits on it.
    answer.catch(() => undefined);
    call.set(questionId, { pending: answer });
  }

  /** The submitted secret, waiting at most `timeoutMs`; undefined when it never came. */
  async take(
    callId: string,
    questionId: string,
    timeoutMs: number,
    signal: AbortSignal,
  ): Promise<string | undefined> {
    const entry = this.#calls.get(callId)?.get(questionId);
    if (entry === undefined) return undefined;
    const value = await settleWithin(entry.pending, timeoutMs, signal);
    if (value !== undefined) entry.value = value;
    return value;
  }

  /** The secrets submitted so far in a call, by question id. */
  answers(callId: string): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [id, entry] of this.#calls.get(callId) ?? []) {
      if (entry.value !== undefined) out[id] = entry.value;
    }
    return out;
  }

  /** The ids of a call's secret questions. */
  ids(callId: string): Set<string> {
    return new Set(this.#calls.get(callId)?.keys() ?? []);
  }

  forget(callId: string): void {
    this.#calls.delete(callId);
  }
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
