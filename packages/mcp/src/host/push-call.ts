import {
  type ExecuteInput,
  type ExecutorResult,
  type RunStop,
  runStopOf,
  type ToolCall,
} from "@jp/coordinator";
import type { Question } from "@jp/tool";
import type { Client, Tool } from "@modelcontextprotocol/client";
import { cutNoted } from "../internal/json.js";
import {
  ElicitingCall,
  hostCancel,
  openedPage,
  type PendingElicitation,
  type SessionHost,
  untilStopped,
} from "./call-session.js";
import { type ElicitationPlan, type ElicitResponse, planElicitation } from "./elicitation.js";
import type { LineSlot } from "./line.js";
import {
  MAX_PAGE_ROUNDS,
  PAGE_DONE_ID,
  pageDoneQuestion,
  pagesRefused,
  pagesRequired,
} from "./page-required.js";
import type { RefusalReporter } from "./round-call.js";
import { completedFromToolResult } from "./tool-result.js";
import type { Watchdog } from "./watchdog.js";

// setTimeout's ceiling (about 24.8 days); the watchdog below is the real limit.
const NO_SDK_TIMEOUT = 2 ** 31 - 1;

/** One page of a round the server needs opened, and the response once the person decided. */
interface PageEntry {
  readonly pending: PendingElicitation;
  readonly host: string;
  response: ElicitResponse | undefined;
}

interface PageRound {
  readonly entries: readonly PageEntry[];
  /** The pages' hosts, each once. */
  readonly hosts: readonly string[];
  /** Asked once every page is open: the person says when they are done there. */
  readonly done: Question;
}

/** Why a pushed elicitation was not queued. */
export type QueueRefusal = "ended" | "full";

/** A call's place in its connection's line: 2025-era calls run one at a time. */
export interface LinePlace {
  /** The slot of the call before this one, released once the server let go of that call. */
  readonly previous: LineSlot | undefined;
  /** This call's slot, released once the server has let go of this call. */
  readonly slot: LineSlot;
  /** The call took the line: pushed elicitations are now its own. */
  readonly enter: (call: PushCall) => void;
  /** The call has left the line: no pushed elicitation is its own any more. */
  readonly leave: (call: PushCall) => void;
  /**
   * The controller that stops the line's call in flight: one serves every call in turn, since
   * only one runs at a time; a stopped call's controller is never handed out again.
   */
  readonly controller: () => AbortController;
  /** The server's working-time limit, shared like the controller. */
  readonly watchdog: Watchdog;
}

/**
 * A tool call on a 2025-era connection: the server pushes `elicitation/create` requests while
 * `tools/call` is in flight. Those requests carry no reference to the call, so the connection
 * runs one call at a time and gives every pushed request to the call holding the line.
 */
export class PushCall extends ElicitingCall {
  readonly #client: Client;
  readonly #definition: Tool | undefined;
  readonly #maxPending: number;
  readonly #maxElicitations: number;
  // Elicitations the server pushed in this call (every run of its tool), queued or answered.
  #pushed = 0;
  readonly #refused: RefusalReporter;
  readonly #queue: Pushed[] = [];
  #abort: AbortController | undefined;
  readonly #line: LinePlace;
  #result: { ok: true; value: unknown } | { ok: false; error: unknown } | undefined;
  #started = false;
  #ended = false;
  // Line state: entered it, left it, and whether the server has let go of the call.
  #entered = false;
  #left = false;
  #settled = true;
  #wake: (() => void) | undefined;
  readonly #watchdog: Watchdog;
  // The pages the server needs opened before it runs the tool (a `-32042` answer), while the
  // person is asked about them; and how many such rounds the person finished (kept across
  // restarts: a round replayed after one is not counted twice).
  #pages: PageRound | undefined;
  #pageRounds = 0;
  // Set once the person opened a page the server asked for, until the server asks again.
  #pageOpen = false;

  constructor(
    host: SessionHost,
    call: ToolCall,
    remoteName: string,
    options: {
      readonly client: Client;
      readonly maxPending: number;
      /** Elicitations the server may push in the whole call; more are refused unasked. */
      readonly maxElicitations: number;
      /** Question ids a person answered at a prompt, shared with the connection. */
      readonly prompted?: Set<string>;
      /** What the opening questions of the call's earlier runs asked. */
      readonly gates?: Readonly<Record<string, string>>;
      /** Ids the call's earlier runs used up. */
      readonly spent?: readonly string[];
      /** Rounds of pages the call's earlier runs had. */
      readonly pageRounds?: number;
      /** Where the call waits its turn in its connection's line. */
      readonly line: LinePlace;
      /** Told about pages the call refuses to offer (see `onRefused`). */
      readonly refused: RefusalReporter;
      /** The tool's definition as the server listed it (its output schema checks the result). */
      readonly definition?: Tool | undefined;
    },
  ) {
    super(host, call, remoteName, options.prompted, options.gates, options.spent);
    this.#client = options.client;
    this.#definition = options.definition;
    this.#maxPending = options.maxPending;
    this.#maxElicitations = options.maxElicitations;
    this.#refused = options.refused;
    this.#pageRounds = options.pageRounds ?? 0;
    this.#line = options.line;
    this.#watchdog = options.line.watchdog;
  }

