import {
  type ConversationStream,
  createEvent,
  type JsonValue,
  MAX_EVENT_VALUE_DEPTH,
  type StreamError,
  type StreamEvent,
  type ToolCallRequest,
  type ToolCallResponse,
} from "@jp/conversation";
import { EventEmitter } from "eventemitter3";
import type { Result } from "neverthrow";
import type { ExecutorSource, ToolCall } from "../backends/executor.js";
import type { InquiryBackend } from "../backends/inquiry-backend.js";
import type {
  LaterReply,
  PromptBackend,
  PromptRequest,
  ReplyFor,
} from "../backends/prompt-backend.js";
import type { ConfigError } from "../config/errors.js";
import { layerToolsConfigs } from "../config/layering.js";
import { parseToolsConfig, resolveToolConfig } from "../config/resolve.js";
import type { ResolvedToolConfig, ToolsConfig } from "../config/schema.js";
import {
  markerJson,
  PENDING_MARKER_VERSION,
  PENDING_METADATA_KEY,
  type PendingMarker,
  promptIdFor,
  type StoredReply,
} from "../durable/marker.js";
import {
  type AnswerPendingError,
  checkAnswerInMemory,
  findMarkers,
  isExpired,
  markersById,
  markersRewritten,
  type PendingPrompt,
  pendingPromptOf,
  unreadableMarkers,
} from "../durable/pending.js";
import {
  argumentsTooDeepMessage,
  deliveryNotDecidedMessage,
  executionFailedMessage,
} from "../routing/messages.js";
import { TurnState } from "../turn-state.js";
import {
  appendOrThrow,
  describe,
  ResumedLine,
  type RunContext,
  record,
  SecretMask,
  TurnEndedSignal,
  type Unreachable,
} from "./context.js";
import { CallEscalations, EscalationAbort, escalatePrompt } from "./escalation.js";
import type { CoordinatorEvents, PromptRefusal } from "./events.js";
import { PromptQueue } from "./prompt-queue.js";
import { TURN_ENDED } from "./question-round.js";
import { RecordedDefaults } from "./recorded-defaults.js";
import { RunAbort } from "./run-abort.js";
import { type CallOutcome, type CallSetup, runToolCall } from "./run-tool-call.js";

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
  /**
   * A tool call that asks more questions than this fails: the limit stops a tool stuck asking
   * again (default 256). Each question of a form (a tool that reports `form` progress) counts once
   * while the call holds its answer, up to the form's size, so a form of any size can be answered
   * in full; a question asked again (after Back, or the same one over and over) counts every time,
   * and so does every question of a tool that is not a form. The count holds across suspensions.
   */
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

/** How a suspending run leaves its prompts pending. */
export interface SuspendOptions {
  /**
   * How long each pending prompt waits for a reply. Past it, resuming resolves the prompt by the
   * detached policy for its kind and records it as `timeout`, never as the person's decision.
   */
  readonly deadlineMs?: number;
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
   * recorded as `timeout`, never as the person's decline. No limit by default, nor with
   * `Infinity` or more than 2^31-1 ms (about 24.8 days); zero, a negative number or NaN is a
   * `RangeError` (the run rejects before anything is recorded).
   */
  readonly promptTimeoutMs?: number;
  /**
   * Leave prompts that need a person pending instead of waiting for them: the questions are
   * recorded, their tool calls stay open, and `run` returns at once with the `pending` prompts.
   * Calls that need nobody finish as usual. Save the stream; answer from any process with
   * `answerPendingPrompt`; continue with {@link ToolCoordinator.resume}.
   */
  readonly suspend?: boolean | SuspendOptions;
}

/** Options of {@link ToolCoordinator.resume}. */
export interface ResumeOptions extends Omit<RunOptions, "turn"> {
  /** The turn's state; by default the one the turn was suspended with (remembered answers too). */
  readonly turn?: TurnState;
  /**
   * Answers given in memory, by prompt id: the way to answer a pending secret, whose answer is
   * never stored. Checked like any answer.
   */
  readonly answers?: Readonly<Record<string, JsonValue>>;
  /** The time deadlines are compared with; now by default. */
  readonly now?: Date;
}

