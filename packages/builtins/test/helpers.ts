import {
  ConversationStream,
  type InquiryRequest,
  type InquiryResponse,
  type StreamEvent,
} from "@jp/conversation";
import {
  builtinExecutorSource,
  type InquiryBackend,
  layerToolsConfigs,
  type PromptBackend,
  ToolCoordinator,
  type ToolsConfig,
  TurnState,
} from "@jp/coordinator";
import { expect } from "vitest";
import { askUser, builtinToolConfigs } from "../src/index.js";

/** What a host injects into the coordinator for one ask_user run. */
export interface RunOptions {
  prompts?: PromptBackend;
  inquiries?: InquiryBackend;
  tools?: ToolsConfig;
  nonInteractive?: boolean;
}

/** Runs one ask_user call through a real coordinator and returns what a host would see. */
export async function runAskUser(args: Record<string, unknown>, options: RunOptions = {}) {
  const stream = ConversationStream.empty();
  stream.startTurn("Help me migrate.");
  const coordinator = new ToolCoordinator({
    stream,
    tools: layerToolsConfigs(builtinToolConfigs(), options.tools ?? {}),
    executors: builtinExecutorSource({ ask_user: askUser }),
    ...(options.prompts === undefined ? {} : { prompts: options.prompts }),
    ...(options.inquiries === undefined ? {} : { inquiries: options.inquiries }),
    ...(options.nonInteractive === undefined ? {} : { nonInteractive: options.nonInteractive }),
  });
  const result = await coordinator.run(
    [{ id: "call_1", name: "ask_user", arguments: args as never }],
    { turn: new TurnState() },
  );
  const response = result.responses[0];
  if (response === undefined) throw new Error("no response");
  return { stream, result, response, trail: trail(stream.events) };
}

/** The recorded inquiry pairs as `[id, outcome]` rows. */
export function trail(events: readonly StreamEvent[]): string[][] {
  return events.flatMap((event) => {
    if (event.type === "inquiry_request") return [["request", String(event.id)]];
    if (event.type !== "inquiry_response") return [];
    const e = event as InquiryResponse;
    const detail =
      e.outcome === "answered"
        ? JSON.stringify(e.answer)
        : e.outcome === "cancelled"
          ? e.reason
          : "";
    return [[e.outcome, e.id, detail]];
  });
}

/** The recorded `inquiry_request` events, in order. */
export function inquiryRequests(events: readonly StreamEvent[]): InquiryRequest[] {
  return events.filter((e): e is InquiryRequest => e.type === "inquiry_request");
}

/** The recorded `inquiry_response` events, in order. */
export function inquiryResponses(events: readonly StreamEvent[]): InquiryResponse[] {
  return events.filter((e): e is InquiryResponse => e.type === "inquiry_response");
}

/**
 * The stream invariants a reader of the conversation relies on: every inquiry request is closed
 * by exactly one response with its id, every ask_user question is recorded as the assistant's own,
 * and every tool call has exactly one response.
 */
export function expectWellFormed(events: readonly StreamEvent[]): void {
  const requests = inquiryRequests(events);
  const responses = inquiryResponses(events);
  for (const request of requests) {
    expect(request.source).toEqual({ source: "assistant" });
    expect(responses.filter((r) => r.id === request.id)).toHaveLength(1);
  }
  expect(responses.map((r) => r.id).sort()).toEqual(requests.map((r) => r.id).sort());
  const ids = (type: string) =>
    events.filter((e) => e.type === type).map((e) => String((e as { id?: unknown }).id));
  expect(ids("tool_call_response")).toEqual(ids("tool_call_request"));
}
