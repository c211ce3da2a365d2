import {
  type ConversationEvent,
  type ConversationStream,
  type InquiryRequest,
  type InquiryResponse,
  MAX_EVENT_VALUE_DEPTH,
  nestedTooDeeply,
} from "@jp/conversation";
import type { EventEmitter } from "eventemitter3";
import type { InquiryBackend } from "../backends/inquiry-backend.js";
import {
  HumanUnreachableError,
  type PromptBackend,
  type PromptRequest,
  PromptUnsupportedError,
  type ReplyFor,
} from "../backends/prompt-backend.js";
import type { ToolsConfig } from "../config/schema.js";
import { promptIdFor, type StoredReply } from "../durable/marker.js";
import type { TurnState } from "../turn-state.js";
import type { CallEscalations } from "./escalation.js";
import type { CoordinatorEvents, PromptOutcome, PromptRefusal } from "./events.js";
import type { PromptQueue } from "./prompt-queue.js";
import type { RecordedDefaults } from "./recorded-defaults.js";
import { type RunAbort, SignalOnRead, type Stopped } from "./run-abort.js";
import type { ToolCoordinator } from "./tool-coordinator.js";

/** What every tool call of one `run` shares. */
export interface RunContext {
  readonly stream: ConversationStream;
  readonly tools: ToolsConfig;
  readonly prompts: PromptBackend | undefined;
  readonly inquiries: InquiryBackend | undefined;
  readonly humanReachable: boolean;
  readonly turn: TurnState;
  /** Stops on the host's signal and when a human ends the turn; its signal is made on first use. */
  readonly abort: RunAbort;
  readonly endTurn: () => void;
  readonly queue: PromptQueue;
  readonly emitter: EventEmitter<CoordinatorEvents>;
  /** The run's coordinator, as each pass's input names it. */
  readonly coordinator: ToolCoordinator;
  /** Why no human is reachable, when none is. */
  readonly unreachable: Unreachable | undefined;
  /** How long a person has to answer one prompt once it is shown; no limit when absent. */
  readonly promptTimeoutMs: number | undefined;
  /** Every secret answered in this run, masked in everything recorded, returned or emitted. */
  readonly secrets: SecretMask;
  /**
   * Set when prompts that would go to a person are left pending instead of awaited (a suspended
   * run, or a resumed one with nobody to ask now).
   */
  readonly suspend: boolean;
  /** Replies given while the turn was suspended, by prompt id; each is used once. */
  readonly stored: Map<string, StoredReply>;
  /**
   * Prompt ids of suspended prompts whose deadline passed without a reply. A sub-agent's prompt
   * takes its id out once it has used it (see `expiredAt` in escalation.ts).
   */
  readonly expired: Set<string>;
  /** The prompts left pending, in the order they were, so resuming keeps their order. */
  readonly suspensions: Map<PromptRequest, number>;
  /**
   * Set once a prompt is left pending: every prompt behind it in line is left pending too, as
   * a person answers prompts in order (a reply given to a later one waits its turn).
   */
  readonly line: { held: boolean };
  /**
   * The sub-agent prompts of each running call's current pass, by tool call id; `undefined`
   * between passes (kept, not deleted: a map that shrinks and grows again on every pass
   * reallocates its table each time).
   */
  readonly escalations: Map<string, CallEscalations | undefined>;
  /** In a resumed run: the prompts the turn was suspended at, which go back in line first. */
  readonly resumedLine: ResumedLine | undefined;
  /** The prompts this run refused to show, for its result (see {@link refused}). */
  readonly refusals: PromptRefusal[];
  /** In a resumed run: which answers of the resumed calls nobody gave, as the record says. */
  readonly recordedDefaults?: RecordedDefaults;
}

/** A prompt the run refused to show: kept for the run's result, and told to listeners. */
export function refused(ctx: RunContext, refusal: PromptRefusal): void {
  ctx.refusals.push(refusal);
  if (ctx.emitter.listenerCount("prompt-refused") > 0) ctx.emitter.emit("prompt-refused", refusal);
}