/** What one assistant cycle's tool calls came to. */
export interface RunResult {
  /**
   * The recorded response of every call that finished, in the order of the calls. Each was
   * appended to the stream as its call finished.
   */
  readonly responses: readonly ToolCallResponse[];
  /**
   * The prompts the turn is suspended at, in the order a person would have seen them; empty when
   * every call finished. Their calls have no response yet: resume the turn to finish them.
   */
  readonly pending: readonly PendingPrompt[];
  /**
   * The turn's state after the run: the one given, or for {@link ToolCoordinator.resume} the one
   * the turn was suspended with. Pass it to the turn's next `run`.
   */
  readonly turn: TurnState;
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
  // Each tool's resolved configuration, worked out on its first call: `tools` is fixed at
  // construction.
  readonly #resolved = new Map<string, ResolvedToolConfig>();

  /** @throws {ToolsConfigError} when `options.tools` is not a valid `conversation.tools`. */
  constructor(options: ToolCoordinatorOptions) {
    super();
    // Checked here, once: a config built in code that skipped `parseToolsConfig` (say
    // `detached: "Auto"`) must fail loudly now, not half-way through a run.
    // A built-in's registered configuration sits under the host's (see `ExecutorSource.toolConfigs`).
    const registered = options.executors.toolConfigs?.();
    const tools = parseToolsConfig(
      registered === undefined ||
        typeof options.tools !== "object" ||
        options.tools === null ||
        isEmpty(registered)
        ? options.tools
        : layerToolsConfigs(registered, options.tools),
    );
    if (tools.isErr()) throw new ToolsConfigError(tools.error);
    this.#options = { ...options, tools: tools.value };
  }

  /**
   * The configuration the coordinator applies: its `tools` over the executors' registered ones.
   * Offer these to the model (`toProviderTools(coordinator.tools, …)`), so every tool it can run,
   * `ask_user` included, is in the request.
   */
  get tools(): ToolsConfig {
    return this.#options.tools;
  }

  /** The conversation the coordinator records in (as each executor's input names it). */
  get stream(): ConversationStream {
    return this.#options.stream;
  }

