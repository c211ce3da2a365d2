import { setMaxListeners } from "node:events";
import type { JsonObject } from "@jp/conversation";
import {
  type Answers,
  type BuiltinToolInput,
  type ExecuteInput,
  listenForAbort,
  type RunStop,
  type ToolCall,
} from "../backends/executor.js";
import type { ToolCoordinator } from "./tool-coordinator.js";

/** Whether something stopped, and why: what `abortCause` and the prompt queue read. */
export interface Stopped {
  readonly aborted: boolean;
  readonly reason: unknown;
}

// How many inputs and options a run hands out with its signal deferred before it makes one.
const DEFERRALS = 8;

/**
 * What stops a run: the host's signal, or a person ending the turn. Its `AbortSignal` is made
 * only when some code asks for one (a prompt backend, an executor, a tool reading `signal`):
 * making a signal costs more than the rest of a question round, and most rounds never read it.
 * A run of many rounds makes it after a few (see {@link RunAbort.signalIfDue}). Until it is made,
 * `aborted` and `reason` answer as the signal would: the first abort wins.
 */
export class RunAbort implements Stopped {
  readonly #outer: AbortSignal | undefined;
  #controller: AbortController | undefined;
  #signal: AbortSignal | undefined;
  #aborted = false;
  #reason: unknown;
  #deferred = 0;
  // `stop.onAbort` listeners given while the run had no signal; undefined once told.
  #listeners: Set<(reason: unknown) => void> | undefined;
  #stop: RunStop | undefined;
  #options: SignalOnRead | undefined;

  /** `outer`: a signal the run follows (the host's); the run also stops on {@link abort}. */
  constructor(outer?: AbortSignal) {
    this.#outer = outer;
  }

  /** The run's stop as executors see it: read-only, and never making the signal. */
  get stop(): RunStop {
    this.#stop ??= new RunAbortStop(this);
    return this.#stop;
  }

  /**
   * `{ signal }` with the run's signal made when read: the options of every prompt the run shows
   * without a deadline of its own. One object for the run, as nothing in it differs per prompt.
   */
  get options(): SignalOnRead {
    this.#options ??= new SignalOnRead(this);
    return this.#options;
  }

  /**
   * Calls `listener` once the run stops. Without a signal of its own, a run keeps its listeners
   * itself; one that follows a host's signal listens through its own signal, which Node.js lets
   * go of with the run (a listener on the host's signal, which may outlive many runs, would not).
   */
  onAbort(listener: (reason: unknown) => void): () => void {
    if (this.#signal !== undefined || this.#outer !== undefined) {
      return listenForAbort(this.signal, listener);
    }
    if (this.#aborted) return () => undefined;
    const listeners = this.#listeners ?? new Set();
    this.#listeners = listeners;
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
    };
  }

  get aborted(): boolean {
    return this.#aborted || this.#outer?.aborted === true;
  }

  get reason(): unknown {
    return this.#aborted ? this.#reason : this.#outer?.reason;
  }

  /** The run's signal, made on first use; it aborts with the same reason as the run. */
  get signal(): AbortSignal {
    if (this.#signal !== undefined) return this.#signal;
    const controller = new AbortController();
    if (this.#aborted) controller.abort(this.#reason);
    this.#controller = controller;
    const signal =
      this.#outer === undefined
        ? controller.signal
        : AbortSignal.any([this.#outer, controller.signal]);
    // Every call, prompt and executor of the run may listen to it: many listeners are expected.
    setMaxListeners(0, signal);
    this.#signal = signal;
    return signal;
  }

  /**
   * The signal when handing it out as a plain value is the cheaper choice: once it is made, or
   * once the run has deferred it {@link DEFERRALS} times (a run of many rounds pays for the signal
   * once rather than for a deferral on every round). `undefined`: defer it.
   */
  signalIfDue(): AbortSignal | undefined {
    if (this.#signal !== undefined || ++this.#deferred > DEFERRALS) return this.signal;
    return undefined;
  }

  /** Stops the run with `reason`, unless it has stopped already (then its first reason stays). */
  abort(reason: unknown): void {
    if (this.aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    this.#controller?.abort(reason);
    const listeners = this.#listeners;
    this.#listeners = undefined;
    if (listeners !== undefined) for (const listener of listeners) listener(reason);
  }
}

// What `RunAbort.stop` hands out: its reads and `onAbort`, not `abort`.
class RunAbortStop implements RunStop {
  readonly #run: RunAbort;

  constructor(run: RunAbort) {
    this.#run = run;
  }

  get aborted(): boolean {
    return this.#run.aborted;
  }

  get reason(): unknown {
    return this.#run.reason;
  }

  onAbort(listener: (reason: unknown) => void): () => void {
    return this.#run.onAbort(listener);
  }
}

/**
 * `{ signal }` whose signal is made when first read: options for a prompt backend, a tool pass's
 * input. `signal` is an own, enumerable property, so a wrapper that spreads the object
 * (`{ ...options, … }`) still passes it on. It is defined with one shared descriptor: an object
 * literal with a getter is built on a slow path, and a run makes one for every prompt and pass.
 */
export class SignalOnRead {
  declare readonly signal: AbortSignal;
  readonly #from: { readonly signal: AbortSignal } | AbortSignal;

  static readonly #signal: PropertyDescriptor = {
    enumerable: true,
    get(this: SignalOnRead): AbortSignal {
      const from = this.#from;
      return from instanceof AbortSignal ? from : from.signal;
    },
  };

  /** `from`: the signal, or what makes it on demand (a run's {@link RunAbort}, another input). */
  constructor(from: { readonly signal: AbortSignal } | RunAbort | AbortSignal) {
    this.#from = from;
    const due =
      from instanceof AbortSignal
        ? from
        : from instanceof RunAbort
          ? from.signalIfDue()
          : undefined;
    if (due === undefined) Object.defineProperty(this, "signal", SignalOnRead.#signal);
    else (this as { signal: AbortSignal }).signal = due;
  }
}

/**
 * What one pass of a tool receives, with the run's signal made when read. It is also a built-in
 * tool's input (`arguments` is the call's), so the built-in executor passes it on as it is.
 */
export class PassInput extends SignalOnRead implements ExecuteInput, BuiltinToolInput {
  readonly call: ToolCall;
  readonly arguments: JsonObject;
  readonly answers: Answers;
  readonly answeredByDefault: ReadonlySet<string>;
  readonly stop: RunStop;
  readonly coordinator: ToolCoordinator;

  constructor(
    call: ToolCall,
    answers: Answers,
    answeredByDefault: ReadonlySet<string>,
    abort: RunAbort,
    coordinator: ToolCoordinator,
  ) {
    super(abort);
    this.call = call;
    this.arguments = call.arguments;
    this.answers = answers;
    this.answeredByDefault = answeredByDefault;
    this.stop = abort.stop;
    this.coordinator = coordinator;
  }
}
