import type {
  ConversationStream,
  SaveResult,
  StoredConversation,
  StoreError,
  StreamEvent,
  ToolCallRequest,
} from "@jp/conversation";
import {
  type BuiltinTool,
  builtinExecutorSource,
  combineExecutorSources,
  type ExecutorSource,
  type InquiryBackend,
  layerToolsConfigs,
  type PromptBackend,
  type ResumeOptions,
  type RunOptions,
  type RunResult,
  type ToolCall,
  ToolCoordinator,
  type ToolsConfig,
  TurnState,
} from "@jp/coordinator";
import type { Result } from "neverthrow";
import { askUser } from "./ask-user/tool.js";
import { builtinToolConfigs } from "./builtin-configs.js";
import {
  type ProviderToolByFormat,
  type ProviderToolFormat,
  type ProviderToolsOptions,
  toProviderTools,
} from "./provider-tools.js";

/** Where conversations are saved: `FileConversationStore`, the PostgreSQL store, or your own. */
export interface ConversationSaver {
  save(conversation: StoredConversation): Promise<Result<SaveResult, StoreError>>;
  /** A new conversation, not yet saved: used when no `conversation` is given. */
  create?(): StoredConversation;
}

/**
 * The conversation to record in: a bare stream; or a store, with the conversation to continue
 * (by default a new one from `store.create()`).
 */
export type CoordinatorConversation =
  | {
      /** The stream every question, answer and tool result is recorded in. */
      readonly stream: ConversationStream;
      readonly store?: never;
      readonly conversation?: never;
    }
  | {
      /** Saves the conversation on {@link Coordinator.save}. */
      readonly store: ConversationSaver;
      /** Recorded in through its `stream`; by default a new one from `store.create()`. */
      readonly conversation?: StoredConversation;
      readonly stream?: never;
    };

/** Options of {@link createCoordinator}: the conversation, and what the coordinator may use. */
export type CreateCoordinatorOptions = CoordinatorConversation & {
  /** Asks a person (a terminal, a UI over JSON-RPC, a web page). Without one, nobody is asked. */
  readonly prompts?: PromptBackend;
  /** Asks a model the questions routed to the assistant. */
  readonly inquiries?: InquiryBackend;
  /**
   * Your tools' configuration (`conversation.tools`), layered over the built-ins' own: a setting
   * you write wins, everything you leave out keeps the built-in value.
   */
  readonly tools?: ToolsConfig;
  /**
   * What runs your tools: tools written in TypeScript by name (each a `BuiltinTool`), or any
   * `ExecutorSource` (e.g. `createLocalCommandExecutorSource`). Tried after the built-ins.
   */
  readonly executors?: ExecutorSource | Readonly<Record<string, BuiltinTool>>;
  /** Behave as if no person were reachable, even with a prompt backend. */
  readonly nonInteractive?: boolean;
  /** A tool call that asks more questions than this fails (a tool stuck re-asking). */
  readonly maxQuestionsPerCall?: number;
};

/** Options of {@link Coordinator.run}: those of `ToolCoordinator.run`, `turn` found for you. */
export type CoordinatorRunOptions = Omit<RunOptions, "turn"> & { readonly turn?: TurnState };

/** What {@link createCoordinator} returns: one conversation's tool calls, run and recorded. */
export interface Coordinator {
  /** The stream everything is recorded in. */
  readonly stream: ConversationStream;
  /** The stored conversation the stream belongs to, when a `store` was given. */
  readonly conversation: StoredConversation | undefined;
  /** The configuration applied: the built-ins' under yours. */
  readonly tools: ToolsConfig;
  /** The underlying coordinator, for its events (`on("inquiry-recorded", …)`) and settings. */
  readonly toolCoordinator: ToolCoordinator;
  /**
   * Runs one assistant cycle's tool calls (recording them unless you did) and records a response
   * for each. The turn's state (answers remembered for the turn) is kept per turn of the stream:
   * start turns with `stream.startTurn`.
   */
  run(
    calls: readonly (ToolCallRequest | ToolCall)[],
    options?: CoordinatorRunOptions,
  ): Promise<RunResult>;
  /** Continues a suspended turn (see `ToolCoordinator.resume`). */
  resume(options?: ResumeOptions): Promise<RunResult>;
  /**
   * The `tools` of a provider request for every enabled tool, `ask_user` included.
   *
   * @throws {Error} when the configuration has a tool no provider accepts (its message names the
   * tool and the fix; `toProviderTools` returns the same as a `Result`).
   */
  providerTools<F extends ProviderToolFormat>(
    format: F,
    options?: ProviderToolsOptions,
  ): ProviderToolByFormat[F][];
  /**
   * Saves the conversation to its store (a `conflict` error if another process saved it since).
   *
   * @throws {Error} when the coordinator was created with a bare `stream`: there is no store.
   */
  save(): Promise<Result<SaveResult, StoreError>>;
}