  /** The resolved configuration of a tool, as the coordinator will apply it. */
  config(name: string): ResolvedToolConfig {
    let resolved = this.#resolved.get(name);
    if (resolved === undefined) {
      resolved = resolveToolConfig(this.#options.tools, name);
      this.#resolved.set(name, resolved);
    }
    return resolved;
  }

  /**
   * Runs one cycle's tool calls. Calls not yet in the stream are recorded first. Resolves when
   * every call has a recorded response, or, with `suspend`, is left waiting at a prompt; it does
   * not reject for tool, prompt or inquiry failures.
   */
  async run(
    calls: readonly (ToolCallRequest | ToolCall)[],
    options: RunOptions,
  ): Promise<RunResult> {
    promptTimeout(options.promptTimeoutMs); // a bad limit rejects before anything is recorded
    suspendDeadline(options.suspend);
    const recorded = openRequestCounts(this.#options.stream, calls);
    const requests = calls.map((call) => this.#recordRequest(call, recorded));
    return this.#cycle(requests, { ...options, turn: options.turn });
  }

  /**
   * Continues a suspended turn (see {@link RunOptions.suspend}): every tool call left waiting at a
   * prompt goes on from where it stood, with the replies given meanwhile
   * ({@link answerPendingPrompt}) applied in the place a live answer would have taken, so the
   * stream ends up as the live run would have written it. Prompts still without a reply are
   * asked if a person is reachable now, and otherwise stay pending; prompts past their deadline
   * go by the detached policy and are recorded as `timeout`. Resolves like {@link run}, with an
   * empty result when the last turn is not suspended.
   */
  async resume(options: ResumeOptions = {}): Promise<RunResult> {
    // Every check before anything changes: a bad option leaves the suspended turn as it was.
    promptTimeout(options.promptTimeoutMs);
    suspendDeadline(options.suspend);
    const { stream } = this.#options;
    const unreadable = unreadableMarkers(stream);
    if (unreadable.length > 0) {
      throw new Error(
        `ToolCoordinator.resume: the suspended prompt of tool call(s) ${unreadable.map((id) => JSON.stringify(id)).join(", ")} was written by a newer version or is damaged; this version cannot resume it (sanitize() after removing the "${PENDING_METADATA_KEY}" metadata closes the call as interrupted)`,
      );
    }
    const now = options.now ?? new Date();
    const found = findMarkers(stream);
    const inMemory = new Map<string, StoredReply>();
    const byId = markersById(found);
    for (const [promptId, value] of Object.entries(options.answers ?? {})) {
      const checked = checkAnswerInMemory(byId, promptId, value);
      if (checked.isErr()) throw new ResumeAnswerError(checked.error);
      inMemory.set(promptId, checked.value);
    }
    const withTurn = found.find((f) => f.marker.turn !== undefined)?.marker.turn;
    const turn = options.turn ?? (withTurn ? TurnState.fromJSON(withTurn) : new TurnState());
    const stored = new Map<string, StoredReply>();
    const expired = new Set<string>();
    const previous = new Map<string, Previous>();
    for (const { index, marker } of found) {
      if (marker.reply !== undefined) stored.set(marker.prompt_id, marker.reply);
      else if (inMemory.has(marker.prompt_id)) {
        stored.set(marker.prompt_id, inMemory.get(marker.prompt_id) as StoredReply);
      } else if (isExpired(marker, now)) expired.add(marker.prompt_id);
      // A prompt still pending after this resume keeps when it was first left, and its deadline.
      previous.set(marker.prompt_id, {
        suspended_at: marker.suspended_at,
        ...(marker.deadline === undefined ? {} : { deadline: marker.deadline }),
        escalated: marker.escalated !== undefined,
      });
      // The stream goes back to what a live run writes; a call that suspends again is marked anew.
      appendOrThrowResult(stream.setMetadata(index, PENDING_METADATA_KEY, undefined));
    }
    markersRewritten(stream);
    const requests = found.map(({ event, marker }) => {
      const { id, name, arguments: args } = event as ToolCallRequest;
      return { call: { id, name, arguments: args }, resume: marker };
    });
    const unreachable = await this.#unreachable();
    // With nobody to ask now, what still needs a person stays pending rather than refused.
    const suspend = options.suspend ?? unreachable !== undefined;
    return this.#cycle(
      requests,
      { ...options, turn, suspend },
      {
        stored,
        expired,
        previous,
        inMemory: new Set(inMemory.keys()),
        line: new ResumedLine(
          found.map(({ event, marker }) => ({
            promptId: marker.prompt_id,
            callId: String((event as ToolCallRequest).id),
          })),
        ),
      },
    );
  }

  async #cycle(
    requests: readonly {
      readonly call: ToolCall;
      readonly resume?: PendingMarker;
      /** Set for a call refused as it was recorded: what the model is told, the call not run. */
      readonly refused?: string;
    }[],
    options: RunOptions,
    resumed: Resumed = notResumed(),
  ): Promise<RunResult> {
    const { stream } = this.#options;
    const abort = new RunAbort(options.signal);
    let endTurn = false;
    const suspend = options.suspend !== undefined && options.suspend !== false;
    const asked = suspend ? undefined : this.#unreachable();
    const unreachable = asked instanceof Promise ? await asked : asked;
    // This run's refusals only: another run of this coordinator may be refusing prompts meanwhile.
    const refusals: PromptRefusal[] = [];
    let closed: Set<PromptRequest> | undefined;
    const closeSuspended = (request: PromptRequest) => {
      closed ??= new Set();
      if (closed.has(request)) return;
      closed.add(request);
      if (request.kind !== "question") return;
      const id = request.inquiry_id;
      record(
        ctx,
        createEvent("inquiry_response", { outcome: "cancelled", id, reason: "turn_ended" }),
      );
    };
    const ctx: RunContext = {
      stream,
      tools: this.#options.tools,
      prompts: this.#options.prompts,
      inquiries: this.#options.inquiries,
      // A suspending run treats every prompt as going to a person: later, from anywhere.
      humanReachable: unreachable === undefined,
      unreachable,
      turn: options.turn,
      abort,
      endTurn: () => {
        endTurn = true;
        abort.abort(new TurnEndedSignal());
        // Questions left pending in line close now, as queued prompts do in a live run.
        for (const request of ctx.suspensions.keys()) closeSuspended(request);
      },
      queue: this.#queue,
      emitter: this,
      coordinator: this,
      promptTimeoutMs: promptTimeout(options.promptTimeoutMs),
      secrets: new SecretMask(),
      suspend,
      stored: resumed.stored,
      expired: resumed.expired,
      suspensions: new Map(),
      line: { held: false },
      escalations: new Map(),
      resumedLine: resumed.line,
      refusals,
      ...(resumed.line === undefined ? {} : { recordedDefaults: new RecordedDefaults(stream) }),
    };
    const setup: CallSetup = {
      executors: this.#options.executors,
      resolve: (name) => this.config(name),
      maxQuestions: this.#options.maxQuestionsPerCall ?? 256,
    };
    // By the call's place in `requests`; a suspended call has none.
    const responses: (ToolCallResponse | undefined)[] = new Array(requests.length);
    const outcomes: CallOutcome[] = await Promise.all(
      requests.map(async ({ call, resume, refused }, i) => {
        this.#running.set(call.id, { ctx, call });
        let outcome: CallOutcome;
        try {
          outcome =
            refused === undefined
              ? await runToolCall(ctx, setup, call, resume)
              : { content: refused, is_error: true, endTurn: false };
        } catch (cause) {
          // Never reject for a call: a bug in a host's code still leaves the call answered.
          outcome = {
            content: executionFailedMessage(call.name, ctx.secrets.mask(describe(cause))),
            is_error: true,
            endTurn: false,
          };
        } finally {
          this.#running.delete(call.id);
          ctx.resumedLine?.releaseCall(call.id);
        }
        // Recorded as soon as the call is done, so a finished call's result is in the stream
        // even if the process dies (or the turn suspends) before the other calls finish.
        if (outcome.suspended === undefined) {
          const response = createEvent("tool_call_response", {
            id: call.id,
            content: outcome.content,
            is_error: outcome.is_error,
          });
          appendOrThrow(stream, response);
          responses[i] = response;
        }
        return outcome;
      }),
    );
    if (endTurn) {
      // The person ended the turn: nothing is left waiting for them. Each call that was left
      // pending closes as a live run closes the prompts queued behind an End Turn.
      outcomes.forEach((outcome, i) => {
        const at = outcome.suspended;
        if (at === undefined) return;
        closeSuspended(at.request);
        const { call } = requests[i] as (typeof requests)[number];
        const content =
          at.request.kind === "deliver"
            ? deliveryNotDecidedMessage("the user ended the turn at another prompt")
            : TURN_ENDED;
        const response = createEvent("tool_call_response", {
          id: call.id,
          content,
          is_error: false,
        });
        appendOrThrow(stream, response);
        responses[i] = response;
        outcomes[i] = { content, is_error: false, endTurn: false };
      });
    }
    const pending = this.#markSuspended(
      requests.map(({ call }) => call),
      outcomes,
      ctx,
      options,
      resumed,
    );
    return {
      responses: responses.filter((response) => response !== undefined),
      endTurn,
      refusals,
      pending,
      turn: options.turn,
    };
  }

