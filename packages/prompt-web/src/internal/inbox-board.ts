import type { PromptRequest, StoredReply } from "@jp/coordinator";
import type { EventEmitter } from "eventemitter3";
import { err } from "neverthrow";
import type { WebPromptsEvents } from "../events.js";
import type { InboxListing, InboxSource } from "../inbox-source.js";
import { checkReply, fieldProblems, type ReplyProblem } from "./reply-check.js";

/** What the page receives of the stored prompts, beside the live ones. */
export interface InboxSnapshot {
  /** `loading` before the first listing; `unavailable` when the last one failed (`message`). */
  readonly status: "loading" | "ready" | "unavailable";
  readonly message?: string;
  readonly conversations: readonly {
    readonly id: string;
    readonly title?: string;
    readonly prompts: readonly {
      readonly id: string;
      /** Since when it waits, in ms since the epoch. */
      readonly since: number;
      /** When it expires, in ms since the epoch. */
      readonly deadline?: number;
      readonly state: "suspended" | "live";
      readonly request: PromptRequest;
    }[];
  }[];
  /** Conversations the store could not read. */
  readonly unreadable: readonly { readonly conversation: string; readonly message: string }[];
}

/** The result of an answer posted for a stored prompt. */
export type InboxReplyResult =
  | { readonly type: "accepted" }
  | { readonly type: "bad_request"; readonly message: string }
  | { readonly type: "gone"; readonly message: string }
  | { readonly type: "conflict"; readonly message: string }
  | { readonly type: "unavailable"; readonly message: string }
  | { readonly type: "invalid"; readonly problem: ReplyProblem & { readonly kind?: string } };

/** Why a secret cannot be answered from the page, in the words the page shows. */
export const SECRET_NOT_STORED =
  "A secret is never stored, so it cannot be answered here: it is asked when the turn resumes with someone at a live prompt.";

const EMPTY: InboxSnapshot = { status: "loading", conversations: [], unreadable: [] };

/**
 * The prompts an {@link InboxSource} holds, as the page shows them: listed again whenever the
 * source says something changed, while at least one page is open, and after every answer given
 * here, so a prompt answered in one tab or process leaves every open page.
 */
export class InboxBoard {
  readonly #source: InboxSource;
  readonly #events: EventEmitter<WebPromptsEvents>;
  readonly #changed: () => void;
  #view: InboxSnapshot = EMPTY;
  #listing: InboxListing = { conversations: [] };
  #stopWatching: (() => void) | undefined;
  #running: Promise<void> | undefined;
  #dirty = false;
  #closed = false;

  /** `changed`: called when the view changed, so the pages get it. */
  constructor(source: InboxSource, events: EventEmitter<WebPromptsEvents>, changed: () => void) {
    this.#source = source;
    this.#events = events;
    this.#changed = changed;
  }

  /** What the pages show now. */
  view(): InboxSnapshot {
    return this.#view;
  }

