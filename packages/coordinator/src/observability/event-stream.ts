import type { EventEmitter } from "eventemitter3";
import type { CoordinatorEvents } from "../coordinator/events.js";

/** The name of one of the coordinator's events (`tool-state`, `prompt-shown`, …). */
export type CoordinatorEventName = keyof CoordinatorEvents;

/**
 * One of the coordinator's events as a value: its name in `type`, beside the fields of its
 * payload (`{ type: "tool-state", tool_call_id, tool_name, state }`).
 */
export type CoordinatorEvent = {
  readonly [K in CoordinatorEventName]: { readonly type: K } & Parameters<CoordinatorEvents[K]>[0];
}[CoordinatorEventName];

/**
 * Given instead of events a consumer fell too far behind to receive: `count` events, oldest
 * first, were dropped just before the event that follows this one.
 */
export interface EventsDropped {
  readonly type: "events-dropped";
  readonly count: number;
}

/** Options of {@link coordinatorEvents}. */
export interface CoordinatorEventsOptions {
  /**
   * Stops listening: events emitted until then are still given (the iteration ends after the
   * last of them), none after. Already aborted: the iteration ends at once.
   */
  readonly signal?: AbortSignal;
  /**
   * The most events held for a consumer that has not taken them yet (default 1,000). One more
   * drops the oldest held event, and an {@link EventsDropped} item tells the consumer how many
   * it missed. The coordinator never waits for a consumer.
   */
  readonly maxBuffered?: number;
  /** Only these events (default every one). */
  readonly only?: readonly CoordinatorEventName[];
}

/** Every event the coordinator emits, in a fixed order. */
const ALL: readonly CoordinatorEventName[] = [
  "tool-state",
  "inquiry-recorded",
  "prompt-shown",
  "prompt-answered",
  "prompt-refused",
  "question-routed",
];

/** The default of {@link CoordinatorEventsOptions.maxBuffered}. */
export const DEFAULT_MAX_BUFFERED_EVENTS = 1000;

/**
 * The coordinator's events as an async iterable, for a UI that renders progress with
 * `for await`. It listens from this call on (not from the first `next()`), so nothing emitted in
 * between is missed.
 *
 * - **End:** abort `signal` to stop listening; the events emitted before the abort are still
 *   given, then the iteration ends. `break` (or `return()`) ends it at once and drops what was
 *   held. The coordinator never ends it by itself: one view can follow several runs.
 * - **Memory:** at most `maxBuffered` events are held for a slow consumer; past that the oldest
 *   are dropped and an `{ type: "events-dropped", count }` item stands in their place. The
 *   coordinator, which emits synchronously, is never slowed down by a consumer.
 * - One consumer per view (each event is given once): make a view per consumer.
 *
 * Events carry no secret (see {@link CoordinatorEvents}).
 *
 * @example
 * const controller = new AbortController();
 * const ui = (async () => {
 *   for await (const event of coordinatorEvents(coordinator, { signal: controller.signal }))
 *     if (event.type === "tool-state") render(event.tool_name, event.state);
 * })();
 * await coordinator.run(calls, { turn });
 * controller.abort(); // the UI still gets every event of the run, then its loop ends
 * await ui;
 */
export function coordinatorEvents(
  coordinator: EventEmitter<CoordinatorEvents>,
  options: CoordinatorEventsOptions = {},
): AsyncIterableIterator<CoordinatorEvent | EventsDropped> {
  const max = options.maxBuffered ?? DEFAULT_MAX_BUFFERED_EVENTS;
  if (!Number.isInteger(max) || max < 1) {
    throw new RangeError(`maxBuffered must be a whole number of at least 1, got ${max}`);
  }
  const names = options.only ?? ALL;
  const held = new Ring<CoordinatorEvent>(max);
  let dropped = 0;
  let listening = true;
  let finished = false;
  // Consumers waiting for the next event (one, under `for await`).
  const waiting: ((result: IteratorResult<CoordinatorEvent | EventsDropped>) => void)[] = [];

  const listeners = names.map((name) => {
    const listener = (payload: object) => {
      const event = { type: name, ...payload } as CoordinatorEvent;
      const resolve = waiting.shift();
      if (resolve !== undefined) resolve({ value: event, done: false });
      else if (held.push(event)) dropped++;
    };
    coordinator.on(name, listener);
    return [name, listener] as const;
  });

  const unlisten = () => {
    if (!listening) return;
    listening = false;
    for (const [name, listener] of listeners) coordinator.off(name, listener);
    options.signal?.removeEventListener("abort", onAbort);
  };
  const finish = (): IteratorResult<CoordinatorEvent | EventsDropped> => {
    unlisten();
    finished = true;
    held.clear();
    dropped = 0;
    for (const resolve of waiting.splice(0)) resolve({ value: undefined, done: true });
    return { value: undefined, done: true };
  };
  // Stops listening; what is held is still given, then the iteration ends.
  function onAbort() {
    unlisten();
    if (held.size === 0 && dropped === 0) finish();
  }
  if (options.signal?.aborted === true) finish();
  else options.signal?.addEventListener("abort", onAbort, { once: true });

  const iterator: AsyncIterableIterator<CoordinatorEvent | EventsDropped> = {
    next() {
      if (finished) return Promise.resolve({ value: undefined, done: true });
      if (dropped > 0) {
        const count = dropped;
        dropped = 0;
        return Promise.resolve({ value: { type: "events-dropped", count }, done: false });
      }
      const event = held.shift();
      if (event !== undefined) return Promise.resolve({ value: event, done: false });
      if (!listening) return Promise.resolve(finish());
      return new Promise((resolve) => {
        waiting.push(resolve);
      });
    },
    return() {
      return Promise.resolve(finish());
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}

/** A queue of at most `capacity` items; pushing onto a full one drops the oldest. */
class Ring<T> {
  readonly #items: (T | undefined)[];
  #start = 0;
  size = 0;

  constructor(readonly capacity: number) {
    this.#items = [];
  }

  /** Adds `item` at the end; true when the oldest item was dropped to make room. */
  push(item: T): boolean {
    const full = this.size === this.capacity;
    const at = (this.#start + this.size) % this.capacity;
    this.#items[at] = item;
    if (full) this.#start = (this.#start + 1) % this.capacity;
    else this.size++;
    return full;
  }

  shift(): T | undefined {
    if (this.size === 0) return undefined;
    const item = this.#items[this.#start];
    this.#items[this.#start] = undefined;
    this.#start = (this.#start + 1) % this.capacity;
    this.size--;
    return item;
  }

  clear(): void {
    this.#items.length = 0;
    this.#start = 0;
    this.size = 0;
  }
}
