import type { z } from "zod";
import { inquirySchemas } from "./inquiry.js";
import { keepUnknownKeys } from "./internal/keep-unknown-keys.js";
import { lazy, zod } from "./internal/lazy.js";
import { jsonSchemas } from "./json.js";

// Every event shares the envelope `{timestamp, type, …fields, metadata?}`. Fields this version
// does not know are kept (see keepUnknownKeys), so a stream written by a newer version loads and
// saves without losing them. The schemas are built on first use (see internal/lazy.ts): events
// in canonical shape decode without them.

function eventShape<const T extends string, S extends z.ZodRawShape>(type: T, shape: S) {
  const z = zod();
  return z.object({
    // Kept as the exact text: JP writes microseconds, which a `Date` would round away.
    timestamp: z.string(),
    type: z.literal(type),
    ...shape,
    metadata: jsonSchemas().object.optional(),
  });
}

function eventSchema<const T extends string, S extends z.ZodRawShape>(type: T, shape: S) {
  return keepUnknownKeys(eventShape(type, shape));
}

function buildEventSchemas() {
  const z = zod();
  const json = jsonSchemas();
  const { source, question } = inquirySchemas();
  // JP's ChatResponse is an untagged enum: the field present says which variant it is.
  const chatMessage = eventSchema("chat_response", { message: z.string() });
  const chatReasoning = eventSchema("chat_response", { reasoning: z.string() });
  const chatStructured = eventSchema("chat_response", { data: json.value });
  const inquiryAnswered = eventSchema("inquiry_response", {
    outcome: z.literal("answered"),
    id: z.string(),
    answer: json.value,
  });
  // `reason` is kept verbatim even when unknown.
  const inquiryCancelled = eventSchema("inquiry_response", {
    outcome: z.literal("cancelled"),
    id: z.string(),
    reason: z.string(),
  });
  // A (secret) answer reached the tool but was deliberately not persisted.
  const inquiryRedacted = keepUnknownKeys(
    eventShape("inquiry_response", { outcome: z.literal("redacted"), id: z.string() }),
    ["answer"],
  );
  return {
    /** Marks the start of a turn: `{"timestamp":…,"type":"turn_start"}`. */
    turnStart: eventSchema("turn_start", {}),
    /** A message from the user (or an interrupt reply within a turn). */
    chatRequest: eventSchema("chat_request", {
      content: z.string(),
      schema: json.object.optional(),
      author: z.string().optional(),
    }),
    chatMessage,
    chatReasoning,
    chatStructured,
    /** A reply from the assistant: a `message`, its `reasoning`, or structured `data`. */
    chatResponse: z.union([chatMessage, chatReasoning, chatStructured]),
    /** The assistant asks to run a tool. */
    toolCallRequest: eventSchema("tool_call_request", {
      id: z.string(),
      name: z.string(),
      arguments: json.object.default({}),
    }),
    /** The result of a tool call; `is_error` tells a failure from a success. */
    toolCallResponse: eventSchema("tool_call_response", {
      id: z.string(),
      content: z.string(),
      is_error: z.boolean().default(false),
    }),
    /** A tool's question, recorded before anything decides who answers it. */
    inquiryRequest: eventSchema("inquiry_request", { id: z.string(), source, question }),
    inquiryAnswered,
    inquiryCancelled,
    inquiryRedacted,
    /** The end of an inquiry: answered, cancelled with a reason, or answered but not persisted. */
    inquiryResponse: z.union([inquiryAnswered, inquiryCancelled, inquiryRedacted]),
    /** A configuration change recorded in the stream (JP's `config_delta`). */
    configDelta: keepUnknownKeys(
      z.object({ timestamp: z.string(), type: z.literal("config_delta"), delta: json.object }),
    ),
  };
}

/** The zod schemas of the events, built (and zod loaded) on first use. */
export const eventSchemas = lazy(buildEventSchemas);
type Schemas = ReturnType<typeof buildEventSchemas>;

/** `{"timestamp":…,"type":"turn_start"}` */
export type TurnStart = z.output<Schemas["turnStart"]>;
/** `{"timestamp":…,"type":"chat_request","content":…}` */
export type ChatRequest = z.output<Schemas["chatRequest"]>;
/** `{"timestamp":…,"type":"chat_response","message"|"reasoning"|"data":…}` */
export type ChatResponse = z.output<Schemas["chatResponse"]>;
/** `{"timestamp":…,"type":"tool_call_request","id","name","arguments"}` */
export type ToolCallRequest = z.output<Schemas["toolCallRequest"]>;
/** `{"timestamp":…,"type":"tool_call_response","id","content","is_error"}` */
export type ToolCallResponse = z.output<Schemas["toolCallResponse"]>;
/** `{"timestamp":…,"type":"inquiry_request","id","source","question"}` */
export type InquiryRequest = z.output<Schemas["inquiryRequest"]>;
/** `{"timestamp":…,"type":"inquiry_response","outcome":"answered"|"cancelled"|"redacted","id",…}` */
export type InquiryResponse = z.output<Schemas["inquiryResponse"]>;
/** A configuration change recorded in the stream. */
export type ConfigDelta = z.output<Schemas["configDelta"]>;

/** The seven kinds of conversation event JP persists, tagged by `type`. */
export type ConversationEvent =
  | TurnStart
  | ChatRequest
  | ChatResponse
  | ToolCallRequest
  | ToolCallResponse
  | InquiryRequest
  | InquiryResponse;

/** An entry of a type this version does not know, kept verbatim so it is written back unchanged. */
export interface UnknownEvent {
  readonly type: string;
  readonly [field: string]: unknown;
}

/**
 * Anything `events.json` can hold: a conversation event, a config delta, or an entry of an
 * unknown type. Narrow with {@link isConversationEvent} before switching on `type`.
 */
export type StreamEvent = ConversationEvent | ConfigDelta | UnknownEvent;

/** The `type` tags of {@link ConversationEvent}. */
export const CONVERSATION_EVENT_TYPES = [
  "turn_start",
  "chat_request",
  "chat_response",
  "tool_call_request",
  "tool_call_response",
  "inquiry_request",
  "inquiry_response",
] as const;

/** The `type` tag of a conversation event. */
export type ConversationEventType = (typeof CONVERSATION_EVENT_TYPES)[number];

const conversationTypes: ReadonlySet<string> = new Set(CONVERSATION_EVENT_TYPES);

/** Whether `event` is one of the seven conversation events (not a config delta or unknown). */
export function isConversationEvent(event: StreamEvent): event is ConversationEvent {
  return conversationTypes.has(event.type);
}

/** Whether `event` is a config delta. */
export function isConfigDelta(event: StreamEvent): event is ConfigDelta {
  return event.type === "config_delta";
}

/** The conversation event of the given `type`. */
export type EventOfType<T extends ConversationEventType> = Extract<ConversationEvent, { type: T }>;

/** Whether `event` is a conversation event of the given `type`. */
export function isEventOfType<T extends ConversationEventType>(
  event: StreamEvent,
  type: T,
): event is EventOfType<T> {
  return event.type === type;
}