  // Writes each suspended call's marker on its tool_call_request, in suspension order.
  #markSuspended(
    calls: readonly ToolCall[],
    outcomes: readonly CallOutcome[],
    ctx: RunContext,
    options: RunOptions,
    resumed: Resumed,
  ): PendingPrompt[] {
    if (outcomes.every((outcome) => outcome.suspended === undefined)) return [];
    const { stream } = this.#options;
    const now = new Date();
    const deadlineMs = suspendDeadline(options.suspend);
    const turn = ctx.turn.toJSON();
    const seqOf = (request: PromptRequest, i: number) =>
      ctx.suspensions.get(request) ?? ctx.suspensions.size + i;
    // The turn's state is kept once, on the first prompt in line.
    let first = Number.POSITIVE_INFINITY;
    const suspended: ToolCall[] = [];
    outcomes.forEach((o, i) => {
      const call = calls[i];
      if (o.suspended === undefined) return;
      first = Math.min(first, seqOf(o.suspended.request, i));
      if (call !== undefined) suspended.push(call);
    });
    const places = new RequestPlaces(stream.events, suspended);
    const pending: { seq: number; prompt: PendingPrompt }[] = [];
    outcomes.forEach((outcome, i) => {
      const at = outcome.suspended;
      const call = calls[i];
      if (at === undefined || call === undefined) return;
      const seq = seqOf(at.request, i);
      const promptId = promptIdFor(at.request);
      // A reply given to a prompt still behind a pending one keeps waiting with it; never one
      // given in memory (it may be a secret, which is never written).
      const reply = resumed.inMemory.has(promptId) ? undefined : ctx.stored.get(promptId);
      // The same prompt, left pending again. (A marker written before sub-agents' permission
      // and delivery prompts had ids of their own gave them the hosting call's own prompt's id:
      // that prompt, asked after it, is a new one.)
      const found = resumed.previous.get(promptId);
      const earlier = found?.escalated === (at.escalated !== undefined) ? found : undefined;
      const marker: PendingMarker = {
        v: PENDING_MARKER_VERSION,
        prompt_id: promptId,
        seq,
        request: at.request,
        ...(at.source === undefined ? {} : { source: at.source }),
        ...(at.form === undefined ? {} : { form: at.form }),
        ...(at.arguments === undefined ? {} : { arguments: at.arguments }),
        ...(at.walk === undefined ? {} : { walk: at.walk }),
        ...(at.asked === undefined ? {} : { asked: at.asked }),
        ...(at.escalated === undefined ? {} : { escalated: at.escalated }),
        ...(seq === first ? { turn } : {}),
        suspended_at: earlier?.suspended_at ?? now.toISOString(),
        ...(reply === undefined ? {} : { reply }),
        ...(earlier !== undefined
          ? earlier.deadline === undefined
            ? {}
            : { deadline: earlier.deadline }
          : deadlineMs === undefined
            ? {}
            : { deadline: new Date(now.getTime() + deadlineMs).toISOString() }),
      };
      const index = places.of(stream.events, call);
      appendOrThrowResult(stream.setMetadata(index, PENDING_METADATA_KEY, markerJson(marker)));
      pending.push({ seq, prompt: pendingPromptOf(marker, now) });
    });
    markersRewritten(stream);
    return pending.sort((a, b) => a.seq - b.seq).map(({ prompt }) => prompt);
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
   *
   * Resolves `{type: "later"}` when the prompt is left pending (a suspending run, or a prompt
   * backend that replies "later"): the hosting call suspends at it. Give that reply to the
   * sub-agent's coordinator (`subAgentPrompts` in `@jp/builtins` does), which then suspends its
   * own call and returns; what the hosting tool returns afterwards is set aside. When the turn
   * resumes, the hosting call runs again from its start, and each prompt its sub-agent asks again
   * is answered from the record without asking anyone (see docs/durable-questions.md).
   */
  escalate<R extends PromptRequest>(
    toolCallId: string,
    agent: string,
    request: R,
    options: { readonly signal?: AbortSignal } = {},
  ): Promise<ReplyFor<R> | LaterReply> {
    const running = this.#running.get(toolCallId);
    if (running === undefined) {
      return Promise.reject(new Error(`no running tool call "${toolCallId}" to escalate to`));
    }
    // The prompt closes when either side gives up: the parent's run or the sub-agent's.
    const { ctx, call } = running;
    // Outside a pass of the tool (there is none only if the call is not running its tool).
    const escalations = ctx.escalations.get(call.id) ?? new CallEscalations();
    const abort = options.signal
      ? new EscalationAbort(ctx.abort, options.signal, agent)
      : ctx.abort;
    return escalatePrompt({ ...ctx, abort }, escalations, call, agent, request);
  }

  // Why no human can be asked now, or undefined when one can.
  // Without a wait when the backend answers synchronously, as most do.
  #unreachable(): Unreachable | undefined | Promise<Unreachable | undefined> {
    const { prompts, nonInteractive } = this.#options;
    if (nonInteractive === true) return "non_interactive";
    if (prompts === undefined) return "no_backend";
    let reachable: boolean | Promise<boolean>;
    try {
      reachable = prompts.isHumanReachable();
    } catch {
      return "not_reachable";
    }
    if (typeof reachable === "boolean") return reachable ? undefined : "not_reachable";
    return Promise.resolve(reachable).then(
      (yes) => (yes ? undefined : "not_reachable"),
      () => "not_reachable",
    );
  }

  #recordRequest(
    call: ToolCallRequest | ToolCall,
    recorded: Map<string, number> | undefined,
  ): { readonly call: ToolCall; readonly refused?: string } {
    const { stream } = this.#options;
    // The host may have recorded the request already (as it streamed in): do not add another.
    // Counted, so two calls that share an id (some providers send duplicates) get one each.
    const open = recorded?.get(call.id) ?? 0;
    if (recorded !== undefined && open > 0) {
      recorded.set(call.id, open - 1);
      return { call };
    }
    const event = createEvent("tool_call_request", {
      id: call.id,
      name: call.name,
      arguments: call.arguments,
    });
    // The stream's own check is the one walk over the arguments on the way in.
    const appended = stream.tryAppend(event);
    if (appended.isOk()) return { call: event };
    if (appended.error.kind !== "nested-too-deep") {
      throw new Error(
        `ToolCoordinator could not record a ${event.type}: ${appended.error.message}`,
      );
    }
    // Arguments too deep to save: the call is recorded without them and refused, not run, so
    // the conversation can still be saved and the model can send the call again.
    const kept = createEvent("tool_call_request", { id: call.id, name: call.name, arguments: {} });
    appendOrThrow(stream, kept);
    return { call: kept, refused: argumentsTooDeepMessage(call.name, MAX_EVENT_VALUE_DEPTH) };
  }
}

