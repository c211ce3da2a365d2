import { isConversationEvent, type StreamEvent } from "../events.js";

/** A half-open range `[start, end)` of stream indexes. */
export interface Window {
  readonly start: number;
  readonly end: number;
}

/**
 * Splits a stream into turn windows. Every `turn_start` opens a turn; conversation events before
 * the first `turn_start` (streams written before JP recorded turns) form an implicit first turn.
 * Entries before that which are not conversation events (a leading config delta) belong to no
 * turn.
 */
export function turnWindows(events: readonly StreamEvent[]): Window[] {
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
