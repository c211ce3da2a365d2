/**
 * One call's slot in a connection's line of 2025-era calls, which run one at a time: released
 * once the server has let go of the call, when the next call may start. Waiting costs a promise
 * only when the slot is still held.
 */
export class LineSlot {
  #released = false;
  #waiters: (() => void)[] | undefined;

  get released(): boolean {
    return this.#released;
  }

  release(): void {
    if (this.#released) return;
    this.#released = true;
    const waiters = this.#waiters;
    this.#waiters = undefined;
    if (waiters !== undefined) for (const waiter of waiters) waiter();
  }

  /** Releases this slot once `previous` is released (at once without one). */
  releaseAfter(previous: LineSlot | undefined): void {
    if (previous === undefined || previous.#released) this.release();
    else previous.#then(() => this.release());
  }

  /** Settles once the slot is released; rejects with the signal's reason if it aborts first. */
  wait(signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.reject(signal.reason);
    if (this.#released) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const onAbort = () => reject(signal.reason);
      signal.addEventListener("abort", onAbort, { once: true });
      this.#then(() => {
        signal.removeEventListener("abort", onAbort);
        resolve();
      });
    });
  }

  #then(waiter: () => void): void {
    if (this.#waiters === undefined) this.#waiters = [waiter];
    else this.#waiters.push(waiter);
  }
}
