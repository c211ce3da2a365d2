// The seven repair steps as separate passes, exactly as JP describes them: the model that
// `sanitize()`'s single pass is held to by the property test in sanitize.property.test.ts.
import {
  type ConversationEvent,
  EPOCH_TIMESTAMP,
  INTERRUPTED_TOOL_CALL_CONTENT,
  isConversationEvent,
  type SanitizeChange,
  type SanitizeReport,
  type StreamEvent,
  SUSPENDED_CALL_METADATA_KEY,
  type ToolCallRequest,
  type ToolCallResponse,
} from "../../src/index.js";

type Family = "tool_call" | "inquiry";

/** The repaired events and the report, step by step. */
export function sanitizeByStep(input: readonly StreamEvent[]): {
  events: StreamEvent[];
  report: SanitizeReport;
} {
  const removed: SanitizeChange[] = [];
  const inserted: SanitizeChange[] = [];
  let events = dropBeforeFirstChatRequest(input, removed);
  events = repairToolCalls(events, removed, inserted, suspendedCalls(events));
  events = dropOrphanedInquiries(events, removed, suspendedCalls(events));
  events = dropTrailingTurnStart(events, removed);
  events = normalizeLeadingTurnStart(events, removed, inserted);
  return {
    events,
    report: { changed: removed.length + inserted.length > 0, removed, inserted },
  };
}

// Step 1: conversation events before the first chat request have no turn to belong to.
function dropBeforeFirstChatRequest(events: readonly StreamEvent[], removed: SanitizeChange[]) {
  const first = events.findIndex((e) => e.type === "chat_request");
  const end = first === -1 ? events.length : first;
  return events.filter((event, i) => {
    const drop = i < end && isConversationEvent(event) && event.type !== "turn_start";
    if (drop) removed.push({ reason: "before-first-chat-request", event });
    return !drop;
  });
}

// Steps 2 and 3: drop tool responses without a request; give every unanswered tool call an
// error response right after it, so providers accept the history.
function repairToolCalls(
  events: readonly StreamEvent[],
  removed: SanitizeChange[],
  inserted: SanitizeChange[],
  suspended: Suspended,
): StreamEvent[] {
  const { requests, responses } = unpairedIn(events, "tool_call");
  const drop = new Set(responses);
  const interrupted = new Set(requests.filter((i) => !suspended.indexes.has(i)));
  const out: StreamEvent[] = [];
  events.forEach((event, i) => {
    if (drop.has(i)) {
      removed.push({ reason: "orphaned-tool-call-response", event });
      return;
    }
    out.push(event);
    if (interrupted.has(i)) {
      const request = event as ToolCallRequest;
      const response: ToolCallResponse = {
        timestamp: request.timestamp,
        type: "tool_call_response",
        id: request.id,
        content: INTERRUPTED_TOOL_CALL_CONTENT,
        is_error: true,
      };
      inserted.push({ reason: "interrupted-tool-call", event: response });
      out.push(response);
    }
  });
  return out;
}

// Steps 4 and 5: inquiry events are never sent to a provider, so an unpaired one is removed
// rather than completed.
function dropOrphanedInquiries(
  events: readonly StreamEvent[],
  removed: SanitizeChange[],
  suspended: Suspended,
) {
  const { requests, responses } = unpairedIn(events, "inquiry");
  const orphanResponses = new Set(responses);
  // A suspended call's pending question is the one open inquiry it may have.
  const orphanRequests = new Set(
    requests.filter((i) => i < suspended.from || !suspended.owns(events[i] as StreamEvent)),
  );
  return events.filter((event, i) => {
    if (orphanResponses.has(i)) removed.push({ reason: "orphaned-inquiry-response", event });
    else if (orphanRequests.has(i)) removed.push({ reason: "orphaned-inquiry-request", event });
    else return true;
    return false;
  });
}

// Step 6: a turn that started but recorded nothing is dropped.
function dropTrailingTurnStart(events: readonly StreamEvent[], removed: SanitizeChange[]) {
  let last = -1;
  for (let i = events.length - 1; i >= 0; i--) {
    if (isConversationEvent(events[i] as StreamEvent)) {
      last = i;
      break;
    }
  }
  if (last === -1 || events[last]?.type !== "turn_start") return [...events];
  removed.push({ reason: "trailing-turn-start", event: events[last] as StreamEvent });
  return events.filter((_, i) => i !== last);
}

