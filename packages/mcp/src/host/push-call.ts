import type { Answers, ExecutorResult, ToolCall } from "@jp/coordinator";
import type { Client } from "@modelcontextprotocol/client";
import {
  ElicitingCall,
  hostCancel,
  type PendingElicitation,
  type SessionHost,
} from "./call-session.js";
import type { ElicitationPlan, ElicitResponse } from "./elicitation.js";
import { completedFromToolResult } from "./tool-result.js";

// setTimeout's ceiling (about 24.8 days); the watchdog below is the real limit.
const NO_SDK_TIMEOUT = 2 ** 31 - 1;

/** Why a pushed elicitation was not queued. */
export type QueueRefusal = "ended" | "full";

/**
 * A tool call on a 2025-era connection: the server pushes `elicitation/create` requests while
 * `tools/call` is in flight. Those requests carry no reference to the call, so the connection
 * runs one call at a time and gives every pushed request to the call holding the line.
 */
export class PushCall extends ElicitingCall {
  readonly #client: Client;
  readonly #maxPending: number;
  readonly #queue: PendingElicitation[] = [];
  readonly #abort = new AbortController();
  #result: { ok: true; value: unknown } | { ok: false; error: unknown } | undefined;
  #started = false;
  #ended = false;
  #wake: (() => void) | undefined;
  #signal: AbortSignal | undefined;
  #onAbort: (() => void) | undefined;
  #inPass = false;
  #watchdog: ReturnType<typeof setTimeout> | undefined;
  // Whether the server's working time counts now (nobody is being asked on its behalf).
  #armed = false;

  constructor(
    host: SessionHost,
    call: ToolCall,
    remoteName: string,
    options: {
      readonly client: Client;
      readonly maxPending: number;
      /** Question ids a person answered at a prompt, shared with the connection. */
      readonly prompted?: Set<string>;
    },
  ) {
    super(host, call, remoteName, options.prompted);
    this.#client = options.client;
    this.#maxPending = options.maxPending;
  }

  get finished(): boolean {
    return this.#ended;
  }

  /** Whether the call may still receive elicitations. */
  get live(): boolean {
    return this.#started && !this.#ended && this.#result === undefined;
  }