  /** Watches the source while pages are open. */
  pagesChanged(pages: number): void {
    if (this.#closed) return;
    if (pages > 0 && this.#stopWatching === undefined) {
      try {
        this.#stopWatching = this.#source.watch(() => void this.refresh());
      } catch (cause) {
        this.#unavailable(cause);
      }
      void this.refresh();
    } else if (pages === 0) {
      this.#stopWatching?.();
      this.#stopWatching = undefined;
    }
  }

  /** Lists the source again (once more if a listing is under way); resolves when up to date. */
  refresh(): Promise<void> {
    this.#dirty = true;
    if (this.#running === undefined) {
      this.#running = (async () => {
        while (this.#dirty && !this.#closed) {
          this.#dirty = false;
          await this.#listOnce();
        }
        this.#running = undefined;
      })();
    }
    return this.#running;
  }

  /**
   * Answers a stored prompt with what the page posted: `{ conversation, prompt_id, reply }`. The
   * reply is checked as a live one is before the source sees it, and a secret's answer never
   * reaches the source.
   */
  async reply(body: unknown): Promise<InboxReplyResult> {
    const target = targetOf(body);
    if (typeof target === "string") return { type: "bad_request", message: target };
    const { conversation, promptId, reply } = target;
    let request = this.#find(conversation, promptId);
    if (request === undefined) {
      // Perhaps newer than the last listing.
      await this.refresh();
      request = this.#find(conversation, promptId);
    }
    if (request === undefined) {
      return { type: "gone", message: "this prompt is no longer open: it was answered or resumed" };
    }
    if (
      request.kind === "question" &&
      request.question.answer_type.type === "secret" &&
      isAnswer(reply)
    ) {
      return {
        type: "invalid",
        problem: { kind: "secret_not_stored", message: SECRET_NOT_STORED },
      };
    }
    const checked = checkReply(request, reply);
    if (!checked.ok) return { type: "invalid", problem: checked.problem };
    let answered: Awaited<ReturnType<InboxSource["answer"]>>;
    try {
      answered = await this.#source.answer(conversation, promptId, checked.reply as StoredReply);
    } catch (cause) {
      answered = err({ kind: "unavailable", message: messageOf(cause) });
    }
    // Every tab, this one included, sees the prompt go (or come back up to date).
    await this.refresh();
    if (answered.isOk()) {
      this.#events.emit("inbox-answered", {
        conversation,
        promptId,
        kind: request.kind,
        outcome: checked.reply.type,
      });
      return { type: "accepted" };
    }
    const { kind, message } = answered.error;
    switch (kind) {
      case "invalid_reply":
        return {
          type: "invalid",
          problem:
            request.kind === "question" && request.question.answer_type.type === "schema"
              ? { kind, message, fields: fieldProblems(message) }
              : { kind, message },
        };
      case "secret_not_stored":
        return { type: "invalid", problem: { kind, message: SECRET_NOT_STORED } };
      case "unknown_prompt":
        return {
          type: "gone",
          message: "this prompt is no longer open: it was answered or resumed",
        };
      case "already_answered":
        return {
          type: "conflict",
          message: "this prompt was answered already, in another tab or process",
        };
      case "claimed":
        return {
          type: "conflict",
          message: "the turn is being resumed right now; try again in a moment",
        };
      case "unavailable":
        return { type: "unavailable", message: `the answer could not be saved: ${message}` };
    }
  }

  /** Stops watching; no listing happens afterwards. */
  close(): void {
    this.#closed = true;
    this.#stopWatching?.();
    this.#stopWatching = undefined;
  }

  #find(conversation: string, promptId: string): PromptRequest | undefined {
    return this.#listing.conversations
      .find((c) => c.name === conversation)
      ?.prompts.find((p) => p.prompt_id === promptId)?.request;
  }

  async #listOnce(): Promise<void> {
    let next: InboxSnapshot;
    try {
      const listed = await this.#source.list();
      if (listed.isErr()) {
        this.#unavailable(listed.error.message);
        return;
      }
      this.#listing = listed.value;
      next = snapshotOf(listed.value);
    } catch (cause) {
      this.#unavailable(cause);
      return;
    }
    this.#set(next);
  }

  /** Keeps the last prompts listed and says the store cannot be read now. */
  #unavailable(cause: unknown): void {
    const message = typeof cause === "string" ? cause : messageOf(cause);
    this.#set({ ...this.#view, status: "unavailable", message });
  }

  #set(next: InboxSnapshot): void {
    if (JSON.stringify(next) === JSON.stringify(this.#view)) return;
    this.#view = next;
    if (!this.#closed) this.#changed();
  }
}

function snapshotOf(listing: InboxListing): InboxSnapshot {
  return {
    status: "ready",
    conversations: listing.conversations.map((conversation) => ({
      id: conversation.name,
      ...(conversation.title === undefined ? {} : { title: conversation.title }),
      prompts: conversation.prompts.map((prompt) => {
        const deadline = prompt.deadline === undefined ? Number.NaN : Date.parse(prompt.deadline);
        return {
          id: prompt.prompt_id,
          since: Date.parse(prompt.since) || 0,
          ...(Number.isNaN(deadline) ? {} : { deadline }),
          state: prompt.state,
          request: prompt.request,
        };
      }),
    })),
    unreadable: listing.unreadable ?? [],
  };
}

/** The posted body's parts, or what is wrong with it (never quoting the reply). */
function targetOf(
  body: unknown,
): { conversation: string; promptId: string; reply: unknown } | string {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return 'send { "conversation", "prompt_id", "reply" } as a JSON object';
  }
  const { conversation, prompt_id: promptId, reply } = body as Record<string, unknown>;
  if (typeof conversation !== "string" || conversation === "") {
    return '"conversation" must be the name of a conversation';
  }
  if (typeof promptId !== "string" || promptId === "") return '"prompt_id" must be a prompt id';
  if (reply === undefined) return '"reply" is missing';
  return { conversation, promptId, reply };
}

function isAnswer(reply: unknown): boolean {
  return (
    typeof reply === "object" && reply !== null && (reply as { type?: unknown }).type === "answer"
  );
}

function messageOf(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
}
