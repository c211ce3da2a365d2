import { err, ok, type Result } from "neverthrow";
import type { z } from "zod";
import { type DecodeError, decodeError, type JsonPath } from "./errors.js";
import {
  type ConversationEventType,
  type EventOfType,
  eventSchemas,
  isConfigDelta,
  isConversationEvent,
  type StreamEvent,
} from "./events.js";
import { isCanonicalEvent } from "./internal/canonical.js";
import { chatResponseVariant } from "./internal/chat-response.js";
import { isPlainObject, setOwn } from "./json.js";
import { EPOCH_TIMESTAMP, formatTimestamp } from "./timestamp.js";

// The JSON each decoded event was read from. `encodeEvent` writes an event it decoded and that
// nobody replaced exactly as it was read ("write new, read both"): a legacy inquiry response
// stays legacy on disk until the conversation records a new one, and nothing is reformatted.
const decodedFrom = new WeakMap<object, object>();

type AnySchema = z.ZodType<unknown>;

// The schema of each event type, by its name among `eventSchemas()` (built on first use).
const SCHEMA_BY_TYPE: Readonly<Record<string, keyof ReturnType<typeof eventSchemas>>> = {
  turn_start: "turnStart",
  chat_request: "chatRequest",
  tool_call_request: "toolCallRequest",
  tool_call_response: "toolCallResponse",
  inquiry_request: "inquiryRequest",
  config_delta: "configDelta",
};

/**
 * Decodes one entry of `events.json`. Never throws: foreign input comes back as an `Err` whose
 * message names the path. Unknown event types are returned as they are, to be written back
 * unchanged; legacy shapes (flat inquiry responses, `cancelled` without a reason) are read into
 * the current shape.
 *
 * @example
 * const event = decodeEvent({ timestamp: "2026-03-05 22:13:24.147869", type: "inquiry_response",
 *   id: "call_1.apply_changes", answer: true });
 * // Ok({ …, outcome: "answered", id: "call_1.apply_changes", answer: true })
 */
export function decodeEvent(json: unknown, path: JsonPath = []): Result<StreamEvent, DecodeError> {
  if (!isPlainObject(json))
    return err(decodeError(path, `expected an event object, got ${kindOf(json)}`));
  const type = json.type;
  if (typeof type !== "string") {
    return err(
      decodeError([...path, "type"], `expected the event type as a string, got ${kindOf(type)}`),
    );
  }
  // Valid, canonical events (what this SDK and current JP write) are used as they are.
  if (isCanonicalEvent(json)) return ok(json as StreamEvent);
  return decodeWithSchemas(json, type, path);
}

/**
 * {@link decodeEvent} without the `Result`, for decoding whole streams: the event, or
 * `undefined` where `decodeEvent` gives an error (ask it for the message). Not public API.
 */
export function decodedOrUndefined(json: unknown): StreamEvent | undefined {
  if (!isPlainObject(json) || typeof json.type !== "string") return undefined;
  if (isCanonicalEvent(json)) return json as StreamEvent;
  const decoded = decodeWithSchemas(json, json.type);
  return decoded.isOk() ? decoded.value : undefined;
}

/**
 * The full decoder behind {@link decodeEvent}'s fast path: legacy shapes, defaults, unknown
 * fields and every error message. Exported for the test that holds the fast path to it.
 */
export function decodeWithSchemas(
  json: Record<string, unknown>,
  type: string,
  path: JsonPath = [],
): Result<StreamEvent, DecodeError> {
  const schema = schemaFor(type, json);
  if (schema === undefined) return ok(json as StreamEvent);
  const input =
    type === "inquiry_response"
      ? upgradeInquiryResponse(json, path)
      : type === "config_delta"
        ? ok(upgradeConfigDelta(json))
        : ok(json);
  if (input.isErr()) return err(input.error);
  const parsed = schema.safeParse(input.value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = [...path, ...(issue?.path ?? [])].filter(
      (s): s is string | number => typeof s !== "symbol",
    );
    return err(decodeError(where, `${type}: ${issue?.message ?? "invalid event"}`));
  }
  const event = parsed.data as StreamEvent;
  // A redacted response never carries an answer: one found on input is dropped for good.
  if (!(json.outcome === "redacted" && "answer" in json)) decodedFrom.set(event, json);
  return ok(event);
}

