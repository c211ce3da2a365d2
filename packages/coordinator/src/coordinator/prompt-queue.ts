import type { Stopped } from "./run-abort.js";

/** A prompt waiting for the one before it to leave the queue. */
interface Waiting {
  readonly stop: Stopped;
  /** Told `true` when the prompt's turn comes, `false` when it stopped while waiting. */
  readonly take: (taken: boolean) => void;
}

/**
 * Shows prompts one at a time, first come first served, while the tools that are not prompting
 * keep running. A prompt whose stop aborts while it waits is never shown.
 *
 * A prompt {@link enter}s, shows itself, and {@link leave}s; the next in line takes its turn as
 * the last one leaves. One that finds the queue free takes its turn at once, with no promise
 * made: with a person who answers at once (a test's mock, a backend with stored answers) the
 * queue would otherwise be a good part of every question's cost.
 */
export class PromptQueue {
  #busy = false;
  // Index of the first waiting prompt: shifting a long array is linear.
  #head = 0;
  #waiting: Waiting[] = [];

  /**
   * Waits for the prompt's turn: `true` when it has it (now, or once the promise resolves), and
   * the prompt must then {@link leave}; `false` when `stop` aborted first, and it must not.
   */
  enter(stop: Stopped): boolean | Promise<boolean> {
    if (stop.aborted) return false;
    if (!this.#busy) {
      this.#busy = true;
      return true;
    }
    return new Promise<boolean>((take) => {
      this.#waiting.push({ stop, take });
    });
  }

  /** The prompt that has the turn is done: the next one in line that has not stopped takes it. */
  leave(): void {
    for (;;) {
      const waiting = this.#waiting[this.#head];
      if (waiting === undefined) {
        this.#busy = false;
        this.#waiting = [];
        this.#head = 0;
        return;
      }
      this.#waiting[this.#head] = undefined as never;
      this.#head++;
      // A line that never empties (a long-lived coordinator's) drops the slots it has served.
      if (this.#head > 64 && this.#head * 2 > this.#waiting.length) {
        this.#waiting = this.#waiting.slice(this.#head);
        this.#head = 0;
      }
      if (!waiting.stop.aborted) {
        waiting.take(true);
        return;
      }
      waiting.take(false);
    }
  }
}