  get finished(): boolean {
    return this.#ended;
  }

  get pageRounds(): number {
    return this.#pageRounds;
  }

  /** Whether the call may still receive elicitations. */
  get live(): boolean {
    // Not between a `-32042` answer and the call sent again: no `tools/call` runs then.
    return this.#started && !this.#ended && !this.#settled && this.#result === undefined;
  }

  /** Whether the server has pushed as many elicitations as the call takes: more are refused. */
  get exhausted(): boolean {
    return this.#pushed >= this.#maxElicitations;
  }

  /** Queues a pushed elicitation; resolves with the response the server gets. */
  enqueue(plan: ElicitationPlan, signal: AbortSignal): Promise<ElicitResponse> | QueueRefusal {
    if (!this.live) return "ended";
    if (this.#queue.length >= this.#maxPending) this.#dropWithdrawn();
    if (this.#queue.length >= this.#maxPending) return "full";
    this.#pushed += 1;
    return new Promise((resolve) => {
      const pending = new Pushed(this, plan, signal, resolve);
      this.#queue.push(pending);
      // The server asks again: it is no longer waiting for a page to be used.
      this.#pageOpen = false;
      this.#disarm();
      this.#notify();
    });
  }

  /** Sends the server `response` to a queued elicitation; later responses to it do nothing. */
  respondTo(pending: Pushed, response: ElicitResponse): void {
    const at = this.#queue.indexOf(pending);
    if (at === -1) return;
    this.#queue.splice(at, 1);
    if (openedPage(pending.plan, response)) this.#pageOpen = true;
    if (this.#queue.length === 0) this.#arm();
    pending.resolve(response);
    this.#notify();
  }

  async pass(input: ExecuteInput): Promise<ExecutorResult> {
    const { answers } = input;
    const stop = runStopOf(input);
    if (!this.#entered) {
      const waiting = this.#enter(stop);
      if (waiting !== undefined) await waiting;
    }
    if (!this.#started) this.#start();
    // The run stopping while this pass runs stops the call. Between passes it stops nothing here:
    // the coordinator closes the open question itself, with its recorded reason (see `closed`).
    const forget = stop.onAbort((reason) => this.#stop(reason));
    try {
      for (;;) {
        if (stop.aborted) throw stop.reason;
        const head = this.#queue[0];
        if (head !== undefined) {
          if (head.withdrawn) {
            head.respond(hostCancel("interrupted"));
            continue;
          }
          // Only a URL the person consented to open is awaited; a form is walked at once.
          const asked = this.walk(head, answers);
          if (asked === undefined) continue;
          if (asked instanceof Promise) {
            await untilStopped(asked, stop);
            continue;
          }
          return asked;
        }
        const pages = this.#pages;
        if (pages !== undefined) {
          const step = this.#walkPages(pages, answers);
          if (step === undefined) continue;
          if (step instanceof Promise) {
            await untilStopped(step, stop);
            continue;
          }
          return step;
        }
        const result = this.#result;
        if (result !== undefined && !result.ok) {
          const needs = this.#needsPages(result.error);
          if (needs === true) continue;
          if (needs !== undefined) {
            // Refused without asking anyone: the host's log hears of it, as of a pushed one.
            this.#refused(needs);
            return this.#endPages(needs);
          }
        }
        if (result !== undefined) {
          this.#ended = true;
          this.#leave();
          if (result.ok) return completedFromToolResult(result.value, this.host.maxResultLength);
          if (stop.aborted) throw stop.reason;
          return this.failed(describeFailure(result.error, this.host.serverTimeoutMs));
        }
        await new Promise<void>((resolve) => {
          this.#wake = resolve;
        });
      }
    } catch (error) {
      this.#leave();
      throw error;
    } finally {
      forget();
    }
  }

  // The server answered that the person must first open its pages: each is asked about like a
  // pushed URL elicitation (consent, then opened), then the person says when they are done, and
  // the tool is called again. `undefined` for any other failure; why not, when the call cannot
  // go on so.
  #needsPages(error: unknown): true | string | undefined {
    const requested = pagesRequired(error);
    if (requested === undefined) return undefined;
    if (this.host.openUrl === undefined) {
      return "it needs a page opened first (URL mode), which this client does not offer";
    }
    if (this.#pageRounds >= MAX_PAGE_ROUNDS) {
      return `it still needed a page opened after ${MAX_PAGE_ROUNDS} rounds of pages`;
    }
    if (requested.length > this.#maxPending) {
      return `it needs ${requested.length} pages opened at once; this client takes at most ${this.#maxPending}`;
    }
    const entries: PageEntry[] = [];
    for (const params of requested) {
      const plan = planElicitation(params, this.asker, this.ids);
      if (plan.isErr()) return `its page could not be offered: ${plan.error.message}`;
      if (plan.value.mode !== "url") return "it asked for a form where only pages may be asked";
      const entry: PageEntry = {
        pending: { plan: plan.value, respond: (response) => (entry.response = response) },
        host: plan.value.url.host,
        response: undefined,
      };
      entries.push(entry);
    }
    this.#result = undefined;
    const hosts = [...new Set(entries.map((entry) => entry.host))];
    // Its answer is for these pages: a recorded "continue" for other pages never answers it.
    const done = pageDoneQuestion(
      this.ids.takeGate(PAGE_DONE_ID, `done ${JSON.stringify([...hosts].sort())}`),
      this.asker,
      hosts,
    );
    this.#pages = { entries, hosts, done };
    return true;
  }

  // The next step of a round of pages: a question, an opening to wait for, a failure, or
  // `undefined` once the tool has been called again.
  #walkPages(
    pages: PageRound,
    answers: ExecuteInput["answers"],
  ): ExecutorResult | Promise<undefined> | undefined {
    if (this.#ended) return this.#endPages("the call ended while its pages were asked about");
    const done = answers[pages.done.id];
    if (done !== undefined) {
      // Answered (or before a restart): the pages were opened then. The tool runs again
      // without opening them once more, or the call ends.
      return done === "continue" ? this.#pagesDone() : this.#notContinued(pages);
    }
    for (const entry of pages.entries) {
      if (entry.response === undefined) {
        const asked = this.walk(entry.pending, answers);
        if (asked !== undefined) return asked;
      }
      // A page declined (or not opened) ends the round: the others are not offered.
      if (entry.response?.action !== "accept") break;
    }
    const { hosts } = pages;
    const refused = pagesRefused(
      pages.entries.flatMap((entry) => (entry.response === undefined ? [] : [entry.response])),
      hosts,
    );
    if (refused !== undefined) return this.#endPages(refused);
    return {
      type: "needs_input",
      question: pages.done,
      source: { source: "tool", name: this.call.name },
    };
  }

  #notContinued(pages: PageRound): ExecutorResult {
    return this.#endPages(
      `the user did not continue after opening its page (on ${pages.hosts.join(", ")})`,
    );
  }

  // The person is done on the round's pages: every answer given so far in this call is used
  // up (the tool call sent again is a new run of the tool: what it asks, even after a restart,
  // is asked anew and never answered by what an earlier run was told), and the tool runs again.
  #pagesDone(): undefined {
    this.ids.spend(this.ids.list());
    this.#pageRounds += 1;
    this.#pages = undefined;
    this.#start();
    return undefined;
  }

  #endPages(message: string): ExecutorResult {
    this.#pages = undefined;
    this.#ended = true;
    this.#leave();
    return this.failed(message);
  }