// Whether the keys are in JP's order with no empty `metadata`: a shallow check, because encoding
// (unlike decoding) does not need to validate the values.
function hasCanonicalLayout(event: object): boolean {
  const order = own(FIELD_ORDER, (event as { type: string }).type) ?? [];
  let position = 0;
  let known = 0;
  for (const key in event) {
    if (position === 0 ? key !== "timestamp" : position === 1 ? key !== "type" : false)
      return false;
    position++;
    if (position <= 2) continue;
    if (key === "metadata") {
      const metadata = (event as { metadata?: unknown }).metadata;
      return (
        isPlainObject(metadata) &&
        Object.keys(metadata).length > 0 &&
        position === Object.keys(event).length
      );
    }
    const at = order.indexOf(key);
    if (at === -1) known = order.length;
    else if (at < known) return false;
    else known = at;
  }
  return position >= 2;
}

/** Options of {@link encodeEvent}. */
export interface EncodeOptions {
  /** Write the canonical current shape even for an event decoded from an older one. */
  readonly canonical?: boolean;
}

/**
 * Encodes an event for `events.json`. An event that was decoded and not replaced is written as
 * it was read; any other event is written in the canonical shape: `timestamp`, `type`, its
 * fields, then `metadata` (left out when empty).
 */
export function encodeEvent(event: StreamEvent, options: EncodeOptions = {}): object {
  if (options.canonical !== true) {
    const source = decodedFrom.get(event);
    if (source !== undefined) return source;
  }
  // Entries of unknown types are opaque: always written exactly as they came.
  if (!isConversationEvent(event) && !isConfigDelta(event)) return event;
  // An event already laid out as JP writes it needs no rebuilding.
  if (hasCanonicalLayout(event)) return event;
  return inCanonicalOrder(event);
}

// The order JP's serde writes each kind's fields in (the response's `outcome` tag first).
const FIELD_ORDER: Readonly<Record<string, readonly string[]>> = {
  chat_request: ["content", "schema", "author"],
  chat_response: ["message", "reasoning", "data"],
  tool_call_request: ["id", "name", "arguments"],
  tool_call_response: ["id", "content", "is_error"],
  inquiry_request: ["id", "source", "question"],
  inquiry_response: ["outcome", "id", "answer", "reason"],
  config_delta: ["delta"],
};

// `timestamp`, `type`, the known fields in JP's order, unknown fields as they came, `metadata`
// last (left out when empty).
function inCanonicalOrder(event: object): Record<string, unknown> {
  const source = event as Record<string, unknown>;
  const out: Record<string, unknown> = { timestamp: source.timestamp, type: source.type };
  for (const key of own(FIELD_ORDER, String(source.type)) ?? []) {
    if (Object.hasOwn(source, key)) out[key] = source[key];
  }
  for (const key in source) {
    if (!Object.hasOwn(out, key) && key !== "metadata") setOwn(out, key, source[key]);
  }
  const { metadata } = source;
  if (isPlainObject(metadata) && Object.keys(metadata).length > 0) out.metadata = metadata;
  return out;
}

type Fields = Record<string, unknown>;

/**
 * The known fields of the events recorded for every turn, tool call and question, copied in
 * {@link FIELD_ORDER} with their names written out; the count of those copied. Copied by a name
 * read from the table, each field is read and written by a computed key, which on fields of
 * many shapes was about half the cost of making such an event. A test holds each to the table.
 */