/**
 * Sets up the SDK for one conversation in one call: the built-in tools (`ask_user`) with their
 * registered configuration under yours, their executors before yours, and a turn state kept per
 * turn of the stream. Everything the coordinator records lands in the conversation's stream.
 *
 * @throws {ToolsConfigError} when `tools` is not a valid `conversation.tools`.
 *
 * @example
 * const jp = createCoordinator({ store, prompts: createTerminalPromptBackend() }); // a new conversation
 * jp.stream.startTurn("Plan the release with me.");
 * const { endTurn } = await jp.run(calls); // calls from your model's reply
 */
export function createCoordinator(options: CreateCoordinatorOptions): Coordinator {
  const conversation = storedConversation(options);
  const stream = conversation?.stream ?? options.stream;
  if (stream === undefined) {
    throw new TypeError("createCoordinator needs a `stream`, or a `store` (and a `conversation`)");
  }
  const tools = layerToolsConfigs(builtinToolConfigs(), options.tools ?? {});
  const executors = combineExecutorSources(
    builtinExecutorSource({ ask_user: askUser }),
    ...executorSources(options.executors),
  );
  const toolCoordinator = new ToolCoordinator({
    stream,
    tools,
    executors,
    ...(options.prompts === undefined ? {} : { prompts: options.prompts }),
    ...(options.inquiries === undefined ? {} : { inquiries: options.inquiries }),
    ...(options.nonInteractive === undefined ? {} : { nonInteractive: options.nonInteractive }),
    ...(options.maxQuestionsPerCall === undefined
      ? {}
      : { maxQuestionsPerCall: options.maxQuestionsPerCall }),
  });
  // The state of the turn it was made for, told apart by that turn's `turn_start` event.
  let current: { start: StreamEvent | undefined; turn: TurnState } | undefined;
  const turnState = (): TurnState => {
    const start = lastTurnStart(stream.events);
    if (current === undefined || current.start !== start) {
      current = { start, turn: new TurnState() };
    }
    return current.turn;
  };
  const keep = (result: RunResult): RunResult => {
    current = { start: lastTurnStart(stream.events), turn: result.turn };
    return result;
  };
  return {
    stream,
    conversation,
    tools,
    toolCoordinator,
    run: async (calls, runOptions = {}) =>
      keep(
        await toolCoordinator.run(calls, { ...runOptions, turn: runOptions.turn ?? turnState() }),
      ),
    resume: async (resumeOptions = {}) => keep(await toolCoordinator.resume(resumeOptions)),
    providerTools: (format, toolsOptions) => {
      const offered = toProviderTools(tools, format, toolsOptions);
      if (offered.isErr()) throw new Error(offered.error.message);
      return offered.value;
    },
    save: async () => {
      const { store } = options;
      if (store === undefined || conversation === undefined) {
        throw new Error(
          "createCoordinator was given a bare stream, so there is nothing to save it to: pass a `store` (and the `conversation`) instead",
        );
      }
      return store.save(conversation);
    },
  };
}

function storedConversation(options: CreateCoordinatorOptions): StoredConversation | undefined {
  if (options.store === undefined) return undefined;
  if (options.conversation !== undefined) return options.conversation;
  if (typeof options.store.create !== "function") {
    throw new TypeError(
      "createCoordinator was given a store that cannot create conversations: pass the `conversation` to record in",
    );
  }
  return options.store.create();
}

function executorSources(
  executors: CreateCoordinatorOptions["executors"],
): readonly ExecutorSource[] {
  if (executors === undefined) return [];
  if (isExecutorSource(executors)) return [executors];
  return [builtinExecutorSource(executors)];
}

function isExecutorSource(
  value: ExecutorSource | Readonly<Record<string, BuiltinTool>>,
): value is ExecutorSource {
  return typeof (value as { executorFor?: unknown }).executorFor === "function";
}

// Scanned from the end: costs the length of the current turn, not of the conversation.
function lastTurnStart(events: readonly StreamEvent[]): StreamEvent | undefined {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i] as StreamEvent;
    if (event.type === "turn_start") return event;
  }
  return undefined;
}
