import {
  type ConversationEvent,
  isConversationEvent,
  type StreamEvent,
  type ToolCallRequest,
  type ToolCallResponse,
} from "./events.js";
import { EPOCH_TIMESTAMP } from "./timestamp.js";

/** Why {@link ConversationStream.sanitize} removed or inserted an entry (one code per step). */
export type SanitizeReason =
  | "before-first-chat-request"
  | "orphaned-tool-call-response"
  | "interrupted-tool-call"
  | "orphaned-inquiry-response"
  | "orphaned-inquiry-request"
  | "trailing-turn-start"
  | "duplicate-turn-start"
  | "missing-turn-start";

/** One change made by a sanitize pass. */
export interface SanitizeChange {
  readonly reason: SanitizeReason;
  readonly event: StreamEvent;
}

/** What a sanitize pass changed; empty lists when the stream was already sound. */
export interface SanitizeReport {
  readonly changed: boolean;
  readonly removed: readonly SanitizeChange[];
  readonly inserted: readonly SanitizeChange[];
}

/**
 * The `metadata` key of a `tool_call_request` whose call is deliberately left open: its turn was
 * suspended at a prompt and resumes later (see `@jp/coordinator`'s durable questions). In the last
 * turn, such a call and its pending inquiry are not repaired; JP and older versions, which do not
 * know the key, repair them as an interrupted call.
 */
export const SUSPENDED_CALL_METADATA_KEY = "pending_prompt";

/** The content JP gives a tool call that never got its response. */
export const INTERRUPTED_TOOL_CALL_CONTENT = "Tool call was interrupted.";

/**
 * JP's seven repair steps, with JP's results, in one pass over the stream. Pairing of tool calls
 * and inquiries is scoped to each turn and counted, so a request orphaned in one turn is never
 * satisfied by a response with the same id in another (ids may repeat across turns). A sound
 * stream is returned as it is (the same array); otherwise the repaired events are laid out once.
 */
export function sanitizeEvents(input: StreamEvent[]): {
  events: StreamEvent[];
  report: SanitizeReport;
} {
  const scan = new Scan(input);
  scan.run();
  if (scan.marks === undefined && scan.missingTurnStart === undefined) {
    return { events: input, report: { changed: false, removed: [], inserted: [] } };
  }
  return repaired(input, scan);
}

// What the single pass decides for an entry: kept as it is, or why it goes (or, for an
// interrupted call, what follows it). Codes are grouped by the step that decides them, which is
// also the order of the report.
const KEEP = 0;
const INTERRUPTED = 1;
const DROPPED: Readonly<Record<number, SanitizeReason>> = {
  2: "before-first-chat-request",
  3: "orphaned-tool-call-response",
  4: "orphaned-inquiry-response",
  5: "orphaned-inquiry-request",
  6: "trailing-turn-start",
  7: "duplicate-turn-start",
};
const [BEFORE_FIRST, ORPHAN_RESULT, ORPHAN_ANSWER, ORPHAN_QUESTION, TRAILING, DUPLICATE] = [
  2, 3, 4, 5, 6, 7,
];
// The step of each code (steps 4 and 5 report in one list, in stream order, as one pass).
const STEP_OF = [0, 0, 0, 1, 2, 2, 3, 4];

// Open requests of one family in the current turn, by id: the index of the one open request, or
// the indexes in order when a legacy stream reuses an id. Emptied at every turn's end, so one
// table serves the whole stream.
type Open = Map<string, number | number[]>;

/** The single pass: marks what each step would change, without copying anything. */
class Scan {
  /** The code of each entry, allocated at the first change (a sound stream needs none). */
  marks: Uint8Array | undefined;
  /** Where step 7 inserts a `turn_start`: the index of the first chat request. */
  missingTurnStart: number | undefined;
  readonly #events: readonly StreamEvent[];
  readonly #firstChat: number;
  // The first index of the last turn: only there can a call be left open on purpose.
  readonly #lastTurn: number;
  // The ids of the last turn's suspended calls, each with the `.` an inquiry id puts after it.
  #suspendedIds: ReadonlySet<string> | undefined;
  #longestSuspendedId = 0;
  readonly #calls: Open = new Map();
  readonly #questions: Open = new Map();

