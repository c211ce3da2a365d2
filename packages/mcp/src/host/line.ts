import type { RunStop } from "@jp/coordinator";

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

  /** Settles once the slot is released; rejects with the run's reason if it stops first. */
  wait(stop: RunStop): Promise<void> {
    if (stop.aborted) return Promise.reject(stop.reason);
    if (this.#released) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const forget = stop.onAbort(reject);
      this.#then(() => {
        forget();
        resolve();
      });
    });
  }

  #then(waiter: () => void): void {
    if (this.#waiters === undefined) this.#waiters = [waiter];
    else this.#waiters.push(waiter);
  }
}