/**
 * The order of a resumed turn's line of prompts. When the turn was suspended, its pending prompts
 * stood in line in a known order (their `seq`), ahead of anything asked later. Resumed calls reach
 * them again at different speeds (a call that hosts a sub-agent runs its tool again first), so each
 * holds its place: a resumed prompt joins the queue once every resumed prompt before it has, and a
 * new prompt once every resumed prompt of the other calls, and every new prompt asked before it,
 * has. A call that asks something new first, or finishes, gives its place up.
 */
export class ResumedLine {
  readonly #slots: { readonly promptId: string; readonly callId: string; open: boolean }[] = [];
  // Slot indices in line order, by prompt id and by call id: a slot is found without reading the
  // others. Closed slots are skipped (and dropped from the front) as they are met.
  readonly #byPrompt = new Map<string, number[]>();
  readonly #byCall = new Map<string, number[]>();
  // Every slot before `#first` is closed. `#gates` holds, by slot index `end`, what resolves once
  // every slot before `end` is closed: what a prompt waits on is its place, not each prompt ahead.
  #first = 0;
  readonly #gates = new Map<
    number,
    { readonly passed: Promise<void>; readonly open: () => void }
  >();
  // New prompts waiting to join, by prompt id: each joins after the one that came before it, so
  // that one let go by the line does not find itself behind one that came later and found the
  // line empty (a promise taking its ticks to settle would otherwise decide their order).
  readonly #newcomers = new Map<
    string,
    { readonly joined: Promise<void>; readonly done: () => void }
  >();
  #lastNewcomer: Promise<void> | undefined;

