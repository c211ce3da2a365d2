import { setMaxListeners } from "node:events";
import {
  type ConversationStream,
  createEvent,
  type StreamEvent,
  type ToolCallRequest,
  type ToolCallResponse,
} from "@jp/conversation";
import { EventEmitter } from "eventemitter3";
import type { ExecutorSource, ToolCall } from "../backends/executor.js";
import type { InquiryBackend } from "../backends/inquiry-backend.js";
import type { PromptBackend, PromptRequest, ReplyFor } from "../backends/prompt-backend.js";
import type { ConfigError } from "../config/errors.js";
import { parseToolsConfig, resolveToolConfig } from "../config/resolve.js";
import type { ResolvedToolConfig, ToolsConfig } from "../config/schema.js";
import { executionFailedMessage } from "../routing/messages.js";
import type { TurnState } from "../turn-state.js";
import {
  appendOrThrow,
  describe,
  type RunContext,
  SecretMask,
  TurnEndedSignal,
  type Unreachable,
} from "./context.js";
import { escalatePrompt } from "./escalation.js";
import type { CoordinatorEvents, PromptRefusal } from "./events.js";
import { PromptQueue } from "./prompt-queue.js";
import { type CallSetup, runToolCall } from "./run-tool-call.js";

/** What a host gives the coordinator once. */
export interface ToolCoordinatorOptions {
  /** The conversation every question, answer and tool response is recorded in. */
  readonly stream: ConversationStream;
  /** `conversation.tools`, already layered (built-ins under user config under overrides). */
  readonly tools: ToolsConfig;
  readonly executors: ExecutorSource;
  /** Asks a human; without one, no human is ever reachable. */
  readonly prompts?: PromptBackend;
  /** Asks an LLM; without one, questions routed to the assistant fail as backend errors. */
  readonly inquiries?: InquiryBackend;
  /** `--non-interactive`: behave as if no human were reachable, even with a terminal. */
  readonly nonInteractive?: boolean;
  /** A tool call that asks more questions than this fails (a tool stuck re-asking). */
  readonly maxQuestionsPerCall?: number;
}

/**
 * The `tools` given to a {@link ToolCoordinator} are not a valid `conversation.tools`: thrown by
 * the constructor, so a run never starts on a configuration it cannot apply. `error` names the
 * full path of the first bad setting.
 */
export class ToolsConfigError extends Error {
  override readonly name = "ToolsConfigError";
  constructor(readonly error: ConfigError) {
    super(error.message);
  }
}

/** Options of one {@link ToolCoordinator.run}. */
export interface RunOptions {
  /** The turn's state; build one per turn. */
  readonly turn: TurnState;
  /**
   * Aborts every tool, prompt and inquiry; each call still gets a recorded response. The abort
   * reason decides what is recorded: a bare `abort()` is the person stopping the turn (`user`),
   * a `TimeoutError` (as from `AbortSignal.timeout()`) is `timeout`, any other reason (a
   * shutdown) is `interrupted`. None of the last two reads as the person's decision.
   */
  readonly signal?: AbortSignal;
  /**
   * How long a person has to answer each prompt once it is shown. A prompt left unanswered is
   * recorded as `timeout`, never as the person's decline. No limit by default.
   */
  readonly promptTimeoutMs?: number;
}

/** What one assistant cycle's tool calls came to. */
export interface RunResult {
  /** One recorded response per call, in the order of the calls. */
  readonly responses: readonly ToolCallResponse[];
  /** The human chose "End Turn": the host should not ask the assistant again this turn. */
  readonly endTurn: boolean;
  /**
   * Prompts refused without asking anyone, each with the cause and the configuration key that
   * would change it (the same as the `prompt-refused` events).
   */
  readonly refusals: readonly PromptRefusal[];
}

/**
 * Runs the tool calls of one assistant cycle: concurrently, with prompts to the human one at a
 * time, every question routed and recorded, and a response recorded for every call.
 *
 * @example
 * const coordinator = new ToolCoordinator({ stream, tools, executors, prompts });
 * const { responses } = await coordinator.run(toolCalls, { turn: new TurnState() });
 */
export class ToolCoordinator extends EventEmitter<CoordinatorEvents> {
  readonly #options: ToolCoordinatorOptions;
  // One queue for the coordinator's lifetime: prompts escalated by sub-agents wait in line with
  // this coordinator's own.
  readonly #queue = new PromptQueue();
  // The tool calls running now, for escalation from the sub-agents they host.
  readonly #running = new Map<string, { ctx: RunContext; call: ToolCall }>();

  /** @throws {ToolsConfigError} when `options.tools` is not a valid `conversation.tools`. */
  constructor(options: ToolCoordinatorOptions) {
    super();
    // Checked here, once: a config built in code that skipped `parseToolsConfig` (say
    // `detached: "Auto"`) must fail loudly now, not half-way through a run.
    const tools = parseToolsConfig(options.tools);
    if (tools.isErr()) throw new ToolsConfigError(tools.error);
    this.#options = { ...options, tools: tools.value };
  }