  constructor(events: readonly StreamEvent[]) {
    this.#events = events;
    this.#firstChat = events.findIndex((e) => e.type === "chat_request");
    let lastTurn = 0;
    for (let i = events.length - 1; i >= 0; i--) {
      if ((events[i] as StreamEvent).type === "turn_start") {
        lastTurn = i + 1;
        break;
      }
    }
    this.#lastTurn = lastTurn;
  }

  run(): void {
    const events = this.#events;
    const firstChat = this.#firstChat;
    for (let i = 0; i < events.length; i++) {
      const event = events[i] as StreamEvent;
      const { type } = event;
      if (type === "turn_start") {
        this.#endTurn();
        continue;
      }
      // Step 1: conversation events before the first chat request have no turn to belong to.
      if ((firstChat === -1 || i < firstChat) && isConversationEvent(event)) {
        this.#mark(i, BEFORE_FIRST);
        continue;
      }
      // Steps 2 to 5, paired within the turn; config deltas and unknown entries pair with nothing.
      if (type === "tool_call_request") open(this.#calls, event, i);
      else if (type === "inquiry_request") open(this.#questions, event, i);
      else if (type === "tool_call_response") {
        if (!close(this.#calls, event)) this.#mark(i, ORPHAN_RESULT);
      } else if (type === "inquiry_response") {
        if (!close(this.#questions, event)) this.#mark(i, ORPHAN_ANSWER);
      }
    }
    this.#endTurn();
    this.#trailingTurnStart();
    this.#leadingTurnStart();
  }

  #mark(index: number, code: number): void {
    this.marks ??= new Uint8Array(this.#events.length);
    this.marks[index] = code;
  }

  // Steps 3 and 5 for the turn that ends: a call left without a response is completed (unless it
  // is the last turn's suspended call), a question left without an answer dropped (unless it is
  // the pending question of such a call).
  #endTurn(): void {
    if (this.#calls.size > 0) {
      for (const index of openIndexes(this.#calls)) {
        if (!this.#isSuspendedCall(index)) this.#mark(index, INTERRUPTED);
      }
      this.#calls.clear();
    }
    if (this.#questions.size > 0) {
      for (const index of openIndexes(this.#questions)) {
        if (!this.#isSuspendedQuestion(index)) this.#mark(index, ORPHAN_QUESTION);
      }
      this.#questions.clear();
    }
  }

  #isSuspendedCall(index: number): boolean {
    return index >= this.#lastTurn && isSuspendedCall(this.#events[index] as StreamEvent);
  }

  #isSuspendedQuestion(index: number): boolean {
    if (index < this.#lastTurn) return false;
    // Calls before the first chat request were dropped by step 1: they suspend nothing.
    if (this.#suspendedIds === undefined) {
      const ids = new Set<string>();
      const events = this.#events;
      for (let i = Math.max(this.#lastTurn, this.#firstChat); i < events.length; i++) {
        const event = events[i] as StreamEvent;
        if (!isSuspendedCall(event)) continue;
        const prefix = `${String((event as { id?: unknown }).id)}.`;
        ids.add(prefix);
        this.#longestSuspendedId = Math.max(this.#longestSuspendedId, prefix.length);
      }
      this.#suspendedIds = ids;
    }
    if (this.#suspendedIds.size === 0) return false;
    // An inquiry id is `<call id>.<question id>.<attempt>`, and a call id may hold dots itself:
    // each prefix ending at a dot is looked up, so the cost does not grow with the number of
    // suspended calls.
    const id = String((this.#events[index] as { id?: unknown }).id);
    const limit = Math.min(id.length, this.#longestSuspendedId);
    for (let dot = id.indexOf("."); dot !== -1 && dot < limit; dot = id.indexOf(".", dot + 1)) {
      if (this.#suspendedIds.has(id.slice(0, dot + 1))) return true;
    }
    return false;
  }

  // Step 6: a turn that started but recorded nothing is dropped. Earlier steps remove no
  // `turn_start`, and an inserted response follows its call, so the last conversation event
  // left can be read off the marks.
  #trailingTurnStart(): void {
    const events = this.#events;
    for (let i = events.length - 1; i >= 0; i--) {
      const event = events[i] as StreamEvent;
      if (!isConversationEvent(event)) continue;
      const code = this.marks?.[i] ?? KEEP;
      if (code !== KEEP && code !== INTERRUPTED) continue;
      if (event.type === "turn_start") this.#mark(i, TRAILING);
      return;
    }
  }

  // Step 7: exactly one turn_start before the first chat request. Consecutive turn_starts later
  // in the stream are left alone, as JP does.
  #leadingTurnStart(): void {
    const first = this.#firstChat;
    if (first === -1) return;
    let starts = 0;
    for (let i = 0; i < first; i++) {
      if ((this.#events[i] as StreamEvent).type === "turn_start" && starts++ > 0) {
        this.#mark(i, DUPLICATE);
      }
    }
    if (starts === 0) this.missingTurnStart = first;
  }
}

function open(table: Open, event: StreamEvent, index: number): void {
  const id = String((event as { id?: unknown }).id);
  const queue = table.get(id);
  if (queue === undefined) table.set(id, index);
  else if (typeof queue === "number") table.set(id, [queue, index]);
  else queue.push(index);
}

// Pairs a response with the earliest open request of its id; false if none is open.
function close(table: Open, event: StreamEvent): boolean {
  const id = String((event as { id?: unknown }).id);
  const queue = table.get(id);
  if (queue === undefined) return false;
  if (typeof queue === "number" || queue.length === 1) table.delete(id);
  else queue.shift();
  return true;
}

function* openIndexes(table: Open): Generator<number> {
  for (const queue of table.values()) {
    if (typeof queue === "number") yield queue;
    else yield* queue;
  }
}

function isSuspendedCall(event: StreamEvent): boolean {
  if (event.type !== "tool_call_request") return false;
  const metadata = (event as { metadata?: Record<string, unknown> }).metadata;
  return metadata !== undefined && Object.hasOwn(metadata, SUSPENDED_CALL_METADATA_KEY);
}

// The repaired stream, laid out once from the marks, and the report in the order of the steps.
function repaired(input: readonly StreamEvent[], scan: Scan) {
  const marks = scan.marks;
  const byStep: SanitizeChange[][] = [[], [], [], [], []];
  const inserted: SanitizeChange[] = [];
  const events: StreamEvent[] = [];
  let start: StreamEvent | undefined;
  for (let i = 0; i < input.length; i++) {
    const event = input[i] as StreamEvent;
    if (i === scan.missingTurnStart) {
      start = missingTurnStart(event);
      events.push(start);
    }
    const code = marks?.[i] ?? KEEP;
    if (code === KEEP) events.push(event);
    else if (code === INTERRUPTED) {
      const response = interruptedResponse(event as ToolCallRequest);
      inserted.push({ reason: "interrupted-tool-call", event: response });
      events.push(event, response);
    } else {
      byStep[STEP_OF[code] as number]?.push({ reason: DROPPED[code] as SanitizeReason, event });
    }
  }
  if (start !== undefined) inserted.push({ reason: "missing-turn-start", event: start });
  const removed = byStep.flat();
  return {
    events,
    report: { changed: removed.length + inserted.length > 0, removed, inserted },
  };
}

function interruptedResponse(request: ToolCallRequest): ToolCallResponse {
  return {
    timestamp: request.timestamp,
    type: "tool_call_response",
    id: request.id,
    content: INTERRUPTED_TOOL_CALL_CONTENT,
    is_error: true,
  };
}

function missingTurnStart(chat: StreamEvent): StreamEvent {
  return {
    timestamp: (chat as ConversationEvent).timestamp || EPOCH_TIMESTAMP,
    type: "turn_start",
  };
}
