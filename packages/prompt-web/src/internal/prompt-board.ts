import { randomUUID } from "node:crypto";
import { HumanUnreachableError, type PromptRequest, type ReplyFor } from "@jp/coordinator";
import type { PromptReply } from "@jp/rpc";
import type { EventEmitter } from "eventemitter3";
import type { WebPromptOutcome, WebPromptsEvents } from "../events.js";
import type { InboxSnapshot } from "./inbox-board.js";
import { checkReply, type ReplyProblem } from "./reply-check.js";

/** How long the board waits for a page, both before the first one and after the last one left. */
export interface PageWaits {
  /** With no page open, how long a prompt (or a reachability check) waits for one. */
  readonly waitForPageMs: number;
  /** After the last page closed, how long prompts wait for one to come back (a reload). */
  readonly disconnectGraceMs: number;
}

/** Why a prompt failed for want of a page: none was open, or the last one closed meanwhile. */
const NO_PAGE = "no prompt page is open";
const PAGE_LEFT = "the prompt page was closed and did not come back";

/** A prompt waiting for its answer. */
interface Entry {
  readonly id: string;
  readonly conversationId: string;
  readonly request: PromptRequest;
  readonly openedAt: number;
  readonly settle: (outcome: Settlement) => void;
  /** Fires when no page came back in time. */
  noPageTimer: ReturnType<typeof setTimeout> | undefined;
}

type Settlement =
  | { readonly type: "reply"; readonly reply: PromptReply }
  | { readonly type: "aborted" }
  | { readonly type: "unreachable"; readonly message: string };

/** What the page receives on every change: the waiting prompts, by conversation. */
export interface BoardSnapshot {
  /** The server's clock (ms since the epoch), so the page can show waiting times. */
  readonly now: number;
  readonly conversations: readonly {
    readonly id: string;
    readonly title?: string;
    readonly prompts: readonly {
      readonly id: string;
      readonly opened_at: number;
      /** Only the first prompt of a conversation can be answered; the rest wait their turn. */
      readonly active: boolean;
      readonly request: PromptRequest;
    }[];
  }[];
  /** The prompts of a store (suspended turns, hosts elsewhere), when the page has a source. */
  readonly inbox?: InboxSnapshot;
}

/** What the board needs of the stored prompts: their view, and to know when pages come and go. */
export interface InboxPart {
  view(): InboxSnapshot;
  pagesChanged(pages: number): void;
}

/** The result of a reply posted by the page. */
export type ReplyResult =
  | { readonly type: "accepted" }
  | { readonly type: "not_found" }
  | { readonly type: "not_active" }
  | { readonly type: "invalid"; readonly problem: ReplyProblem };

/** A page listening for changes: called with the snapshot at once, then after each turn of the event loop that changed it. */
export type PageListener = (snapshot: BoardSnapshot) => void;

/**
 * The prompts waiting for a person, grouped by conversation, and the pages that show them. A
 * conversation's prompts are answered one at a time, in the order they were asked; prompts of
 * different conversations are open side by side. Replies are checked here before a prompt
 * settles, and no reply value is kept once its prompt has settled.
 */
export class PromptBoard {
  readonly #entries: Entry[] = [];
  readonly #titles = new Map<string, string>();
  readonly #pages = new Set<PageListener>();
  readonly #pageWaiters = new Set<() => void>();
  readonly #waits: PageWaits;
  readonly #events: EventEmitter<WebPromptsEvents>;
  /** Until when prompts keep waiting for a page to come back after the last one left. */
  #graceUntil = 0;
  #closed = false;
  #inbox: InboxPart | undefined;

  constructor(waits: PageWaits, events: EventEmitter<WebPromptsEvents>) {
    this.#waits = waits;
    this.#events = events;
  }

  /** How many pages are listening now. */
  get pages(): number {
    return this.#pages.size;
  }

  /** Whether {@link PromptBoard.close} was called. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Shows the prompts of a store beside the live ones. */
  setInbox(inbox: InboxPart): void {
    this.#inbox = inbox;
  }

  /** Sends the pages what they show now (after the stored prompts changed). */
  changed(): void {
    this.#broadcast();
  }

