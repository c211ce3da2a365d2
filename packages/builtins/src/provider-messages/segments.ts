import type { StreamEvent, ToolCallRequest, ToolCallResponse } from "@jp/conversation";
import { OpenToolCallError } from "./open-tool-call-error.js";

// The provider-visible part of a stream, in the order every provider accepts: the assistant's
// text and tool calls, then the results of those calls in the order of the calls (the stream
// holds them in the order the calls finished), then what the user said next.

/** One piece of a provider conversation, before it is put in a provider's shape. */
export type Segment =
  | { readonly kind: "user-text"; readonly text: string }
  | { readonly kind: "assistant-text"; readonly text: string }
  | { readonly kind: "call"; readonly call: ToolCallRequest }
  | {
      readonly kind: "result";
      readonly call: ToolCallRequest;
      readonly response: ToolCallResponse;
    };

/** Options shared by the `to…` mappings. */
export interface ProviderMessagesOptions {
  /**
   * What to do with a tool call that has no response yet (a turn suspended at a question, or
   * cut short): `"error"` (default) throws {@link OpenToolCallError}, since no provider accepts
   * a call without its result; `"skip"` leaves such calls out.
   */
  readonly openCalls?: "error" | "skip";
}

/** The stream's provider-visible events as segments, turn by turn. */
export function providerSegments(
  events: readonly StreamEvent[],
  options: ProviderMessagesOptions = {},
): Segment[] {
  const segments: Segment[] = [];
  let start = 0;
  for (let i = 1; i <= events.length; i++) {
    if (i === events.length || (events[i] as StreamEvent).type === "turn_start") {
      turnSegments(events.slice(start, i), options, segments);
      start = i;
    }
  }
  return segments;
}

function turnSegments(
  events: readonly StreamEvent[],
  options: ProviderMessagesOptions,
  out: Segment[],
): void {
  const responses = pairResponses(events);
  let batch: ToolCallRequest[] = [];
  let answered = false;
  const flush = () => {
    for (const call of batch) {
      const response = responses.get(call);
      if (response !== undefined) out.push({ kind: "result", call, response });
    }
    batch = [];
    answered = false;
  };
  for (const event of events) {
    switch (event.type) {
      case "chat_request":
        flush();
        pushText(out, "user-text", (event as { content?: unknown }).content);
        break;
      case "chat_response":
        if (answered) flush();
        pushText(out, "assistant-text", assistantText(event));
        break;
      case "tool_call_request": {
        if (answered) flush();
        const call = event as ToolCallRequest;
        if (!responses.has(call)) {
          if (options.openCalls === "skip") break;
          throw new OpenToolCallError(call.id, call.name);
        }
        batch.push(call);
        out.push({ kind: "call", call });
        break;
      }
      case "tool_call_response":
        if (batch.some((call) => responses.get(call) === event)) answered = true;
        break;
      default:
        // Inquiries, turn starts, config deltas and unknown entries are not for the provider.
        break;
    }
  }
  flush();
}

// Each response closes the earliest open request with its id before it; a response with none
// (only in a damaged stream) is left out.
function pairResponses(events: readonly StreamEvent[]): Map<ToolCallRequest, ToolCallResponse> {
  const open = new Map<string, ToolCallRequest[]>();
  const paired = new Map<ToolCallRequest, ToolCallResponse>();
  for (const event of events) {
    if (event.type === "tool_call_request") {
      const call = event as ToolCallRequest;
      const waiting = open.get(call.id);
      if (waiting === undefined) open.set(call.id, [call]);
      else waiting.push(call);
    } else if (event.type === "tool_call_response") {
      const response = event as ToolCallResponse;
      const call = open.get(response.id)?.shift();
      if (call !== undefined) paired.set(call, response);
    }
  }
  return paired;
}

// A message as it is; structured data as its JSON text; reasoning is not sent back (Anthropic
// needs its signature and OpenAI its item id, which JP does not record).
function assistantText(event: StreamEvent): string | undefined {
  if ("message" in event && typeof event.message === "string") return event.message;
  if ("data" in event && event.data !== undefined) return JSON.stringify(event.data);
  return undefined;
}

// Empty text is left out: Anthropic refuses empty text blocks.
function pushText(out: Segment[], kind: "user-text" | "assistant-text", text: unknown): void {
  if (typeof text === "string" && text !== "") out.push({ kind, text });
}