// Of the current turn's tool calls without a response yet, those `calls` name, counted per id:
// asked of the stream, which keeps them as it grows, so a run costs the same late in a long turn.
// None (nearly every run: the host leaves recording to the coordinator) is no map at all.
function openRequestCounts(
  stream: ConversationStream,
  calls: readonly { readonly id: string }[],
): Map<string, number> | undefined {
  let open: Map<string, number> | undefined;
  for (const { id } of calls) {
    if (open?.has(id)) continue;
    const count = stream.openRequests("tool_call", id);
    if (count === 0) continue;
    open ??= new Map();
    open.set(id, count);
  }
  return open;
}

/**
 * What a live run starts with: nothing to resume. Fresh for every run, as a resume's own are:
 * a run takes stored replies out of `stored` as it applies them, and used expiries out of
 * `expired`.
 */
function notResumed(): Resumed {
  return { stored: new Map(), expired: new Set(), previous: EMPTY_MAP, inMemory: EMPTY_SET };
}
const EMPTY_SET: ReadonlySet<string> = new Set<string>();
const EMPTY_MAP: ReadonlyMap<string, never> = new Map<string, never>();

/** What a resume carries into its cycle from the markers it consumed. */
interface Resumed {
  /** Replies to apply, by prompt id. */
  readonly stored: Map<string, StoredReply>;
  /** Prompt ids whose deadline passed with no reply. */
  readonly expired: Set<string>;
  /** When each resumed prompt was first left pending, and its deadline. */
  readonly previous: ReadonlyMap<string, Previous>;
  /** Prompt ids answered in memory (`resume({ answers })`): never written to a marker. */
  readonly inMemory: ReadonlySet<string>;
  /** The order the resumed prompts stood in line. */
  readonly line?: ResumedLine;
}

