import { askUser, builtinToolConfigs } from "@jp/builtins";
import type { JsonObject, StoredConversation } from "@jp/conversation";
import {
  builtinExecutorSource,
  combineExecutorSources,
  type Executor,
  layerToolsConfigs,
  type PromptBackend,
  type RunResult,
  ToolCoordinator,
  type ToolsConfig,
  TurnState,
} from "@jp/coordinator";
import { MockExecutor, MockExecutorSource } from "@jp/coordinator/testing";
import type { Question } from "@jp/tool";

/** A tool that asks `question` until it has an answer, then reports the answers it got. */
export function asking(question: Question): MockExecutor {
  return new MockExecutor((input) =>
    input.answers[question.id] === undefined
      ? { type: "needs_input", question }
      : { type: "success", content: JSON.stringify(input.answers) },
  );
}

/** A tool that succeeds at once with its arguments. */
export function echo(): MockExecutor {
  return new MockExecutor((input) => ({
    type: "success",
    content: JSON.stringify(input.call.arguments),
  }));
}

/** What the helpers need of a store: `FileConversationStore` and the PostgreSQL store fit. */
export interface StoreLike {
  create(options?: { readonly title?: string }): StoredConversation;
  load(name: string): Promise<{ isErr(): boolean; _unsafeUnwrap(): StoredConversation }>;
  save(conversation: StoredConversation): Promise<{ _unsafeUnwrap(): unknown }>;
}

/** Tools for a conversation: `ask_user` built in, plus the given ones (unattended unless configured). */
export function coordinatorOn(
  conversation: StoredConversation,
  options: {
    readonly tools?: ToolsConfig;
    readonly executors?: Record<string, Executor>;
    readonly prompts?: PromptBackend;
  } = {},
): ToolCoordinator {
  return new ToolCoordinator({
    stream: conversation.stream,
    tools: layerToolsConfigs(builtinToolConfigs(), {
      ...Object.fromEntries(
        Object.keys(options.executors ?? {}).map((name) => [name, { run: "unattended" }]),
      ),
      ...options.tools,
    }),
    executors: combineExecutorSources(
      builtinExecutorSource({ ask_user: askUser }),
      new MockExecutorSource(options.executors ?? {}),
    ),
    ...(options.prompts === undefined ? {} : { prompts: options.prompts }),
  });
}

let made = 0;

/**
 * Starts a turn in a new conversation of `store` that calls `name` with `args`, suspends it at
 * its first prompt (nobody is asked) and saves it.
 */
export async function suspendTurn(
  store: StoreLike,
  name: string,
  args: JsonObject,
  options: {
    readonly title?: string;
    readonly tools?: ToolsConfig;
    readonly executors?: Record<string, Executor>;
    readonly deadlineMs?: number;
  } = {},
): Promise<{ readonly conversation: StoredConversation; readonly result: RunResult }> {
  const created = store.create({ title: options.title ?? "A suspended turn" });
  // Names made in the same tenth of a second are the same: each test conversation gets its own.
  made += 1;
  const conversation = { ...created, name: `${created.name}-${made}` };
  conversation.stream.startTurn(`Use ${name}`);
  const result = await coordinatorOn(conversation, options).run(
    [{ id: "call_1", name, arguments: args }],
    {
      turn: new TurnState(),
      suspend: options.deadlineMs === undefined ? true : { deadlineMs: options.deadlineMs },
    },
  );
  (await store.save(conversation))._unsafeUnwrap();
  return { conversation, result };
}

/** Loads the conversation again and resumes its turn (nobody to ask); the finished responses. */
export async function resumeStored(
  store: StoreLike,
  name: string,
  options: { readonly executors?: Record<string, Executor>; readonly tools?: ToolsConfig } = {},
) {
  const loaded = (await store.load(name))._unsafeUnwrap();
  const resumed = await coordinatorOn(loaded, options).resume({ suspend: true });
  (await store.save(loaded))._unsafeUnwrap();
  return { loaded, resumed };
}