  // Takes the line: a free one at once, without a promise; a held one once the call before has
  // left it. A pass aborted before it entered gives its place up once the call before has left.
  #enter(stop: RunStop): Promise<void> | undefined {
    this.#entered = true;
    const line = this.#line;
    const previous = line.previous;
    if (stop.aborted || (previous !== undefined && !previous.released)) {
      return (previous?.wait(stop) ?? Promise.reject(stop.reason)).then(
        () => line.enter(this),
        (error: unknown) => {
          this.#left = true;
          line.slot.releaseAfter(previous);
          throw error;
        },
      );
    }
    line.enter(this);
    return undefined;
  }

  // The call leaves the line; the next call starts only once the server has let go of this one.
  #leave(): void {
    const line = this.#line;
    if (this.#left) return;
    this.#left = true;
    if (!this.#entered) {
      line.slot.releaseAfter(line.previous);
      return;
    }
    line.leave(this);
    if (this.#settled) line.slot.release();
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
    if (!this.#ended) {
      this.#ended = true;
      this.#stop(new Suspended());
    }
    this.#leave();
    return undefined;
  }

  end(): void {
    if (!this.#ended) {
      this.#ended = true;
      this.#stop(new Error("the tool call ended"));
    }
    this.#leave();
  }

  #start(): void {
    this.#started = true;
    this.#settled = false;
    this.#pageOpen = false;
    this.#arm();
    const abort = this.#line.controller();
    this.#abort = abort;
    this.#client
      .callTool(
        { name: this.remoteName, arguments: this.call.arguments },
        {
          signal: abort.signal,
          timeout: NO_SDK_TIMEOUT,
          ...(this.#definition === undefined ? {} : { toolDefinition: this.#definition }),
        },
      )
      .then(
        (value) => this.#settle({ ok: true, value }),
        (error: unknown) => this.#settle({ ok: false, error: abort.signal.reason ?? error }),
      );
  }

  // The server answered `tools/call` (or the call was stopped): what still waits is released.
  #settle(result: { ok: true; value: unknown } | { ok: false; error: unknown }): void {
    this.#result = result;
    this.#settled = true;
    this.#disarm();
    this.#cancelQueued("interrupted");
    this.#notify();
    if (this.#left) this.#line.slot.release();
  }

  // Everything left unanswered is released as the host's cancel, and the server is told to stop.
  #stop(reason: unknown): void {
    this.#cancelQueued(cancelReason(reason));
    // Only a request in flight is stopped: the controller may serve the next call after this one.
    const abort = this.#abort;
    if (abort !== undefined && !this.#settled && !abort.signal.aborted) abort.abort(reason);
    this.#notify();
  }

  // The server gave up on these requests (their signals aborted): they are dropped, and nobody is
  // told anything (the SDK sends nothing for a withdrawn request). Found when the call walks its
  // queue or the queue is full, rather than by a listener on every request.
  #dropWithdrawn(): void {
    for (const pending of this.#queue.filter((queued) => queued.withdrawn)) {
      pending.respond(hostCancel("interrupted"));
    }
  }

  #cancelQueued(reason: string): void {
    if (this.#queue.length === 0) return;
    for (const pending of [...this.#queue]) pending.respond(hostCancel(reason));
  }

  // The server's own working time is limited; time a person spends answering is not counted:
  // the limit counts from the call's start and again from each answer, while nothing waits.
  // After the person opened a page the server asked for, the server waits for the page to be
  // used: the longer page allowance counts until it answers or asks again.
  #arm(): void {
    if (!this.#started || this.#result !== undefined) return;
    const { pageTimeoutMs, serverTimeoutMs } = this.host;
    this.#expiresAfter = this.#pageOpen
      ? Math.max(pageTimeoutMs, serverTimeoutMs)
      : serverTimeoutMs;
    this.#watchdog.arm(this.#expire, this.#expiresAfter);
  }

  #disarm(): void {
    this.#watchdog.disarm(this.#expire);
  }

  // The allowance counting now, for the failure's text.
  #expiresAfter = 0;

  readonly #expire = (): void => {
    this.#stop(new ServerTimeout(this.#expiresAfter));
  };

  #notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}