  /** The resolved configuration of a tool, as the coordinator will apply it. */
  config(name: string): ResolvedToolConfig {
    return resolveToolConfig(this.#options.tools, name);
  }

  /**
   * Runs one cycle's tool calls. Calls not yet in the stream are recorded first. Resolves when
   * every call has a recorded response; it does not reject for tool, prompt or inquiry failures.
   */
  async run(
    calls: readonly (ToolCallRequest | ToolCall)[],
    options: RunOptions,
  ): Promise<RunResult> {
    const { stream } = this.#options;
    const recorded = openRequestCounts(stream.events);
    const requests = calls.map((call) => this.#recordRequest(call, recorded));
    const ended = new AbortController();
    const signal = options.signal ? AbortSignal.any([options.signal, ended.signal]) : ended.signal;
    // Every call, prompt and executor listens to this signal: many calls are expected.
    setMaxListeners(0, signal);
    let endTurn = false;
    const unreachable = await this.#unreachable();
    const refusals: PromptRefusal[] = [];
    const collect = (refusal: PromptRefusal) => refusals.push(refusal);
    this.on("prompt-refused", collect);
    const ctx: RunContext = {
      stream,
      tools: this.#options.tools,
      prompts: this.#options.prompts,
      inquiries: this.#options.inquiries,
      humanReachable: unreachable === undefined,
      unreachable,
      turn: options.turn,
      signal,
      endTurn: () => {
        endTurn = true;
        ended.abort(new TurnEndedSignal());
      },
      queue: this.#queue,
      emitter: this,
      promptTimeoutMs: options.promptTimeoutMs,
      secrets: new SecretMask(),
    };
    const setup: CallSetup = {
      executors: this.#options.executors,
      resolve: (name) => this.config(name),
      maxQuestions: this.#options.maxQuestionsPerCall ?? 256,
    };
    const outcomes = await Promise.all(
      requests.map(async (call) => {
        this.#running.set(call.id, { ctx, call });
        try {
          return await runToolCall(ctx, setup, call);
        } catch (cause) {
          // Never reject for a call: a bug in a host's code still leaves the call answered.
          return {
            content: executionFailedMessage(call.name, ctx.secrets.mask(describe(cause))),
            is_error: true,
            endTurn: false,
          };
        } finally {
          this.#running.delete(call.id);
        }
      }),
    ).finally(() => this.off("prompt-refused", collect));
    const responses = requests.map((call, i) => {
      const outcome = outcomes[i] as (typeof outcomes)[number];
      const response = createEvent("tool_call_response", {
        id: call.id,
        content: outcome.content,
        is_error: outcome.is_error,
      });
      appendOrThrow(stream, response);
      return response;
    });
    return { responses, endTurn, refusals };
  }

  /**
   * Whether a human can answer prompts escalated from the tool call `toolCallId` (a sub-agent it
   * runs): false once the call has finished, or when this coordinator has no human.
   */
  humanReachableFor(toolCallId: string): boolean {
    return this.#running.get(toolCallId)?.ctx.humanReachable ?? false;
  }

  /**
   * Shows a prompt on behalf of a sub-agent that the running tool call `toolCallId` hosts: in
   * line with this coordinator's own prompts, labelled with the sub-agent's name, and, for a
   * question, recorded in this conversation with the sub-agent as its source.
   */
  escalate<R extends PromptRequest>(
    toolCallId: string,
    agent: string,
    request: R,
    options: { readonly signal?: AbortSignal } = {},
  ): Promise<ReplyFor<R>> {
    const running = this.#running.get(toolCallId);
    if (running === undefined) {
      return Promise.reject(new Error(`no running tool call "${toolCallId}" to escalate to`));
    }
    // The prompt closes when either side gives up: the parent's run or the sub-agent's.
    const { ctx } = running;
    const signal = options.signal ? AbortSignal.any([ctx.signal, options.signal]) : ctx.signal;
    return escalatePrompt({ ...ctx, signal }, running.call, agent, request);
  }

  // Why no human can be asked now, or undefined when one can.
  async #unreachable(): Promise<Unreachable | undefined> {
    const { prompts, nonInteractive } = this.#options;
    if (nonInteractive === true) return "non_interactive";
    if (prompts === undefined) return "no_backend";
    try {
      return (await prompts.isHumanReachable()) ? undefined : "not_reachable";
    } catch {
      return "not_reachable";
    }
  }

  #recordRequest(call: ToolCallRequest | ToolCall, recorded: Map<string, number>): ToolCall {
    const { stream } = this.#options;
    // The host may have recorded the request already (as it streamed in): do not add another.
    // Counted, so two calls that share an id (some providers send duplicates) get one each.
    const open = recorded.get(call.id) ?? 0;
    if (open > 0) {
      recorded.set(call.id, open - 1);
      return call;
    }
    const event = createEvent("tool_call_request", {
      id: call.id,
      name: call.name,
      arguments: call.arguments,
    });
    appendOrThrow(stream, event);
    return event;
  }
}

// The current turn's tool calls without a response yet, counted per id.
function openRequestCounts(events: readonly StreamEvent[]): Map<string, number> {
  const open = new Map<string, number>();
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i] as StreamEvent;
    if (event.type === "turn_start") break;
    if (event.type !== "tool_call_request" && event.type !== "tool_call_response") continue;
    const id = String((event as { id?: unknown }).id);
    // Walking backwards, a response closes one of the requests seen later in this walk.
    open.set(id, (open.get(id) ?? 0) + (event.type === "tool_call_request" ? 1 : -1));
  }
  for (const [id, count] of open) if (count <= 0) open.delete(id);
  return open;
}