/** When a resumed prompt was first left pending, its deadline, and whether a sub-agent asked it. */
interface Previous {
  readonly suspended_at: string;
  readonly deadline?: string;
  readonly escalated: boolean;
}

/**
 * `resume({ answers })` named a prompt that is not pending, or gave an answer that does not
 * fit: nothing was changed. `error` says which and why.
 */
export class ResumeAnswerError extends Error {
  override readonly name = "ResumeAnswerError";
  constructor(readonly error: AnswerPendingError) {
    super(error.message);
  }
}

// A pending prompt's lifetime: positive and finite, or none (Infinity). Checked before a run
// records anything, so a bad value cannot leave questions recorded without their markers.
function suspendDeadline(suspend: RunOptions["suspend"]): number | undefined {
  const ms = typeof suspend === "object" ? suspend.deadlineMs : undefined;
  if (ms === undefined || ms === Number.POSITIVE_INFINITY) return undefined;
  if (!(ms > 0) || !Number.isFinite(ms) || ms > 8.64e15) {
    throw new RangeError(`suspend.deadlineMs must be a positive number of milliseconds, got ${ms}`);
  }
  return ms;
}

// Timers cannot wait longer than this; a longer limit (or Infinity) means no limit.
const LONGEST_TIMER_MS = 2 ** 31 - 1;

