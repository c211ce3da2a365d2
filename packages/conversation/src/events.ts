import { z } from "zod";
import { inquiryQuestionSchema, inquirySourceSchema } from "./inquiry.js";
import { keepUnknownKeys } from "./internal/keep-unknown-keys.js";
import { jsonObjectSchema, jsonValueSchema } from "./json.js";

// Every event shares the envelope `{timestamp, type, …fields, metadata?}`. Fields this version
// does not know are kept (see keepUnknownKeys), so a stream written by a newer version loads and
// saves without losing them.
const metadataSchema = jsonObjectSchema.optional();

function eventShape<const T extends string, S extends z.ZodRawShape>(type: T, shape: S) {
  return z.object({
    // Kept as the exact text: JP writes microseconds, which a `Date` would round away.
    timestamp: z.string(),
    type: z.literal(type),
    ...shape,
    metadata: metadataSchema,
  });
}

function eventSchema<const T extends string, S extends z.ZodRawShape>(type: T, shape: S) {
  return keepUnknownKeys(eventShape(type, shape));
}

/** Marks the start of a turn: `{"timestamp":…,"type":"turn_start"}`. */
export const turnStartSchema = eventSchema("turn_start", {});
/** A message from the user (or an interrupt reply within a turn). */
export const chatRequestSchema = eventSchema("chat_request", {
  content: z.string(),
  schema: jsonObjectSchema.optional(),
  author: z.string().optional(),
});
// JP's ChatResponse is an untagged enum: the field present says which variant it is.
const chatMessageSchema = eventSchema("chat_response", { message: z.string() });
const chatReasoningSchema = eventSchema("chat_response", { reasoning: z.string() });
const chatStructuredSchema = eventSchema("chat_response", { data: jsonValueSchema });
/** A reply from the assistant: a `message`, its `reasoning`, or structured `data`. */
export const chatResponseSchema = z.union([
  chatMessageSchema,
  chatReasoningSchema,
  chatStructuredSchema,
]);
/** The assistant asks to run a tool. */
export const toolCallRequestSchema = eventSchema("tool_call_request", {
  id: z.string(),
  name: z.string(),
  arguments: jsonObjectSchema.default({}),
});
/** The result of a tool call; `is_error` tells a failure from a success. */
export const toolCallResponseSchema = eventSchema("tool_call_response", {
  id: z.string(),
  content: z.string(),
  is_error: z.boolean().default(false),
});
/** A tool's question, recorded before anything decides who answers it. */
export const inquiryRequestSchema = eventSchema("inquiry_request", {
  id: z.string(),
  source: inquirySourceSchema,
  question: inquiryQuestionSchema,
});

/** An answered inquiry. */
export const inquiryAnsweredSchema = eventSchema("inquiry_response", {
  outcome: z.literal("answered"),
  id: z.string(),
  answer: jsonValueSchema,
});
/** An inquiry closed without an answer; `reason` is kept verbatim even when unknown. */
export const inquiryCancelledSchema = eventSchema("inquiry_response", {
  outcome: z.literal("cancelled"),
  id: z.string(),
  reason: z.string(),
});
/** An inquiry whose (secret) answer reached the tool but was deliberately not persisted. */
export const inquiryRedactedSchema = keepUnknownKeys(
  eventShape("inquiry_response", { outcome: z.literal("redacted"), id: z.string() }),
  ["answer"],
);
/** The end of an inquiry: answered, cancelled with a reason, or answered but not persisted. */
export const inquiryResponseSchema = z.union([
  inquiryAnsweredSchema,
  inquiryCancelledSchema,
  inquiryRedactedSchema,
]);

/** A configuration change recorded in the stream (JP's `config_delta`). */
export const configDeltaSchema = keepUnknownKeys(
  z.object({ timestamp: z.string(), type: z.literal("config_delta"), delta: jsonObjectSchema }),
);

/** `{"timestamp":…,"type":"turn_start"}` */
export type TurnStart = z.output<typeof turnStartSchema>;
/** `{"timestamp":…,"type":"chat_request","content":…}` */
export type ChatRequest = z.output<typeof chatRequestSchema>;
/** `{"timestamp":…,"type":"chat_response","message"|"reasoning"|"data":…}` */
export type ChatResponse = z.output<typeof chatResponseSchema>;
/** `{"timestamp":…,"type":"tool_call_request","id","name","arguments"}` */
export type ToolCallRequest = z.output<typeof toolCallRequestSchema>;
/** `{"timestamp":…,"type":"tool_call_response","id","content","is_error"}` */
export type ToolCallResponse = z.output<typeof toolCallResponseSchema>;
/** `{"timestamp":…,"type":"inquiry_request","id","source","question"}` */
export type InquiryRequest = z.output<typeof inquiryRequestSchema>;
/** `{"timestamp":…,"type":"inquiry_response","outcome":"answered"|"cancelled"|"redacted","id",…}` */
export type InquiryResponse = z.output<typeof inquiryResponseSchema>;
/** A configuration change recorded in the stream. */
export type ConfigDelta = z.output<typeof configDeltaSchema>;

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
