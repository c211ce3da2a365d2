import { describe, expect, expectTypeOf, it } from "vitest";
import type {
  CancellationReason,
  ConversationEvent,
  ConversationEventType,
  EventOfType,
  InquiryResponse,
  InquirySource,
  StreamEvent,
} from "../src/index.js";

describe("the public barrel", () => {
  it("exports exactly these values (additions must be deliberate)", async () => {
    expect(Object.keys(await import("../src/index.js")).sort()).toEqual([
      "CONVERSATION_EVENT_TYPES",
      "ConversationStream",
      "EPOCH_TIMESTAMP",
      "FileConversationStore",
      "INTERRUPTED_TOOL_CALL_CONTENT",
      "KNOWN_CANCELLATION_REASONS",
      "MAX_EVENT_VALUE_DEPTH",
      "SUSPENDED_CALL_METADATA_KEY",
      "StreamAppendError",
      "baseConfigOf",
      "createEvent",
      "decodeEvent",
      "encodeEvent",
      "encodeEventText",
      "formatPath",
      "formatTimestamp",
      "inquiryResponseLine",
      "isConfigDelta",
      "isConversationEvent",
      "isConversationName",
      "isEventOfType",
      "isKnownCancellationReason",
      "loadConversation",
      "nestedTooDeeply",
      "saveConversation",
      "toMarkdown",
    ]);
  });

  it("exports the constants with their documented values", async () => {
    const api = await import("../src/index.js");
    expect(api.CONVERSATION_EVENT_TYPES).toEqual([
      "turn_start",
      "chat_request",
      "chat_response",
      "tool_call_request",
      "tool_call_response",
      "inquiry_request",
      "inquiry_response",
    ]);
    expect(api.KNOWN_CANCELLATION_REASONS).toEqual([
      "user",
      "backend_error",
      "no_prompt_backend",
      "assistant_routing_denied",
      "invalid_static_answer",
      "back",
      "reply",
      "end_turn",
      "invalid_answer",
      "turn_ended",
      "timeout",
      "interrupted",
    ]);
    expect(api.SUSPENDED_CALL_METADATA_KEY).toBe("pending_prompt");
    expect(api.INTERRUPTED_TOOL_CALL_CONTENT).toBe("Tool call was interrupted.");
    expect(api.EPOCH_TIMESTAMP).toBe("1970-01-01 00:00:00.0");
  });
});

describe("types", () => {
  type Answered = Extract<InquiryResponse, { outcome: "answered" }>;
  type Cancelled = Extract<InquiryResponse, { outcome: "cancelled" }>;
  type Redacted = Extract<InquiryResponse, { outcome: "redacted" }>;

  it("an InquiryResponse narrowed by outcome has an answer only when answered", () => {
    expectTypeOf<InquiryResponse["outcome"]>().toEqualTypeOf<
      "answered" | "cancelled" | "redacted"
    >();
    expectTypeOf<Answered>().toHaveProperty("answer");
    expectTypeOf<Cancelled>().not.toHaveProperty("answer");
    expectTypeOf<Redacted>().not.toHaveProperty("answer");
    expectTypeOf<Cancelled>().toHaveProperty("reason");
    expectTypeOf<Redacted>().not.toHaveProperty("reason");
    expectTypeOf<Cancelled["reason"]>().toEqualTypeOf<string>();
    expectTypeOf<"some_future_variant">().toExtend<CancellationReason>();
  });

  it("events use the wire field names and the seven type tags", () => {
    expectTypeOf<ConversationEvent["type"]>().toEqualTypeOf<ConversationEventType>();
    expectTypeOf<EventOfType<"tool_call_response">>()
      .toHaveProperty("is_error")
      .toEqualTypeOf<boolean>();
    expectTypeOf<EventOfType<"inquiry_request">["source"]>().toEqualTypeOf<InquirySource>();
    expectTypeOf<EventOfType<"tool_call_request">["arguments"]>().not.toBeUndefined();
    expectTypeOf<ConversationEvent>().toExtend<StreamEvent>();
  });

  it("an InquirySource has a name only for tool and other", () => {
    expectTypeOf<Extract<InquirySource, { source: "tool" }>>()
      .toHaveProperty("name")
      .toEqualTypeOf<string>();
    expectTypeOf<Extract<InquirySource, { source: "other" }>>().toHaveProperty("name");
    expectTypeOf<Extract<InquirySource, { source: "assistant" }>>().not.toHaveProperty("name");
    expectTypeOf<Extract<InquirySource, { source: "user" }>>().not.toHaveProperty("name");
  });
});