  /** Names a conversation on the page. */
  setTitle(conversationId: string, title: string): void {
    this.#titles.set(conversationId, title);
    this.#broadcast();
  }

  /** The waiting prompts as the page shows them. */
  snapshot(): BoardSnapshot {
    const byConversation = new Map<string, Entry[]>();
    for (const entry of this.#entries) {
      const list = byConversation.get(entry.conversationId) ?? [];
      list.push(entry);
      byConversation.set(entry.conversationId, list);
    }
    return {
      now: Date.now(),
      conversations: [...byConversation].map(([id, entries]) => {
        const title = this.#titles.get(id);
        return {
          id,
          ...(title === undefined ? {} : { title }),
          prompts: entries.map((entry, index) => ({
            id: entry.id,
            opened_at: entry.openedAt,
            active: index === 0,
            request: entry.request,
          })),
        };
      }),
      ...(this.#inbox === undefined ? {} : { inbox: this.#inbox.view() }),
    };
  }

  /**
   * Puts a prompt on the board and resolves with the person's reply. An aborted signal resolves
   * `cancelled`; no page in time rejects with {@link HumanUnreachableError}.
   */
  ask<R extends PromptRequest>(
    conversationId: string,
    request: R,
    signal: AbortSignal,
  ): Promise<ReplyFor<R>> {
    if (signal.aborted) return Promise.resolve({ type: "cancelled" } as ReplyFor<R>);
    if (this.#closed) {
      return Promise.reject(new HumanUnreachableError("the prompt page has been shut down"));
    }
    return new Promise<ReplyFor<R>>((resolve, reject) => {
      const onAbort = () => settle({ type: "aborted" });
      const settle = (outcome: Settlement) => {
        const index = this.#entries.indexOf(entry);
        if (index === -1) return;
        this.#entries.splice(index, 1);
        clearTimeout(entry.noPageTimer);
        signal.removeEventListener("abort", onAbort);
        this.#events.emit("prompt-closed", {
          promptId: entry.id,
          conversationId,
          kind: request.kind,
          outcome: outcomeOf(outcome),
        });
        this.#broadcast();
        if (outcome.type === "reply") resolve(outcome.reply as ReplyFor<R>);
        else if (outcome.type === "aborted") resolve({ type: "cancelled" } as ReplyFor<R>);
        else reject(new HumanUnreachableError(outcome.message));
      };
      const entry: Entry = {
        id: randomUUID(),
        conversationId,
        request,
        openedAt: Date.now(),
        settle,
        noPageTimer: undefined,
      };
      this.#entries.push(entry);
      signal.addEventListener("abort", onAbort, { once: true });
      this.#events.emit("prompt-opened", {
        promptId: entry.id,
        conversationId,
        request: withoutAnswer(request),
      });
      if (this.#pages.size === 0) {
        const left = Date.now() < this.#graceUntil;
        this.#startNoPageTimer(entry, this.#noPageWait(), left ? PAGE_LEFT : NO_PAGE);
      }
      this.#broadcast();
    });
  }

  /** Applies a reply the page posted for prompt `id`, if it is valid and the prompt's turn. */
  reply(id: string, body: unknown): ReplyResult {
    const entry = this.#entries.find((candidate) => candidate.id === id);
    if (entry === undefined) return { type: "not_found" };
    const first = this.#entries.find((other) => other.conversationId === entry.conversationId);
    if (first !== entry) return { type: "not_active" };
    const checked = checkReply(entry.request, body);
    if (!checked.ok) return { type: "invalid", problem: checked.problem };
    entry.settle({ type: "reply", reply: checked.reply });
    return { type: "accepted" };
  }

  /** A page starts listening; it gets the snapshot at once and after changes. */
  connect(listener: PageListener): () => void {
    this.#pages.add(listener);
    for (const entry of this.#entries) {
      clearTimeout(entry.noPageTimer);
      entry.noPageTimer = undefined;
    }
    for (const wake of [...this.#pageWaiters]) wake();
    this.#events.emit("page-connected", { pages: this.#pages.size });
    this.#inbox?.pagesChanged(this.#pages.size);
    listener(this.snapshot());
    let connected = true;
    return () => {
      if (!connected) return;
      connected = false;
      this.#pages.delete(listener);
      this.#events.emit("page-disconnected", { pages: this.#pages.size });
      this.#inbox?.pagesChanged(this.#pages.size);
      if (this.#pages.size > 0 || this.#closed) return;
      this.#graceUntil = Date.now() + this.#waits.disconnectGraceMs;
      const wait = this.#noPageWait();
      for (const entry of this.#entries) this.#startNoPageTimer(entry, wait, PAGE_LEFT);
    };
  }

  /**
   * Resolves `true` once a page is open, or `false` after `timeoutMs` (no limit when absent), on
   * `signal`, or when the board closes.
   */
  waitForPage(
    options: { readonly timeoutMs?: number; readonly signal?: AbortSignal | undefined } = {},
  ) {
    const { timeoutMs, signal } = options;
    if (this.#pages.size > 0) return Promise.resolve(true);
    if (this.#closed || signal?.aborted === true || timeoutMs === 0) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      const finish = () => {
        this.#pageWaiters.delete(finish);
        clearTimeout(timer);
        signal?.removeEventListener("abort", finish);
        resolve(this.#pages.size > 0);
      };
      const timer =
        timeoutMs === undefined || !Number.isFinite(timeoutMs)
          ? undefined
          : // setTimeout fires at once for delays over 2^31-1 ms, so longer waits are capped there.
            setTimeout(finish, Math.min(timeoutMs, 2 ** 31 - 1));
      timer?.unref();
      this.#pageWaiters.add(finish);
      signal?.addEventListener("abort", finish, { once: true });
    });
  }

  /**
   * Whether a person can answer: a page is open, or one opens within the configured wait. The
   * wait ends, `false`, as soon as `signal` aborts.
   */
  isReachable(signal?: AbortSignal): Promise<boolean> {
    return this.waitForPage({ timeoutMs: this.#noPageWait(), signal });
  }

  /** Closes the board: open prompts reject as unreachable, waiters resolve `false`. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const entry of [...this.#entries]) {
      entry.settle({ type: "unreachable", message: "the prompt page was shut down" });
    }
    for (const wake of [...this.#pageWaiters]) wake();
  }

  /** How long, from now, a prompt waits for a page when none is open. */
  #noPageWait(): number {
    const grace = Math.max(0, this.#graceUntil - Date.now());
    return Math.max(this.#waits.waitForPageMs, grace);
  }

  #startNoPageTimer(entry: Entry, ms: number, message: string): void {
    clearTimeout(entry.noPageTimer);
    entry.noPageTimer = undefined;
    if (!Number.isFinite(ms)) return;
    // setTimeout fires at once for delays over 2^31-1 ms, so longer waits are capped there.
    entry.noPageTimer = setTimeout(
      () => entry.settle({ type: "unreachable", message }),
      Math.min(ms, 2 ** 31 - 1),
    );
  }

  // Changes that come together (the prompts of many concurrent calls, opened in one turn of the
  // event loop) go out as one snapshot: one per change would send the whole board once for every
  // prompt, a cost that grows with the square of the prompts waiting.
  #broadcastSoon: ReturnType<typeof setImmediate> | undefined;

  #broadcast(): void {
    if (this.#pages.size === 0 || this.#broadcastSoon !== undefined) return;
    this.#broadcastSoon = setImmediate(() => {
      this.#broadcastSoon = undefined;
      if (this.#pages.size === 0) return;
      const snapshot = this.snapshot();
      for (const listener of [...this.#pages]) listener(snapshot);
    });
  }
}

/**
 * The request as the `prompt-opened` event tells it: without `initial`, which holds the person's
 * earlier answer when they went back, and without `error`, which says why a question is asked
 * again and quotes the answer that was refused. Hosts log events; the page reads the request
 * from the board.
 */
function withoutAnswer(request: PromptRequest): PromptRequest {
  if (request.kind !== "question" || (request.initial === undefined && request.error === undefined))
    return request;
  const { initial: _answer, error: _refused, ...rest } = request;
  return rest;
}

function outcomeOf(settlement: Settlement): WebPromptOutcome {
  return settlement.type === "reply" ? settlement.reply.type : settlement.type;
}