/** A pushed elicitation waiting in its call's queue. */
export class Pushed implements PendingElicitation {
  constructor(
    readonly call: PushCall,
    readonly plan: ElicitationPlan,
    readonly signal: AbortSignal,
    readonly resolve: (response: ElicitResponse) => void,
  ) {}

  /** Whether the server gave up on the request (a cancellation, its own timeout, a close). */
  get withdrawn(): boolean {
    return this.signal.aborted;
  }

  respond(response: ElicitResponse): void {
    this.call.respondTo(this, response);
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

/** The longest part of a server's error text the model is given, in characters. */
export const MAX_ERROR_TEXT_LENGTH = 2048;
/** The longest part of the reason an answer could not be read, in characters. */
const MAX_UNREADABLE_LENGTH = 300;

/** A failed `tools/call` as text for the model. */
export function describeFailure(error: unknown, timeoutMs: number): string {
  if (error instanceof ServerTimeout) return error.message;
  const code = (error as { code?: unknown } | null)?.code;
  if ((error instanceof Error && error.name === "TimeoutError") || code === "REQUEST_TIMEOUT") {
    return `the server did not answer within ${timeoutMs / 1000} s`;
  }
  const text = error instanceof Error ? error.message : String(error);
  // The SDK's account of a result it could not read ends in a dump of every schema issue.
  if (code === "INVALID_RESULT" || code === "UNSUPPORTED_RESULT_TYPE") {
    const reason = cutNoted(text.replace(/\s+/g, " "), MAX_UNREADABLE_LENGTH);
    return `its answer to the tool call could not be read: ${reason}`;
  }
  return cutNoted(text, MAX_ERROR_TEXT_LENGTH);
}