  constructor(prompts: readonly { readonly promptId: string; readonly callId: string }[]) {
    for (const { promptId, callId } of prompts) {
      const index = this.#slots.length;
      this.#slots.push({ promptId, callId, open: true });
      indexSlot(this.#byPrompt, promptId, index);
      indexSlot(this.#byCall, callId, index);
    }
  }

  /**
   * Resolves when the prompt may join the queue, or is undefined when it may at once. Call
   * {@link joined} right after it has.
   */
  waitFor(promptId: string, callId: string): Promise<void> | undefined {
    const at = this.#openSlot(promptId);
    // A new prompt of a call gives up that call's places: it was not asked where it stood.
    if (at === -1) this.releaseCall(callId);
    const waits: Promise<void>[] = [];
    const ahead = this.#gate(at === -1 ? this.#slots.length : at);
    if (ahead !== undefined) waits.push(ahead);
    if (at === -1) {
      if (this.#lastNewcomer !== undefined) waits.push(this.#lastNewcomer);
      if (waits.length === 0) return undefined;
      let done!: () => void;
      const joined = new Promise<void>((resolve) => (done = resolve));
      this.#newcomers.set(promptId, { joined, done });
      this.#lastNewcomer = joined;
    }
    if (waits.length === 0) return undefined;
    return Promise.all(waits).then(() => undefined);
  }

  /**
   * Whether `promptId` was pending when the turn was suspended and has not rejoined the queue
   * yet: its place in line still holds, and it is decided in that place, as a prompt waiting in
   * a live queue is (an answer remembered since does not let it go ahead of the prompts before
   * it).
   */
  holds(promptId: string): boolean {
    return this.#openSlot(promptId) !== -1;
  }

  /** The prompt has joined the queue (or will never be asked again): those behind it may go. */
  joined(promptId: string): void {
    const newcomer = this.#newcomers.get(promptId);
    if (newcomer !== undefined) {
      this.#newcomers.delete(promptId);
      if (this.#lastNewcomer === newcomer.joined) this.#lastNewcomer = undefined;
      newcomer.done();
      return;
    }
    const at = this.#openSlot(promptId);
    if (at !== -1) this.#close(at);
  }

  /** Resolves once every resumed prompt has joined the queue or been given up; undefined if all have. */
  allJoined(): Promise<void> | undefined {
    const all = this.#gate(this.#slots.length);
    return all === undefined ? undefined : Promise.all([all]).then(() => undefined);
  }

  /** The call finished or suspended: it will not ask its resumed prompts any more. */
  releaseCall(callId: string): void {
    const slots = this.#byCall.get(callId);
    if (slots === undefined) return;
    // A slot, once closed, stays closed: the call's places are given up all at once.
    this.#byCall.delete(callId);
    for (const index of slots) if (this.#slots[index]?.open === true) this.#close(index);
  }

  // The first open slot of `promptId`, or -1.
  #openSlot(promptId: string): number {
    const slots = this.#byPrompt.get(promptId);
    if (slots === undefined) return -1;
    let skip = 0;
    while (skip < slots.length && this.#slots[slots[skip] as number]?.open !== true) skip++;
    if (skip === slots.length) {
      this.#byPrompt.delete(promptId);
      return -1;
    }
    if (skip > 0) slots.splice(0, skip);
    return slots[0] as number;
  }

  // What resolves once every slot before `end` is closed, or undefined if every one is.
  #gate(end: number): Promise<void> | undefined {
    if (this.#first >= end) return undefined;
    let gate = this.#gates.get(end);
    if (gate === undefined) {
      let open!: () => void;
      const passed = new Promise<void>((resolve) => (open = resolve));
      gate = { passed, open };
      this.#gates.set(end, gate);
    }
    return gate.passed;
  }

  #close(index: number): void {
    const slot = this.#slots[index];
    if (slot === undefined || !slot.open) return;
    slot.open = false;
    if (index !== this.#first) return;
    const from = this.#first;
    let first = from + 1;
    while (first < this.#slots.length && this.#slots[first]?.open !== true) first++;
    this.#first = first;
    if (this.#gates.size === 0) return;
    for (let end = from + 1; end <= first; end++) {
      const gate = this.#gates.get(end);
      if (gate === undefined) continue;
      this.#gates.delete(end);
      gate.open();
    }
  }
}

function indexSlot(index: Map<string, number[]>, key: string, slot: number): void {
  const slots = index.get(key);
  if (slots === undefined) index.set(key, [slot]);
  else slots.push(slot);
}

/** Why no human can be asked: `--non-interactive`, no backend, or the backend says nobody is there. */
export type Unreachable = "non_interactive" | "no_backend" | "not_reachable";

/** Appends to a stream; a refused append is a bug in the coordinator, not bad input. */
export function appendOrThrow(stream: ConversationStream, event: ConversationEvent): void {
  const appended = stream.tryAppend(event);
  if (appended.isErr()) {
    throw new Error(`ToolCoordinator could not record a ${event.type}: ${appended.error.message}`);
  }
}

/** Records an event in the run's conversation and tells listeners about inquiry events. */
export function record(ctx: RunContext, event: ConversationEvent): void {
  appendOrThrow(ctx.stream, event);
  // Built only for a listener: two of these are recorded for every question.
  if (
    (event.type === "inquiry_request" || event.type === "inquiry_response") &&
    ctx.emitter.listenerCount("inquiry-recorded") > 0
  ) {
    ctx.emitter.emit("inquiry-recorded", { event: event as InquiryRequest | InquiryResponse });
  }
}

/** The result of showing one prompt: the reply, or why there is none. */
export type PromptResult<R extends PromptRequest> =
  | { readonly type: "reply"; readonly reply: ReplyFor<R> }
  | { readonly type: "unneeded" }
  /** Left pending: the run suspends instead of waiting for a person. */
  | { readonly type: "suspended" }
  | { readonly type: "aborted"; readonly cause: AbortCause }
  | { readonly type: "failed"; readonly error: string; readonly failure: PromptFailure };

/**
 * Why a prompt backend failed: the person could not be reached, the backend cannot show this
 * prompt, it replied with something the prompt does not take, or anything else.
 */
export type PromptFailure = "unreachable" | "unsupported" | "malformed" | "other";

// The replies each prompt kind takes. Anything else comes from a broken backend, never from the
// person: it is a failure, not a cancel, a skip or a decision.
const REPLY_TYPES: Readonly<Record<PromptRequest["kind"], ReadonlySet<string>>> = {
  question: new Set(["answer", "back", "reply", "end_turn", "cancelled"]),
  permission: new Set(["run", "skip", "edit", "cancelled"]),
  deliver: new Set(["deliver", "skip", "edit", "cancelled"]),
};

/** A backend's reply that the prompt does not take. */
class MalformedReplyError extends Error {
  override readonly name = "MalformedReplyError";
}

// What is wrong with a backend's reply to `request`, or undefined when the prompt takes it. An
// answer's value is not checked here: a person's misfit answer is asked again, not a failure.
function malformedReply(request: PromptRequest, reply: unknown): string | undefined {
  const kind = request.kind;
  if (typeof reply !== "object" || reply === null) {
    return `the prompt backend replied ${describeReply(reply)} to a ${kind} prompt, not a reply object`;
  }
  const fields = reply as Record<string, unknown>;
  const type = fields.type;
  if (typeof type !== "string" || !REPLY_TYPES[kind].has(type)) {
    return `the prompt backend replied with type ${describeReply(type)}, which a ${kind} prompt does not take`;
  }
  const field = (name: string, wanted: string) =>
    `the prompt backend gave a ${kind} prompt ${/^[aeiou]/.test(type) ? "an" : "a"} "${type}" reply whose "${name}" is not ${wanted}`;
  const isText = (value: unknown) => value === undefined || typeof value === "string";
  if (kind === "permission" && type === "edit") {
    const args = fields.arguments;
    if (typeof args !== "object" || args === null || Array.isArray(args)) {
      return field("arguments", "a JSON object");
    }
    // Edited arguments are kept with a suspended call: deeper ones could not be saved.
    if (nestedTooDeeply(args)) {
      return field("arguments", `nested at most ${MAX_EVENT_VALUE_DEPTH} levels deep`);
    }
  }
  if (kind === "permission" && type === "skip" && !isText(fields.reason)) {
    return field("reason", "a string");
  }
  if (kind === "deliver" && type === "edit" && typeof fields.content !== "string") {
    return field("content", "a string");
  }
  if (kind === "question" && type === "reply" && !isText(fields.message)) {
    return field("message", "a string");
  }
  return undefined;
}

function describeReply(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  return value === null ? "null" : typeof value;
}

// By name, so that a second copy of this package in a host's tree is recognised too.
function isPromptTimeout(cause: unknown): cause is { readonly ms?: number } {
  return cause instanceof Error && cause.name === "PromptTimedOutError";
}

function failureOf(cause: unknown): PromptFailure {
  if (cause instanceof HumanUnreachableError) return "unreachable";
  if (cause instanceof PromptUnsupportedError) return "unsupported";
  if (cause instanceof MalformedReplyError) return "malformed";
  return "other";
}

/** Hooks of {@link showPrompt} that run inside the prompt's turn in the queue. */
export interface PromptHooks<R extends PromptRequest> {
  /** Asked when the prompt's turn comes: an earlier prompt may have settled it meanwhile. */
  readonly needed?: () => boolean;
  /** Runs before the next prompt may start, so what it remembers is seen by that prompt. */
  readonly onReply?: (reply: ReplyFor<R>) => void;
  /** The caller can leave the prompt pending: the prompt's call then suspends at it. */
  readonly suspendable?: boolean;
}

/**
 * Shows one prompt through the queue, one at a time, and reports what happened. A prompt that
 * is no longer `needed` when its turn comes is not shown.
 */
export async function showPrompt<R extends PromptRequest>(
  ctx: RunContext,
  request: R,
  hooks: PromptHooks<R> = {},
): Promise<PromptResult<R>> {
  const backend = ctx.prompts;
  const promptId = promptIdFor(request);
  const stored = ctx.stored.get(promptId) as ReplyFor<R> | undefined;
  const suspendable = hooks.suspendable === true;
  if (backend === undefined && stored === undefined && !(ctx.suspend && suspendable)) {
    return { type: "failed", error: "no prompt backend is configured", failure: "unreachable" };
  }
  // The prompt's own deadline starts when it is shown, not while it waits in line. Only made
  // when there is one: a signal takes longer to make than the rest of a question round.
  const deadline = ctx.promptTimeoutMs === undefined ? undefined : new AbortController();
  const stop: Stopped =
    deadline === undefined ? ctx.abort : AbortSignal.any([ctx.abort.signal, deadline.signal]);
  const place = ctx.resumedLine?.waitFor(promptId, request.tool_call_id);
  if (place !== undefined) await place;
  const entered = ctx.queue.enter(stop);
  ctx.resumedLine?.joined(promptId);
  // A live run starts a free queue's turn at once. A resumed run waits a tick first: the prompts
  // behind this one in the resumed line go on as it joins, and reach the queue in the order they
  // did when the turn was live only if they may run before this prompt's turn does.
  const taken = entered === true && ctx.resumedLine === undefined ? true : await entered;
  if (!taken) {
    // The run stopped while the prompt waited in line: it was never shown.
    return answered(ctx, request, { type: "aborted", cause: causeOf(ctx, stop) });
  }
  // The prompt's whole turn, its outcome told to listeners included, ends before the next
  // prompt in line may start.
  try {
    let endedTurn = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let result: PromptResult<R>;
    try {
      // Behind a pending prompt, nothing is decided yet: not even whether this one is needed.
      if (ctx.line.held && suspendable) return leaveInLine(ctx, request);
      // A reply the person gave while the turn was suspended is theirs to the prompt: an answer
      // remembered since (another prompt's "for the turn") does not stand in for it.
      if (stored === undefined && hooks.needed?.() === false) {
        if (!stop.aborted) return { type: "unneeded" };
        return answered(ctx, request, { type: "aborted", cause: causeOf(ctx, stop) });
      }
      let reply: ReplyFor<R>;
      if (stored !== undefined) {
        // The person answered while the turn was suspended: apply it in this prompt's place.
        ctx.stored.delete(promptId);
        endedTurn = endsTurn(request, stored);
        if (endedTurn) {
          // End Turn closes the prompts that waited in line behind this one when the turn was
          // left, as a live End Turn closes those queued behind it: each is let back into the line
          // first (a sub-agent's prompt comes back only once its tool has run again).
          const behind = ctx.resumedLine?.allJoined();
          if (behind !== undefined) await behind;
        }
        hooks.onReply?.(stored);
        if (endedTurn) ctx.endTurn();
        reply = stored;
      } else {
        if ((ctx.suspend && suspendable) || backend === undefined) {
          return leaveInLine(ctx, request);
        }
        if (deadline !== undefined && ctx.promptTimeoutMs !== undefined) {
          timer = startDeadline(deadline, ctx.promptTimeoutMs);
        }
        if (ctx.emitter.listenerCount("prompt-shown") > 0) {
          ctx.emitter.emit("prompt-shown", { request });
        }
        // The signal is made only if the backend reads it (see RunAbort).
        const asked = await backend.ask(
          request,
          stop instanceof AbortSignal ? new SignalOnRead(stop) : ctx.abort.options,
        );
        // `?.`: a broken backend may resolve with nothing at all.
        if (asked?.type === "later") {
          if (!suspendable) throw new HumanUnreachableError("the person can only answer later");
          return leaveInLine(ctx, request);
        }
        const malformed = malformedReply(request, asked);
        if (malformed !== undefined) throw new MalformedReplyError(malformed);
        if (!stop.aborted) {
          hooks.onReply?.(asked);
          // End Turn closes every prompt queued behind this one before the next could be shown.
          endedTurn = endsTurn(request, asked);
          if (endedTurn) ctx.endTurn();
        }
        reply = asked;
      }
      result =
        stop.aborted && !endedTurn
          ? { type: "aborted", cause: causeOf(ctx, stop) }
          : { type: "reply", reply };
    } catch (cause) {
      result = stop.aborted
        ? { type: "aborted", cause: causeOf(ctx, stop) }
        : isPromptTimeout(cause)
          ? // The backend's own deadline passed: the same record as the coordinator's own.
            { type: "aborted", cause: { type: "timeout", ms: cause.ms } }
          : { type: "failed", error: ctx.secrets.mask(describe(cause)), failure: failureOf(cause) };
    } finally {
      clearTimeout(timer);
    }
    return answered(ctx, request, result);
  } finally {
    ctx.queue.leave();
  }
}

// Why the prompt's stop aborted. When it is the run's stop seen through the prompt's deadline
// signal, the run says why (an escalated prompt's run knows whose stop it was; its signal does not).
function causeOf(ctx: RunContext, stop: Stopped): AbortCause {
  if (stop !== ctx.abort && ctx.abort.aborted && stop.reason === ctx.abort.signal.reason) {
    return abortCause(ctx.abort);
  }
  return abortCause(stop);
}

// The prompt is left pending, and so is every prompt behind it in line. (showPrompt has no
// closures: one would make it allocate their scope on every prompt.)
function leaveInLine<R extends PromptRequest>(ctx: RunContext, request: R): PromptResult<R> {
  ctx.line.held = true;
  ctx.suspensions.set(request, ctx.suspensions.size);
  return { type: "suspended" };
}

// The prompt's own deadline, from the moment it is shown.
function startDeadline(deadline: AbortController, ms: number): ReturnType<typeof setTimeout> {
  return setTimeout(() => deadline.abort(new PromptTimeoutError(ms)), ms);
}

// Tells listeners how a prompt that was shown, or stopped in line, ended.
function answered<R extends PromptRequest>(
  ctx: RunContext,
  request: R,
  result: PromptResult<R>,
): PromptResult<R> {
  if (ctx.emitter.listenerCount("prompt-answered") > 0) {
    ctx.emitter.emit("prompt-answered", { request, outcome: outcomeOf(result) });
  }
  return result;
}

// Secrets shorter than this make a question unmaskable only where quoted whole (see #quotes).
const SHORT_SECRET = 4;
// A select's options: `value` and `description` are the shape's words, never a quote.
const NO_KEYWORDS: ReadonlySet<string> = new Set(["value", "description", "label"]);
// JSON Schema's keywords: a property named by the tool is looked at, `type` or `items` is not.
const SCHEMA_KEYWORDS: ReadonlySet<string> = new Set([
  "$schema",
  "$id",
  "$ref",
  "$defs",
  "$comment",
  "definitions",
  "type",
  "properties",
  "patternProperties",
  "additionalProperties",
  "propertyNames",
  "required",
  "items",
  "prefixItems",
  "contains",
  "enum",
  "const",
  "default",
  "examples",
  "title",
  "description",
  "format",
  "pattern",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minLength",
  "maxLength",
  "minItems",
  "maxItems",
  "uniqueItems",
  "minProperties",
  "maxProperties",
  "anyOf",
  "oneOf",
  "allOf",
  "not",
  "if",
  "then",
  "else",
  "dependentRequired",
  "dependentSchemas",
  "readOnly",
  "writeOnly",
  "deprecated",
  "contentEncoding",
  "contentMediaType",
]);
// Keywords whose values name a kind rather than carry the tool's text.
const KIND_KEYWORDS: ReadonlySet<string> = new Set(["type", "format", "$schema"]);

/**
 * Collects secret answers and masks them in any text, as the coordinator does in what a run
 * records and returns: for a host or server that runs tools itself (`@jp/mcp`'s tool server).
 *
 * @example
 * const secrets = new SecretMask();
 * secrets.add("sk-live-123");
 * secrets.mask("token sk-live-123 rejected"); // "token [redacted secret] rejected"
 */
export class SecretMask {
  static readonly MASK = "[redacted secret]";
  // Made with the first secret: most runs have none.
  #values: Set<string> | undefined;
  #pattern: RegExp | undefined;

  add(value: unknown): void {
    if (typeof value !== "string" || value === "") return;
    // Also the forms it takes inside JSON text, quoted once or twice: an error that quotes a
    // JSON body, a command that echoes its JSON input on stderr, which the failure quotes again.
    let form = value;
    const values = this.#values ?? new Set();
    this.#values = values;
    for (let depth = 0; depth < 3; depth++) {
      values.add(form);
      const escaped = JSON.stringify(form).slice(1, -1);
      if (escaped === form) break;
      form = escaped;
    }
    this.#pattern = undefined;
  }

  /**
   * A question with every secret masked in what is written and shown: its text, its context and
   * the default of a text question (a select's default must stay one of its options). A tool
   * that quotes an earlier secret answer in a later question would otherwise put it in the record
   * (and, routed to the assistant, in front of a model). A quote where masking would change what
   * the question accepts is found by {@link SecretMask.unmaskable}.
   */
  maskQuestion<
    Q extends {
      readonly text: string;
      readonly context?: string;
      readonly default?: unknown;
      readonly answer_type: { readonly type: string };
    },
  >(question: Q): Q {
    if (this.#values === undefined) return question;
    const text = this.mask(question.text);
    const context = question.context === undefined ? undefined : this.mask(question.context);
    const fallback =
      question.answer_type.type === "text" && typeof question.default === "string"
        ? this.mask(question.default)
        : undefined;
    if (
      text === question.text &&
      context === question.context &&
      (fallback === undefined || fallback === question.default)
    ) {
      return question;
    }
    return {
      ...question,
      text,
      ...(context === undefined ? {} : { context }),
      ...(fallback === undefined ? {} : { default: fallback }),
    };
  }

  /**
   * Where a question quotes a secret answer of the run in a part that cannot be masked without
   * changing the question: its id (answers are kept by it), a select's options, a schema, or a
   * default other than a text question's. `undefined` when it quotes none there. The answer
   * type's own words (`type`, `options`, a schema's keywords) are never taken for a quote.
   */
  unmaskable(question: {
    readonly id: string;
    readonly default?: unknown;
    readonly answer_type: { readonly type: string };
  }): "id" | "options" | "schema" | "default" | undefined {
    if (this.#values === undefined) return undefined;
    if (this.#quotes(question.id)) return "id";
    const answerType = question.answer_type as { options?: unknown; schema?: unknown };
    if (this.#quotesIn(answerType.options, NO_KEYWORDS)) return "options";
    if (this.#quotesIn(answerType.schema, SCHEMA_KEYWORDS)) return "schema";
    if (question.answer_type.type !== "text" && this.#quotesIn(question.default, undefined)) {
      return "default";
    }
    return undefined;
  }

  /**
   * Why a question cannot be asked, when it quotes a secret answer where it cannot be masked
   * (see {@link SecretMask.unmaskable}): the text a tool's failure gives, its id masked.
   */
  unaskable(question: {
    readonly id: string;
    readonly default?: unknown;
    readonly answer_type: { readonly type: string };
  }): string | undefined {
    const where = this.unmaskable(question);
    if (where === undefined) return undefined;
    return `its question "${this.mask(question.id)}" quotes a secret answer in its ${where}, where it cannot be hidden; a secret answer may be quoted only in a question's text or context, which are masked`;
  }

  // Whether a JSON value quotes a secret in a string, or in a key other than `keywords` (all
  // keys when undefined). A keyword's value that names a kind (`type`, `format`) is no quote.
  #quotesIn(value: unknown, keywords: ReadonlySet<string> | undefined): boolean {
    if (typeof value === "string") return this.#quotes(value);
    if (typeof value !== "object" || value === null) return false;
    if (Array.isArray(value)) return value.some((item) => this.#quotesIn(item, keywords));
    for (const [key, item] of Object.entries(value)) {
      const keyword = keywords?.has(key) === true;
      if (!keyword && this.#quotes(key)) return true;
      if (keyword && KIND_KEYWORDS.has(key)) continue;
      if (this.#quotesIn(item, keywords)) return true;
    }
    return false;
  }

  // Whether a string quotes a secret. A secret of fewer than SHORT_SECRET characters counts only
  // as the whole string: "7" in "Option 7" is far more likely a coincidence than a quote, and
  // refusing the question would break the tool for nothing.
  #quotes(text: string): boolean {
    const values = this.#values;
    if (values === undefined) return false;
    if (values.has(text)) return true;
    for (const secret of values) {
      if (secret.length >= SHORT_SECRET && text.includes(secret)) return true;
    }
    return false;
  }

  /** `text` with every occurrence of every secret replaced by {@link SecretMask.MASK}. */
  mask(text: string): string {
    const values = this.#values;
    if (values === undefined) return text;
    // One pass, longest first: a secret that contains another is masked whole, and a mask
    // already written is never searched again (a one-letter secret would garble it).
    this.#pattern ??= new RegExp(
      [...values]
        .sort((a, b) => b.length - a.length)
        .map((value) => value.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
        .join("|"),
      "g",
    );
    return text.replace(this.#pattern, () => SecretMask.MASK);
  }
}

// An End Turn reply to a question that offered it.
function endsTurn(request: PromptRequest, reply: ReplyFor<PromptRequest>): boolean {
  return request.kind === "question" && request.controls.end_turn && reply.type === "end_turn";
}

function outcomeOf(result: PromptResult<PromptRequest>): PromptOutcome {
  // Only the person's own stop reads as their cancel.
  if (result.type === "aborted")
    return result.cause.type === "user" ? "cancelled" : result.cause.type;
  if (result.type === "unneeded" || result.type === "suspended") return "cancelled";
  if (result.type === "failed") return "failed";
  return result.reply.type;
}

/** A prompt's own deadline passed: `name` is `TimeoutError`, as `AbortSignal.timeout()` gives. */
export class PromptTimeoutError extends Error {
  override readonly name = "TimeoutError";
  constructor(readonly ms: number) {
    super(`no answer within ${formatSeconds(ms)}`);
  }
}

/** The abort reason the coordinator uses when the person chose End Turn. */
export class TurnEndedSignal extends Error {
  override readonly name = "TurnEnded";
  constructor() {
    super("the user ended the turn");
  }
}

/**
 * Why a run's signal aborted, read from its reason: a deadline (`TimeoutError`), the person's End
 * Turn, the default `AbortError` of a bare `controller.abort()` (the person stopped the turn, as
 * Ctrl+C does), or anything else the host aborted with (a shutdown): never the person's decision.
 */
export type AbortCause =
  | { readonly type: "user" }
  | { readonly type: "turn_ended" }
  | { readonly type: "timeout"; readonly ms: number | undefined }
  | { readonly type: "interrupted"; readonly detail: string };

export function abortCause(stopped: Stopped): AbortCause {
  const reason: unknown = stopped.reason;
  if (reason instanceof TurnEndedSignal) return { type: "turn_ended" };
  if (reason instanceof PromptTimeoutError) return { type: "timeout", ms: reason.ms };
  const name = reason instanceof Error || reason instanceof DOMException ? reason.name : undefined;
  if (name === "TimeoutError") return { type: "timeout", ms: undefined };
  if (reason === undefined || name === "AbortError") return { type: "user" };
  return { type: "interrupted", detail: describe(reason) };
}

/** `250 ms`, `30 s`, `1.5 s`, `2 min`. */
export function formatSeconds(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  if (ms >= 120_000 && ms % 60_000 === 0) return `${ms / 60_000} min`;
  return `${Math.round(ms / 100) / 10} s`;
}

/** An error's message, for texts shown to the model. */
export function describe(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
}
