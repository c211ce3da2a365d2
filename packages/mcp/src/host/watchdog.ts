/**
 * The server's working-time limit for the calls of one connection line, which run one at a time.
 * Arming records a deadline; one timer serves every call and every arming: when it fires before
 * the deadline (the limit was restarted since), it waits for the rest. The timer never keeps the
 * process alive on its own.
 */
export class Watchdog {
  readonly ms: number;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #deadline = 0;
  // When the timer set fires.
  #due = 0;
  #onExpire: (() => void) | undefined;

  constructor(ms: number) {
    this.ms = ms;
  }

  /**
   * Starts counting `ms` (the line's limit unless given) from now; `onExpire` is called once the
   * time is up, unless disarmed.
   */
  arm(onExpire: () => void, ms = this.ms): void {
    this.#deadline = performance.now() + ms;
    this.#onExpire = onExpire;
    // A timer set for a later moment (a longer allowance armed before) is set again.
    if (this.#timer !== undefined && this.#due > this.#deadline) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    if (this.#timer === undefined) this.#schedule(ms);
  }

  /** Stops counting for `onExpire` (not for another call's, armed since). */
  disarm(onExpire: () => void): void {
    if (this.#onExpire === onExpire) this.#onExpire = undefined;
  }

  /** Stops the timer (the connection closed). */
  stop(): void {
    this.#onExpire = undefined;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #schedule(ms: number): void {
    this.#due = performance.now() + ms;
    this.#timer = setTimeout(this.#check, ms);
    this.#timer.unref?.();
  }

  readonly #check = (): void => {
    this.#timer = undefined;
    const onExpire = this.#onExpire;
    if (onExpire === undefined) return;
    const left = this.#deadline - performance.now();
    if (left > 0) {
      this.#schedule(Math.ceil(left));
      return;
    }
    this.#onExpire = undefined;
    onExpire();
  };
}
