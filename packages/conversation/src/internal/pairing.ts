import type { StreamEvent } from "../events.js";
import type { Window } from "./turns.js";

/** The two kinds of request/response pairs in a stream. */
export type Family = "tool_call" | "inquiry";

/** Which pair an event belongs to, if any. */
export function pairKey(
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

/** The stream indexes of one family's requests and responses left without a partner. */
export interface Unpaired {
  readonly requests: number[];
  readonly responses: number[];
}

/**
 * Pairs one family's requests and responses inside a turn window, by id and by count: each
 * response takes the earliest still-open request with its id that came before it. Legacy
 * streams reuse ids (`<call>.<question>` without an attempt), so ids alone cannot pair them;
 * order can.
 */
export function unpairedInWindow(
  events: readonly StreamEvent[],
  window: Window,
  family: Family,
): Unpaired {
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