// Step 7: exactly one turn_start before the first chat request. Consecutive turn_starts later
// in the stream are left alone, as JP does.
function normalizeLeadingTurnStart(
  events: readonly StreamEvent[],
  removed: SanitizeChange[],
  inserted: SanitizeChange[],
): StreamEvent[] {
  const first = events.findIndex((e) => e.type === "chat_request");
  if (first === -1) return [...events];
  const starts: number[] = [];
  for (let i = 0; i < first; i++) if (events[i]?.type === "turn_start") starts.push(i);
  if (starts.length === 1) return [...events];
  if (starts.length > 1) {
    const extra = new Set(starts.slice(1));
    return events.filter((event, i) => {
      if (extra.has(i)) removed.push({ reason: "duplicate-turn-start", event });
      return !extra.has(i);
    });
  }
  const chat = events[first] as ConversationEvent;
  const start = { timestamp: chat.timestamp || EPOCH_TIMESTAMP, type: "turn_start" } as const;
  inserted.push({ reason: "missing-turn-start", event: start });
  return [...events.slice(0, first), start, ...events.slice(first)];
}

/** The calls of the last turn left open on purpose, by index and id. */
interface Suspended {
  readonly from: number;
  readonly indexes: ReadonlySet<number>;
  readonly owns: (event: StreamEvent) => boolean;
}

function suspendedCalls(events: readonly StreamEvent[]): Suspended {
  const indexes = new Set<number>();
  const ids = new Set<string>();
  let from = events.length;
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i] as StreamEvent;
    if (event.type === "turn_start") break;
    from = i;
    if (event.type !== "tool_call_request") continue;
    const metadata = (event as { metadata?: Record<string, unknown> }).metadata;
    if (metadata !== undefined && Object.hasOwn(metadata, SUSPENDED_CALL_METADATA_KEY)) {
      indexes.add(i);
      ids.add(String(event.id));
    }
  }
  return {
    from,
    indexes,
    owns: (event) => {
      if (ids.size === 0) return false;
      const id = String((event as { id?: unknown }).id);
      for (const call of ids) if (id.startsWith(`${call}.`)) return true;
      return false;
    },
  };
}

function unpairedIn(events: readonly StreamEvent[], family: Family) {
  const requests: number[] = [];
  const responses: number[] = [];
  for (const window of turnWindows(events)) {
    const found = unpairedInWindow(events, window, family);
    requests.push(...found.requests);
    responses.push(...found.responses);
  }
  return { requests, responses };
}

function pairKey(
  event: StreamEvent,
): { family: Family; role: "request" | "response"; id: string } | undefined {
  switch (event.type) {
    case "tool_call_request":
      return { family: "tool_call", role: "request", id: String(event.id) };
    case "tool_call_response":
      return { family: "tool_call", role: "response", id: String(event.id) };
    case "inquiry_request":
      return { family: "inquiry", role: "request", id: String(event.id) };
    case "inquiry_response":
      return { family: "inquiry", role: "response", id: String(event.id) };
    default:
      return undefined;
  }
}

interface Window {
  readonly start: number;
  readonly end: number;
}

function turnWindows(events: readonly StreamEvent[]): Window[] {
  const windows: Window[] = [];
  let start = -1;
  for (let i = 0; i < events.length; i++) {
    const event = events[i] as StreamEvent;
    if (event.type === "turn_start") {
      if (start !== -1) windows.push({ start, end: i });
      start = i;
    } else if (start === -1 && isConversationEvent(event)) {
      start = i;
    }
  }
  if (start !== -1) windows.push({ start, end: events.length });
  return windows;
}

function unpairedInWindow(events: readonly StreamEvent[], window: Window, family: Family) {
  const open = new Map<string, number[]>();
  const responses: number[] = [];
  for (let i = window.start; i < window.end; i++) {
    const key = pairKey(events[i] as StreamEvent);
    if (key === undefined || key.family !== family) continue;
    const queue = open.get(key.id);
    if (key.role === "request") {
      if (queue === undefined) open.set(key.id, [i]);
      else queue.push(i);
    } else if (queue !== undefined && queue.length > 0) {
      queue.shift();
    } else {
      responses.push(i);
    }
  }
  const requests = [...open.values()].flat().sort((a, b) => a - b);
  return { requests, responses };
}
