import { ConversationStream, type InquiryResponse, type StreamEvent } from "@jp/conversation";
import type { ToolsConfig } from "../src/config/schema.js";
import { ToolCoordinator, type ToolCoordinatorOptions } from "../src/index.js";

/** A stream with one started turn, as a host has it when the assistant calls tools. */
export function turnStream(): ConversationStream {
  const stream = ConversationStream.empty();
  stream.startTurn("Please do the thing.");
  return stream;
}

/** One inquiry event, reduced to what the assertions compare. */
export type TrailEntry =
  | { request: string; source: unknown }
  | { response: string; answered: unknown }
  | { response: string; cancelled: string }
  | { response: string; redacted: true };

/** The inquiry events of a stream, reduced to what the assertions compare. */
export function inquiryTrail(events: readonly StreamEvent[]): TrailEntry[] {
  return events.flatMap((event): TrailEntry[] => {
    if (event.type === "inquiry_request") {
      const e = event as Extract<StreamEvent, { type: "inquiry_request" }>;
      return [{ request: e.id, source: e.source }];
    }
    if (event.type === "inquiry_response") {
      const e = event as InquiryResponse;
      if (e.outcome === "answered") return [{ response: e.id, answered: e.answer }];
      if (e.outcome === "cancelled") return [{ response: e.id, cancelled: e.reason }];
      return [{ response: e.id, redacted: true }];
    }
    return [];
  });
}

/** A coordinator over a fresh turn with the given tools config and backends. */
export function coordinatorFor(
  options: Omit<ToolCoordinatorOptions, "stream" | "tools"> & { tools?: ToolsConfig },
) {
  const stream = turnStream();
  const coordinator = new ToolCoordinator({ tools: {}, ...options, stream });
  return { stream, coordinator };
}