const PLACE_FIELDS: Readonly<Record<string, (given: Fields, event: Fields) => number>> = {
  chat_request(given, event) {
    let placed = 0;
    if (Object.hasOwn(given, "content")) {
      event.content = given.content;
      placed++;
    }
    if (Object.hasOwn(given, "schema")) {
      event.schema = given.schema;
      placed++;
    }
    if (Object.hasOwn(given, "author")) {
      event.author = given.author;
      placed++;
    }
    return placed;
  },
  tool_call_request(given, event) {
    let placed = 0;
    if (Object.hasOwn(given, "id")) {
      event.id = given.id;
      placed++;
    }
    if (Object.hasOwn(given, "name")) {
      event.name = given.name;
      placed++;
    }
    if (Object.hasOwn(given, "arguments")) {
      event.arguments = given.arguments;
      placed++;
    }
    return placed;
  },
  tool_call_response(given, event) {
    let placed = 0;
    if (Object.hasOwn(given, "id")) {
      event.id = given.id;
      placed++;
    }
    if (Object.hasOwn(given, "content")) {
      event.content = given.content;
      placed++;
    }
    if (Object.hasOwn(given, "is_error")) {
      event.is_error = given.is_error;
      placed++;
    }
    return placed;
  },
  inquiry_request(given, event) {
    let placed = 0;
    if (Object.hasOwn(given, "id")) {
      event.id = given.id;
      placed++;
    }
    if (Object.hasOwn(given, "source")) {
      event.source = given.source;
      placed++;
    }
    if (Object.hasOwn(given, "question")) {
      event.question = given.question;
      placed++;
    }
    return placed;
  },
  inquiry_response(given, event) {
    let placed = 0;
    if (Object.hasOwn(given, "outcome")) {
      event.outcome = given.outcome;
      placed++;
    }
    if (Object.hasOwn(given, "id")) {
      event.id = given.id;
      placed++;
    }
    if (Object.hasOwn(given, "answer")) {
      event.answer = given.answer;
      placed++;
    }
    if (Object.hasOwn(given, "reason")) {
      event.reason = given.reason;
      placed++;
    }
    return placed;
  },
};
// Looked up by type for every event made; a `Map` keyed by the type's (interned) name.
const PLACE_BY_TYPE = new Map(Object.entries(PLACE_FIELDS));

/** The fields of a conversation event of type `T`, with an optional timestamp (default: now). */
export type EventFields<T extends ConversationEventType> =
  EventOfType<T> extends infer E
    ? E extends unknown
      ? { [K in keyof E as K extends "type" | "timestamp" ? never : K]: E[K] } & {
          timestamp?: string;
        }
      : never
    : never;

/**
 * Creates a new conversation event, stamped now unless a `timestamp` is given.
 *
 * @example
 * const answered = createEvent("inquiry_response", { outcome: "answered", id: "call_1.confirm.1", answer: true });
 */
export function createEvent<T extends ConversationEventType>(
  type: T,
  fields: EventFields<T>,
): EventOfType<T> {
  const given = fields as Record<string, unknown> & { timestamp?: string };
  // `inCanonicalOrder` over the fields and the type, without copying the fields first: events
  // are made for every question and answer recorded.
  const { timestamp } = given;
  const event: Record<string, unknown> = {
    timestamp: timestamp === undefined ? formatTimestamp() : timestamp,
    type,
  };
  // Own fields with a place: the known ones, and `timestamp` and `metadata`.
  let placed = timestamp !== undefined || Object.hasOwn(given, "timestamp") ? 1 : 0;
  const place = PLACE_BY_TYPE.get(type);
  if (place !== undefined) placed += place(given, event);
  else {
    for (const key of own(FIELD_ORDER, type) ?? []) {
      if (Object.hasOwn(given, key)) {
        event[key] = given[key];
        placed++;
      }
    }
  }
  const { metadata } = given;
  if (metadata !== undefined || Object.hasOwn(given, "metadata")) placed++;
  // Fields of no known place follow as given; the known ones (a handful) were copied above. The
  // fields are looked through only when there are more of them than were placed, counted without
  // making an array of their names: a `for…in` over objects of many shapes is the slowest step
  // of making an event. (An enumerable key inherited from a changed `Object.prototype` is
  // counted too, and only sends the event the slow way, which copies own fields alone.)
  let fieldCount = 0;
  for (const _ in given) fieldCount++;
  if (fieldCount > placed) {
    const order = own(FIELD_ORDER, type) ?? [];
    for (const key of Object.keys(given)) {
      if (key === "timestamp" || key === "type" || key === "metadata" || order.includes(key))
        continue;
      setOwn(event, key, given[key]);
    }
  }
  if (metadata !== undefined && isPlainObject(metadata) && Object.keys(metadata).length > 0)
    event.metadata = metadata;
  return event as unknown as EventOfType<T>;
}

