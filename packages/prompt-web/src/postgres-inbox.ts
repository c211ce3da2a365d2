import type { PendingPrompt, StoredReply } from "@jp/coordinator";
import { err, ok, type Result } from "neverthrow";
import {
  answerErrorOf,
  type InboxConversation,
  type InboxPromptView,
  type InboxSource,
} from "./inbox-source.js";
import { checkCount, checkInterval } from "./internal/options.js";

/** How often {@link postgresInboxSource} lists the inbox besides its notifications, by default. */
export const DEFAULT_POSTGRES_POLL_MS = 5000;

/** The most prompts {@link postgresInboxSource} lists, by default: the oldest 1,000. */
export const DEFAULT_POSTGRES_MAX_PROMPTS = 1000;

/** An error of `@jp/store-postgres`, as far as the page reads it. */
interface KindAndMessage {
  readonly kind: string;
  readonly message: string;
}

/**
 * What {@link postgresInboxSource} uses of `@jp/store-postgres`'s `PostgresInbox` (pass the
 * inbox itself). Spelled out here so that this package does not depend on that one.
 */
export interface PostgresInboxLike {
  list(options: {
    readonly answered?: boolean;
    readonly order?: "oldest" | "newest";
    readonly limit?: number;
    readonly cursor?: string;
  }): Promise<
    Result<
      {
        readonly prompts: readonly (PendingPrompt & {
          readonly conversation: string;
          readonly state: "suspended" | "live";
        })[];
        readonly next?: string;
      },
      KindAndMessage
    >
  >;
  answer(target: {
    readonly conversation: string;
    readonly promptId: string;
    readonly reply: StoredReply;
  }): Promise<Result<unknown, KindAndMessage>>;
  listener(): {
    on(event: "notice" | "connected", listener: () => void): unknown;
    off(event: "notice" | "connected", listener: () => void): unknown;
    subscribe(selection: { readonly pending?: boolean; readonly allAnswers?: boolean }): {
      close(): void;
    };
  };
}

/** Options of {@link postgresInboxSource}. */
export interface PostgresInboxSourceOptions {
  /**
   * How often the inbox is listed besides its notifications (default
   * {@link DEFAULT_POSTGRES_POLL_MS}): a turn resumed elsewhere, or a waiting host that went
   * away, leaves the inbox without a notification.
   */
  readonly pollMs?: number;
  /** The most prompts shown, oldest first (default {@link DEFAULT_POSTGRES_MAX_PROMPTS}). */
  readonly maxPrompts?: number;
}

/**
 * The prompts waiting in a PostgreSQL inbox (`@jp/store-postgres`), for the prompt page
 * (`createWebPrompts({ inbox })`): those of turns suspended on any worker, and those a host is
 * waiting for right now (`createInboxPrompts`). Answers go through `inbox.answer`, taken exactly
 * once. The page hears new prompts and answers through the inbox's `LISTEN`/`NOTIFY`, so an
 * answer given anywhere leaves every open page within milliseconds. The inbox stays the host's:
 * closing the page does not close it.
 *
 * @example
 * const inbox = new PostgresInbox(pool);
 * const web = (await createWebPrompts({ inbox: postgresInboxSource(inbox) }))._unsafeUnwrap();
 */
export function postgresInboxSource(
  inbox: PostgresInboxLike,
  options: PostgresInboxSourceOptions = {},
): InboxSource {
  const pollMs = options.pollMs ?? DEFAULT_POSTGRES_POLL_MS;
  const maxPrompts = options.maxPrompts ?? DEFAULT_POSTGRES_MAX_PROMPTS;
  checkInterval("postgresInboxSource", "pollMs", options.pollMs);
  checkCount("postgresInboxSource", "maxPrompts", options.maxPrompts, "prompts");
  return {
    async list() {
      const byConversation = new Map<string, InboxPromptView[]>();
      let cursor: string | undefined;
      let seen = 0;
      do {
        const page = await inbox.list({
          answered: false,
          order: "oldest",
          limit: Math.min(1000, maxPrompts - seen),
          ...(cursor === undefined ? {} : { cursor }),
        });
        if (page.isErr()) return err({ message: page.error.message });
        for (const prompt of page.value.prompts) {
          const list = byConversation.get(prompt.conversation) ?? [];
          list.push({
            prompt_id: prompt.prompt_id,
            request: prompt.request,
            since: prompt.suspended_at,
            ...(prompt.deadline === undefined ? {} : { deadline: prompt.deadline }),
            state: prompt.state,
          });
          byConversation.set(prompt.conversation, list);
        }
        seen += page.value.prompts.length;
        cursor = page.value.next;
      } while (cursor !== undefined && seen < maxPrompts);
      const conversations: InboxConversation[] = [...byConversation].map(([name, prompts]) => ({
        name,
        prompts,
      }));
      return ok({ conversations });
    },

    async answer(conversation, promptId, reply) {
      const answered = await inbox.answer({ conversation, promptId, reply });
      return answered.isOk() ? ok(undefined) : err(answerErrorOf(answered.error));
    },

    watch(onChange) {
      const listener = inbox.listener();
      const subscription = listener.subscribe({ pending: true, allAnswers: true });
      listener.on("notice", onChange);
      // Notifications sent while the connection was down are lost: look again once it is back.
      listener.on("connected", onChange);
      const timer = setInterval(onChange, pollMs);
      timer.unref();
      return () => {
        clearInterval(timer);
        listener.off("notice", onChange);
        listener.off("connected", onChange);
        subscription.close();
      };
    },
  };
}