function promptTimeout(ms: number | undefined): number | undefined {
  if (ms === undefined || ms === Number.POSITIVE_INFINITY || ms > LONGEST_TIMER_MS)
    return undefined;
  if (!(ms > 0)) {
    throw new RangeError(`promptTimeoutMs must be a positive number of milliseconds, got ${ms}`);
  }
  return ms;
}

/**
 * Where the current turn's requests of some calls are, from one walk back over the turn: for
 * each call, the very object when it is there (the latest, if twice), else the latest request
 * with its id. Asking stays right while entries are replaced by metadata edits.
 */
class RequestPlaces {
  readonly #byObject = new Map<object, number[]>();
  readonly #byId = new Map<unknown, number>();

  constructor(events: readonly StreamEvent[], calls: readonly ToolCall[]) {
    const objects = new Set<object>(calls);
    const ids = new Set(calls.map((call) => call.id));
    for (let i = events.length - 1; i >= 0; i--) {
      const event = events[i] as StreamEvent;
      if (event.type === "turn_start") break;
      if (objects.has(event)) {
        const places = this.#byObject.get(event);
        if (places === undefined) this.#byObject.set(event, [i]);
        else places.push(i);
      }
      if (event.type !== "tool_call_request") continue;
      const { id } = event as { id: unknown };
      if (ids.has(id as string) && !this.#byId.has(id)) this.#byId.set(id, i);
    }
  }

  /** The index of the request that `call` is in `events` as they are now. */
  of(events: readonly StreamEvent[], call: ToolCall): number {
    // Latest first; an entry replaced since (marked) is no longer the very object.
    const places = this.#byObject.get(call);
    if (places !== undefined) for (const i of places) if (events[i] === call) return i;
    const latest = this.#byId.get(call.id);
    if (latest === undefined) {
      throw new Error(`ToolCoordinator lost the request of tool call "${call.id}"`);
    }
    return latest;
  }
}

function appendOrThrowResult(result: Result<void, StreamError>): void {
  if (result.isErr())
    throw new Error(`ToolCoordinator could not update the stream: ${result.error.message}`);
}

function isEmpty(object: object): boolean {
  for (const _ in object) return false;
  return true;
}
