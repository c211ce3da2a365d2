import { err, ok, type Result } from "neverthrow";
import { createEvent, decodedOrUndefined, decodeEvent, encodeEvent, kindOf } from "./codec.js";
import { type DecodeError, decodeError, type StreamError } from "./errors.js";
import { rememberEventTexts } from "./event-text.js";
import {
  type ChatRequest,
  type ConversationEvent,
  isConversationEvent,
  type StreamEvent,
  type TurnStart,
} from "./events.js";
import { noteMetadataEdit } from "./internal/metadata-edit.js";
import type { Family } from "./internal/pairing.js";
import { turnWindows } from "./internal/turns.js";
import type { JsonObject, JsonValue } from "./json.js";
import { type SanitizeReport, sanitizeEvents } from "./sanitize.js";
import { StreamAppendError } from "./stream-append-error.js";
import { formatTimestamp } from "./timestamp.js";

/** One turn of a conversation: from its `turn_start` up to the next. */
export interface Turn {
  /** 0-based position among the stream's turns. */
  readonly index: number;
  /** The index in the stream of the turn's first event. */
  readonly offset: number;
  /** The turn's events, its `turn_start` first (absent in streams written before turns). */
  readonly events: readonly StreamEvent[];
}

// Set by the class: the private constructor, for adoptEvents.
let adopt: (events: StreamEvent[]) => ConversationStream;

/**
 * A conversation's events in order, as in JP's `events.json`: conversation events, config deltas
 * and entries of unknown types (kept verbatim). Appending validates within the current turn, as
 * JP does; {@link ConversationStream.sanitize} repairs streams that were cut short.
 *
 * @example
 * const stream = ConversationStream.decode(JSON.parse(text))._unsafeUnwrap();
 * for (const turn of stream.turns()) console.log(turn.index, turn.events.length);
 */
export class ConversationStream {
  static {
    adopt = (events) => new ConversationStream(events);
  }

  #events: StreamEvent[];

  private constructor(events: StreamEvent[]) {
    this.#events = events;
  }

  /** An empty stream. */
  static empty(): ConversationStream {
    return new ConversationStream([]);
  }

  /** A stream of already-typed events, taken as they are (no validation). */
  static from(events: readonly StreamEvent[]): ConversationStream {
    return new ConversationStream(withRoom(events));
  }

  /** Decodes the array of `events.json`. Never throws; the error names the failing event. */
  static decode(json: unknown): Result<ConversationStream, DecodeError> {
    if (!Array.isArray(json)) return err(decodeError([], "expected an array of events"));
    // Built by pushing, so the array has room to grow: the first append to a long conversation
    // does not copy it.
    const events: StreamEvent[] = [];
    for (let i = 0; i < json.length; i++) {
      const decoded = decodedOrUndefined(json[i]);
      // Decoded again for the error, so that a good event costs no path and no Result.
      if (decoded === undefined) return err(decodeEvent(json[i], [i])._unsafeUnwrapErr());
      events.push(decoded);
    }
    return ok(new ConversationStream(events));
  }

  /**
   * Decodes a JSON array of events (their in-memory form, as {@link ConversationStream.decode}
   * takes) from its text. Never throws: text that is not JSON is an error too. An event whose
   * text holds a number JSON.parse does not read exactly (an integer past 2^53, a `-0.0`) keeps
   * that text, which `encodeEventText` writes back.
   */
  static decodeText(text: string): Result<ConversationStream, DecodeError> {
    if (typeof text !== "string") {
      return err(
        decodeError([], `expected the text of a JSON array of events, got ${kindOf(text)}`),
      );
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (cause) {
      const reason = cause instanceof Error ? cause.message : String(cause);
      return err(decodeError([], `expected a JSON array of events, got invalid JSON: ${reason}`));
    }
    const stream = ConversationStream.decode(json);
    if (stream.isOk()) rememberEventTexts(text, json as unknown[], stream.value.#events);
    return stream;
  }

  /** Every entry, in order. */
  get events(): readonly StreamEvent[] {
    return this.#events;
  }

  /** The number of entries. */
  get length(): number {
    return this.#events.length;
  }

  [Symbol.iterator](): IterableIterator<StreamEvent> {
    return this.#events[Symbol.iterator]();
  }

  /** Only the conversation events (no config deltas or unknown entries). */
  conversationEvents(): ConversationEvent[] {
    return this.#events.filter(isConversationEvent);
  }

  /** The array for `events.json` (see {@link encodeEvent} for how each entry is written). */
  toJSON(): object[] {
    return this.#events.map((event) => encodeEvent(event));
  }

  /** The turns, in order. */
  turns(): Turn[] {
    return turnWindows(this.#events).map((w, index) => ({
      index,
      offset: w.start,
      events: this.#events.slice(w.start, w.end),
    }));
  }

