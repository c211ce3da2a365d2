import { lstat } from "node:fs/promises";
import { join } from "node:path";
import type { FileConversationStore } from "@jp/conversation";
import {
  answerPendingPromptInStore,
  listPendingPrompts,
  type PendingPrompt,
} from "@jp/coordinator";
import { err, ok } from "neverthrow";
import {
  answerErrorOf,
  type InboxConversation,
  type InboxPromptView,
  type InboxSource,
} from "./inbox-source.js";
import { checkInterval } from "./internal/options.js";

/** How often {@link fileInboxSource} looks at the store for changes, by default: 1 s. */
export const DEFAULT_FILE_POLL_MS = 1000;

/** Options of {@link fileInboxSource}. */
export interface FileInboxOptions {
  /**
   * How often the store is looked at for changes other processes made, in milliseconds
   * (default {@link DEFAULT_FILE_POLL_MS}). Each look reads the directory and two file sizes
   * and dates per conversation; only a conversation whose files changed is loaded again.
   */
  readonly pollMs?: number;
}

/** What was read of one conversation, and the state of its files then. */
interface Cached {
  readonly fingerprint: string;
  readonly conversation: InboxConversation | undefined;
  readonly problem: string | undefined;
}

/**
 * The pending prompts of the suspended turns in a `FileConversationStore`, for the prompt page
 * (`createWebPrompts({ inbox })`). Answers go through `answerPendingPromptInStore`: checked as
 * live answers, saved with the store's conflict check, so of two tabs or processes answering one
 * prompt exactly one answer is kept. Changes made by other processes are found by looking at the
 * store every `pollMs`.
 *
 * @example
 * const store = new FileConversationStore(".jp/conversations");
 * const web = (await createWebPrompts({ inbox: fileInboxSource(store) }))._unsafeUnwrap();
 * console.log(`Answer waiting turns at ${web.url}`);
 */
export function fileInboxSource(
  store: FileConversationStore,
  options: FileInboxOptions = {},
): InboxSource {
  const pollMs = options.pollMs ?? DEFAULT_FILE_POLL_MS;
  checkInterval("fileInboxSource", "pollMs", options.pollMs);
  const cache = new Map<string, Cached>();

  async function read(name: string): Promise<Cached> {
    // The files' state before the load: a save after it changes the fingerprint, so it is read
    // at the next look. Saves rename a new file over the old one, which changes the inode.
    const fingerprint = await fingerprintOf(join(store.root, name));
    const cached = cache.get(name);
    if (cached?.fingerprint === fingerprint) return cached;
    const loaded = await store.load(name);
    let entry: Cached;
    if (loaded.isErr()) {
      entry = { fingerprint, conversation: undefined, problem: loaded.error.message };
    } else {
      try {
        const prompts = listPendingPrompts(loaded.value.stream)
          .filter((prompt) => !prompt.answered)
          .map(viewOf);
        const { title } = loaded.value.metadata;
        entry = {
          fingerprint,
          problem: undefined,
          conversation:
            prompts.length === 0
              ? undefined
              : { name, ...(title === undefined ? {} : { title }), prompts },
        };
      } catch (cause) {
        const message = cause instanceof Error ? cause.message : String(cause);
        entry = { fingerprint, conversation: undefined, problem: message };
      }
    }
    cache.set(name, entry);
    return entry;
  }

  return {
    async list() {
      const names = await store.list();
      if (names.isErr()) return err({ message: names.error.message });
      for (const name of cache.keys()) if (!names.value.includes(name)) cache.delete(name);
      const entries = await Promise.all(
        names.value.map(async (name) => [name, await read(name)] as const),
      );
      const conversations = entries
        .flatMap(([, entry]) => (entry.conversation === undefined ? [] : [entry.conversation]))
        .sort((a, b) => oldest(a).localeCompare(oldest(b)));
      const unreadable = entries.flatMap(([conversation, entry]) =>
        entry.problem === undefined ? [] : [{ conversation, message: entry.problem }],
      );
      return ok({ conversations, ...(unreadable.length === 0 ? {} : { unreadable }) });
    },

    async answer(conversation, promptId, reply) {
      const answered = await answerPendingPromptInStore(store, conversation, promptId, reply);
      if (answered.isOk()) return ok(undefined);
      const { error } = answered;
      if (error.kind === "store") {
        const { kind, message } = error.error;
        return err(
          kind === "conflict"
            ? { kind: "unavailable", message: `others kept saving the conversation: ${message}` }
            : answerErrorOf({ kind, message }),
        );
      }
      return err(answerErrorOf(error));
    },

    watch(onChange) {
      const timer = setInterval(onChange, pollMs);
      timer.unref();
      return () => clearInterval(timer);
    },
  };
}

function viewOf(prompt: PendingPrompt): InboxPromptView {
  return {
    prompt_id: prompt.prompt_id,
    request: prompt.request,
    since: prompt.suspended_at,
    ...(prompt.deadline === undefined ? {} : { deadline: prompt.deadline }),
    state: "suspended",
  };
}

function oldest(conversation: InboxConversation): string {
  return conversation.prompts[0]?.since ?? "";
}

/** The identity, size and date of a conversation's metadata and events files. */
async function fingerprintOf(dir: string): Promise<string> {
  const parts = await Promise.all(
    ["metadata.json", "events.json"].map(async (file) => {
      try {
        const stats = await lstat(join(dir, file), { bigint: true });
        return `${stats.ino}:${stats.size}:${stats.mtimeNs}`;
      } catch {
        return "absent";
      }
    }),
  );
  return parts.join("/");
}