function schemaFor(type: string, json: Record<string, unknown>): AnySchema | undefined {
  if (type === "chat_response") return chatResponseVariant(json);
  if (type === "inquiry_response") {
    if (json.outcome === "cancelled") return eventSchemas().inquiryCancelled;
    if (json.outcome === "redacted") return eventSchemas().inquiryRedacted;
    return eventSchemas().inquiryAnswered;
  }
  const name = own(SCHEMA_BY_TYPE, type);
  return name === undefined ? undefined : eventSchemas()[name];
}

// RFD 082's read rules: a legacy flat `{id, answer}` is `answered`; `cancelled` without a reason
// is `user`; no outcome and no answer, or an outcome this version does not know, is an error.
function upgradeInquiryResponse(
  json: Record<string, unknown>,
  path: JsonPath,
): Result<Record<string, unknown>, DecodeError> {
  const { outcome } = json;
  if (outcome === undefined) {
    if (!("answer" in json)) {
      return err(
        decodeError(
          path,
          "inquiry_response: no `outcome` and no `answer`: not an inquiry response",
        ),
      );
    }
    const { timestamp, type, ...rest } = json;
    return ok({ timestamp, type, outcome: "answered", ...rest });
  }
  if (outcome === "cancelled" && typeof json.reason !== "string") {
    // Missing (or null) reads as `user`, RFD 082's conservative default; any other non-string
    // lands on JP's opaque "unspecified". The original is still what gets written back.
    const reason = json.reason === undefined || json.reason === null ? "user" : "unspecified";
    return ok({ ...json, reason });
  }
  if (outcome === "answered" || outcome === "cancelled" || outcome === "redacted") return ok(json);
  return err(
    decodeError(
      [...path, "outcome"],
      `inquiry_response: unknown outcome ${typeof outcome === "string" ? JSON.stringify(outcome) : kindOf(outcome)}; expected "answered", "cancelled" or "redacted"`,
    ),
  );
}

// JP has written three shapes of config_delta: `{type, timestamp, delta: {…}}` (current), and,
// before that, the configuration's fields inline on the event, with a timestamp or (in the first
// event-stream version) without one. The inline shapes read as the current one; the event is
// still written back exactly as it was read.
function upgradeConfigDelta(json: Record<string, unknown>): Record<string, unknown> {
  if (Object.hasOwn(json, "delta")) return json;
  const delta: Record<string, unknown> = {};
  for (const key in json) if (key !== "type" && key !== "timestamp") setOwn(delta, key, json[key]);
  const timestamp = Object.hasOwn(json, "timestamp") ? json.timestamp : EPOCH_TIMESTAMP;
  return { timestamp, type: json.type, delta };
}

// Event types are foreign text: "toString" or "__proto__" must not find Object.prototype's.
function own<T>(table: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}

/** A short name of a value's JSON kind for error messages. */
export function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (value === undefined) return "nothing";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}