  /** Queues a pushed elicitation; resolves with the response the server gets. */
  enqueue(plan: ElicitationPlan, signal: AbortSignal): Promise<ElicitResponse> | QueueRefusal {
    if (!this.live) return "ended";
    if (this.#queue.length >= this.#maxPending) return "full";
    return new Promise((resolve) => {
      const pending: PendingElicitation = {
        plan,
        respond: (response) => {
          const at = this.#queue.indexOf(pending);
          if (at === -1) return;
          this.#queue.splice(at, 1);
          signal.removeEventListener("abort", withdrawn);
          if (this.#queue.length === 0) this.#arm();
          resolve(response);
          this.#notify();
        },
      };
      // The server gave up on its own request: drop it; nobody is told anything.
      const withdrawn = () => pending.respond(hostCancel("interrupted"));
      signal.addEventListener("abort", withdrawn, { once: true });
      this.#queue.push(pending);
      this.#disarm();
      this.#notify();
    });
  }

  async pass(answers: Answers, signal: AbortSignal): Promise<ExecutorResult> {
    if (!this.#started) this.#start();
    this.#follow(signal);
    this.#inPass = true;
    try {
      for (;;) {
        if (signal.aborted) throw signal.reason;
        const head = this.#queue[0];
        if (head !== undefined) {
          const asked = await this.walk(head, answers);
          if (asked !== undefined) return asked;
          continue;
        }
        const result = this.#result;
        if (result !== undefined) {
          this.#ended = true;
          if (result.ok) return completedFromToolResult(result.value);
          if (signal.aborted) throw signal.reason;
          return this.failed(describeFailure(result.error, this.host.serverTimeoutMs));
        }
        await new Promise<void>((resolve) => {
          this.#wake = resolve;
        });
      }
    } finally {
      this.#inPass = false;
    }
  }

  // The coordinator hands each pass of a call the same signal: it is followed once per call, not
  // added and removed on every pass. An abort stops the call only during a pass; between passes
  // the coordinator closes the open question itself, with its recorded reason (see `closed`).
  #follow(signal: AbortSignal): void {
    if (this.#signal === signal) return;
    this.#unfollow();
    const onAbort = () => {
      if (this.#inPass) this.#stop(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    this.#signal = signal;
    this.#onAbort = onAbort;
  }

  #unfollow(): void {
    if (this.#onAbort !== undefined) this.#signal?.removeEventListener("abort", this.#onAbort);
    this.#signal = undefined;
    this.#onAbort = undefined;
  }

  closed(questionId: string, reason: string): void {
    const head = this.#queue[0];
    if (head === undefined) return;
    const response = this.closingResponse(head, questionId, reason);
    if (response === undefined) return;
    head.respond(response);
    // The coordinator stops the call after a closed question: nothing more will be asked.
    this.end();
  }

  // A pushed request lives on its connection and cannot wait for a durable answer: the server is
  // told the host cancelled it, and the resumed call runs the tool again (see connection.ts).
  suspend(): undefined {
    this.#unfollow();
    if (!this.#ended) {
      this.#ended = true;
      this.#stop(new Suspended());
    }
    return undefined;
  }

  end(): void {
    this.#unfollow();
    if (this.#ended) return;
    this.#ended = true;
    this.#stop(new Error("the tool call ended"));
  }

  /** Settles when the server has answered `tools/call` (or the call was stopped). */
  get settled(): Promise<void> {
    return this.#settled;
  }

  #settled: Promise<void> = Promise.resolve();

  #start(): void {
    this.#started = true;
    this.#arm();
    this.#settled = this.#client
      .callTool(
        { name: this.remoteName, arguments: this.call.arguments },
        { signal: this.#abort.signal, timeout: NO_SDK_TIMEOUT },
      )
      .then(
        (value) => {
          this.#result = { ok: true, value };
        },
        (error: unknown) => {
          this.#result = { ok: false, error: this.#abort.signal.reason ?? error };
        },
      )
      .finally(() => {
        this.#clearWatchdog();
        for (const pending of [...this.#queue]) pending.respond(hostCancel("interrupted"));
        this.#notify();
      });
  }

  // Everything left unanswered is released as the host's cancel, and the server is told to stop.
  #stop(reason: unknown): void {
    for (const pending of [...this.#queue]) pending.respond(hostCancel(cancelReason(reason)));
    if (!this.#abort.signal.aborted) this.#abort.abort(reason);
    this.#notify();
  }

  // The server's own working time is limited; time a person spends answering is not counted.
  // One timer per call, restarted with refresh(): disarming only stops counting, and a timer
  // that fires while disarmed is dropped (the next arm starts a new one).
  #arm(): void {
    if (!this.#started || this.#result !== undefined) return;
    this.#armed = true;
    if (this.#watchdog !== undefined) {
      this.#watchdog.refresh();
      return;
    }
    this.#watchdog = setTimeout(() => {
      this.#watchdog = undefined;
      if (this.#armed) this.#stop(new ServerTimeout(this.host.serverTimeoutMs));
    }, this.host.serverTimeoutMs);
  }

  #disarm(): void {
    this.#armed = false;
  }

  #clearWatchdog(): void {
    this.#armed = false;
    if (this.#watchdog !== undefined) clearTimeout(this.#watchdog);
    this.#watchdog = undefined;
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}

/** The server worked longer than allowed without asking anything. */
export class ServerTimeout extends Error {
  override readonly name = "ServerTimeout";
  constructor(readonly ms: number) {
    super(`the server did not answer within ${ms / 1000} s`);
  }
}

/** The turn was suspended at one of the call's questions. */
class Suspended extends Error {
  override readonly name = "Suspended";
  constructor() {
    super("the turn was suspended");
  }
}

function cancelReason(reason: unknown): string {
  if (reason instanceof Suspended) return "suspended";
  if (reason instanceof ServerTimeout) return "timeout";
  if (reason instanceof Error && reason.name === "TimeoutError") return "timeout";
  return "interrupted";
}

/** A failed `tools/call` as text for the model. */
export function describeFailure(error: unknown, timeoutMs: number): string {
  if (error instanceof ServerTimeout) return error.message;
  const code = (error as { code?: unknown } | null)?.code;
  if ((error instanceof Error && error.name === "TimeoutError") || code === "REQUEST_TIMEOUT") {
    return `the server did not answer within ${timeoutMs / 1000} s`;
  }
  return error instanceof Error ? error.message : String(error);
}