  /** A copy that can be changed without touching this stream (events are shared, immutable). */
  clone(): ConversationStream {
    return new ConversationStream(withRoom(this.#events));
  }

  /**
   * Starts a new turn: a `turn_start` and the user's `chat_request`, as JP's `start_turn` does.
   * Returns the two events appended.
   */
  startTurn(request: string | Omit<ChatRequest, "type" | "timestamp">): [TurnStart, ChatRequest] {
    const timestamp = formatTimestamp();
    const start = createEvent("turn_start", { timestamp });
    const chat = createEvent(
      "chat_request",
      typeof request === "string" ? { content: request, timestamp } : { ...request, timestamp },
    );
    this.#events.push(start, chat);
    this.#balance = newBalance();
    return [start, chat];
  }

  /**
   * Appends events to the current turn, all or none. A response needs a request with the same id
   * in the current turn, and no id may have more responses than requests (JP's `TurnMut` rules).
   * `turn_start` is refused: use {@link ConversationStream.startTurn}.
   *
   * @throws {StreamAppendError} when the events break those rules (or no turn has started): a
   * mistake in the appending code, never silently dropped. {@link ConversationStream.tryAppend}
   * returns the same refusal as a `Result`.
   */
  append(...events: ConversationEvent[]): void {
    const appended = this.tryAppend(...events);
    if (appended.isErr()) throw new StreamAppendError(appended.error);
  }

  /**
   * {@link ConversationStream.append}, with a refusal returned as an `Err` instead of thrown: for
   * events that come from elsewhere (a file, another process) and may not fit the turn.
   */
  tryAppend(...events: ConversationEvent[]): Result<void, StreamError> {
    const current = this.#currentTurn();
    if (current === undefined) {
      return err({ kind: "no-turn", message: "no turn has started: call startTurn() first" });
    }
    // `settle` either refuses an event without touching the balance or counts it.
    if (events.length === 1) {
      const event = events[0] as ConversationEvent;
      const problem =
        refuseTurnStart(event) ?? refuseDeep(event, 0) ?? this.#settle(current, event, events, 0);
      if (problem !== undefined) return err(problem);
      this.#events.push(event);
      return ok(undefined);
    }
    // Changes go to an overlay over the turn's balance, so a refused batch changes nothing. A
    // request closed in the overlay is noted as 0 there, and removed from the balance after.
    const overlay: Balance = newBalance();
    const view = (family: Family): OpenRequests => ({
      get: (id) => (overlay[family].has(id) ? overlay[family].get(id) : current[family].get(id)),
      set: (id, value) => overlay[family].set(id, value),
      delete: (id) => {
        overlay[family].set(id, 0);
        return true;
      },
    });
    const balance = { tool_call: view("tool_call"), inquiry: view("inquiry") };
    for (let i = 0; i < events.length; i++) {
      const event = events[i] as ConversationEvent;
      const problem =
        refuseTurnStart(event) ?? refuseDeep(event, i) ?? this.#settle(balance, event, events, i);
      if (problem !== undefined) return err(problem);
    }
    this.#events.push(...events);
    for (const family of FAMILIES) {
      for (const [id, value] of overlay[family]) {
        if (value === 0) current[family].delete(id);
        else current[family].set(id, value);
      }
    }
    return ok(undefined);
  }

  /**
   * How many tool call requests (`"tool_call"`) or inquiry requests (`"inquiry"`) of the current
   * turn with this `id` have no response yet: 0 when none (or no turn has started). Kept as
   * events are appended, so asking costs the same in a long turn as in a short one.
   */
  openRequests(kind: "tool_call" | "inquiry", id: string): number {
    return this.#currentTurn()?.[kind].get(id) ?? 0;
  }

  /**
   * Sets (or, with `undefined`, removes) one key of the `metadata` of the entry at `index`,
   * leaving everything else of the entry as it is; an emptied `metadata` is left out when
   * written. Metadata is where JP and this SDK keep data a reader may not know (JP writes
   * `cache_breakpoint` there; the coordinator keeps a suspended prompt's state there).
   */
  setMetadata(index: number, key: string, value: JsonValue | undefined): Result<void, StreamError> {
    const event = this.#events[index];
    if (event === undefined || !Number.isInteger(index)) {
      return err({ kind: "no-such-event", message: `the stream has no entry at index ${index}` });
    }
    const current = (event as { metadata?: JsonObject }).metadata;
    const metadata: JsonObject = {};
    if (current !== undefined) {
      // Copied by assignment: only `__proto__` needs defining as an own key.
      for (const k of Object.keys(current)) {
        if (k === key) continue;
        if (k === "__proto__") setOwn(metadata, k, current[k] as JsonValue);
        else metadata[k] = current[k] as JsonValue;
      }
    }
    if (value !== undefined) setOwn(metadata, key, value);
    const { metadata: _, ...rest } = event as StreamEvent & { metadata?: JsonObject };
    const next = Object.keys(metadata).length === 0 ? rest : { ...rest, metadata };
    this.#events[index] = next as StreamEvent;
    noteMetadataEdit(next, event, key);
    return ok(undefined);
  }

  // Counts `batch[index]` into the balance, or says why it cannot be appended: a response that
  // closes nothing is a duplicate if its request is in the turn (or earlier in the batch), else an
  // orphan. Only then is the turn read: the balance holds open requests only.
  #settle(
    balance: Readonly<Record<Family, OpenRequests>>,
    event: ConversationEvent,
    batch: readonly ConversationEvent[],
    index: number,
  ): StreamError | undefined {
    if (settle(balance, event)) return undefined;
    const [family] = PAIRS[event.type] as readonly [Family, "request" | "response"];
    const id = String((event as { id?: unknown }).id);
    const requested = (e: StreamEvent) => {
      const pair = Object.hasOwn(PAIRS, e.type) ? PAIRS[e.type] : undefined;
      return (
        pair?.[0] === family && pair[1] === "request" && String((e as { id?: unknown }).id) === id
      );
    };
    const turn = lastTurnWindow(this.#events);
    const seen =
      batch.slice(0, index).some(requested) ||
      (turn !== undefined && this.#events.slice(turn.start).some(requested));
    return responseError(family, id, seen);
  }

  // The current turn's request/response balance, kept between appends so that appending to a
  // long conversation costs the same as appending to a short one. Rebuilt after anything that
  // rewrites the events (sanitize) or starts a turn.
  #balance: Balance | undefined;

  #currentTurn(): Balance | undefined {
    if (this.#balance !== undefined) return this.#balance;
    const current = lastTurnWindow(this.#events);
    if (current === undefined) return undefined;
    const balance = newBalance();
    for (let i = current.start; i < current.end; i++)
      settle(balance, this.#events[i] as StreamEvent);
    this.#balance = balance;
    return balance;
  }

  /**
   * Repairs the stream in place with JP's seven steps, inquiry and tool-call pairing scoped to
   * each turn, and reports every entry it removed or inserted.
   */
  sanitize(): SanitizeReport {
    const { events, report } = sanitizeEvents(this.#events);
    this.#events = events;
    this.#balance = undefined;
    return report;
  }
}

/**
 * A stream over `events` itself, not a copy (not part of the public API): for an array the
 * caller hands over, with room to grow (built by pushing, or grown once).
 */
export function adoptEvents(events: StreamEvent[]): ConversationStream {
  return adopt(events);
}

// A copy with room to grow: growing an exactly-sized array of 100,000 events on the first append
// copies it again, which would make appending to a long conversation cost more than a short one.
function withRoom(events: readonly StreamEvent[]): StreamEvent[] {
  const copy = events.slice();
  copy.push(undefined as never);
  copy.pop();
  return copy;
}

// The last turn, found from the end: a long conversation costs no more than a short one. Only a
// stream without any `turn_start` (written before JP recorded turns) needs the full split.
function lastTurnWindow(
  events: readonly StreamEvent[],
): { start: number; end: number } | undefined {
  for (let i = events.length - 1; i >= 0; i--) {
    if ((events[i] as StreamEvent).type === "turn_start") return { start: i, end: events.length };
  }
  return turnWindows(events).at(-1);
}

// An own key even for `__proto__`: metadata keys come from disk.
function setOwn(target: JsonObject, key: string, value: JsonValue): void {
  Object.defineProperty(target, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

/**
 * How deeply arrays and objects may be nested in each value an event holds (its arguments, an
 * answer, a question, structured data, metadata…). No real conversation comes near it; deeper data
 * could not be saved, as writing JSON (and the SDK's copies and checks, which recurse) overflows
 * the call stack a few thousand levels deep.
 */
export const MAX_EVENT_VALUE_DEPTH = 128;

// An event holding a value nested too deeply is refused, naming the field. Each container is
// visited once, by a recursion at most MAX_EVENT_VALUE_DEPTH calls deep: an event's strings,
// however long, cost nothing, and a usual event's few small objects next to nothing.
function refuseDeep(event: ConversationEvent, index: number): StreamError | undefined {
  const fields = event as unknown as Record<string, unknown>;
  for (const key in fields) {
    const value = fields[key];
    if (typeof value !== "object" || value === null) continue;
    if (!deeperThan(value, MAX_EVENT_VALUE_DEPTH)) continue;
    const id = (event as { id?: unknown }).id;
    const named = typeof id === "string" ? ` (id ${JSON.stringify(id)})` : "";
    return {
      kind: "nested-too-deep",
      message: `the ${event.type}${named} cannot be recorded: its "${key}" field is nested more than ${MAX_EVENT_VALUE_DEPTH} levels deep (arrays and objects within one another), deeper than a conversation can be saved with`,
      ...(typeof id === "string" ? { id } : {}),
      index,
    };
  }
  return undefined;
}

/**
 * Whether arrays and objects in `value` are nested more deeply than a conversation records
 * ({@link MAX_EVENT_VALUE_DEPTH} levels, `value` itself the first): what `append` refuses as
 * `nested-too-deep`. The recursion goes no deeper than that, however deep `value` is.
 */
export function nestedTooDeeply(value: unknown): boolean {
  return typeof value === "object" && value !== null && deeperThan(value, MAX_EVENT_VALUE_DEPTH);
}

// Whether `value` (an array or object) holds arrays and objects more than `levels` deep, itself
// counted as the first.
function deeperThan(value: object, levels: number): boolean {
  if (levels === 0) return true;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (typeof item === "object" && item !== null && deeperThan(item, levels - 1)) return true;
    }
    return false;
  }
  const record = value as Record<string, unknown>;
  for (const key in record) {
    const item = record[key];
    if (typeof item === "object" && item !== null && deeperThan(item, levels - 1)) return true;
  }
  return false;
}

function refuseTurnStart(event: ConversationEvent): StreamError | undefined {
  if (event.type !== "turn_start") return undefined;
  return {
    kind: "turn-start-not-allowed",
    message: "a turn_start cannot be appended within a turn: call startTurn() instead",
  };
}

/** Open requests per id in the current turn, one table per family. */
type Balance = Readonly<Record<Family, Map<string, number>>>;
/** What `settle` needs of a family's open requests: a map, or an overlay over one. */
type OpenRequests = Pick<Map<string, number>, "get" | "set" | "delete">;

const FAMILIES: readonly Family[] = ["tool_call", "inquiry"];

function newBalance(): Balance {
  return { tool_call: new Map(), inquiry: new Map() };
}

// Which family and role an event has, without allocating: this runs for every append.
const PAIRS: Readonly<Record<string, readonly [Family, "request" | "response"]>> = {
  tool_call_request: ["tool_call", "request"],
  tool_call_response: ["tool_call", "response"],
  inquiry_request: ["inquiry", "request"],
  inquiry_response: ["inquiry", "response"],
};

// Counts one event into the balance; false for a response that closes no open request. A closed
// request leaves the table, so a turn of 10,000 questions keeps a table of the few still open.
function settle(balance: Readonly<Record<Family, OpenRequests>>, event: StreamEvent): boolean {
  const pair = Object.hasOwn(PAIRS, event.type) ? PAIRS[event.type] : undefined;
  if (pair === undefined) return true;
  const [family, role] = pair;
  const table = balance[family];
  const id = String((event as { id?: unknown }).id);
  const open = table.get(id) ?? 0;
  if (role === "request") table.set(id, open + 1);
  else if (open > 1) table.set(id, open - 1);
  else if (open === 1) table.delete(id);
  else return false;
  return true;
}

function responseError(family: Family, id: string, seen: boolean): StreamError {
  const what = family === "tool_call" ? "tool call" : "inquiry";
  if (seen) {
    return {
      kind: family === "tool_call" ? "duplicate-tool-call-response" : "duplicate-inquiry-response",
      id,
      message: `${what} response "${id}" has more responses than requests in this turn`,
    };
  }
  return {
    kind: family === "tool_call" ? "orphaned-tool-call-response" : "orphaned-inquiry-response",
    id,
    message: `${what} response "${id}" has no matching request in this turn`,
  };
}
