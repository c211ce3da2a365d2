import type { Stopped } from "./run-abort.js";

/**
 * Shows prompts one at a time, first come first served, while the tools that are not prompting
 * keep running. A prompt whose signal aborts while it waits is never shown.
 */
export class PromptQueue {
  #tail: Promise<unknown> = Promise.resolve();

  /** Runs `show` once every earlier prompt has finished; `undefined` if aborted while waiting. */
  run<T>(stop: Stopped, show: () => Promise<T>): Promise<T | undefined> {
    const turn = this.#tail.then(() => (stop.aborted ? undefined : show()));
    // The next prompt waits for this one to settle, whether it answered or failed.
    this.#tail = turn.catch(() => undefined);
    return turn;
  }
}
