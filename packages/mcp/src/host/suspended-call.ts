import type { ConversationStream, JsonObject, JsonValue } from "@jp/conversation";
import { DECISION_META_KEY } from "../decision.js";
import { isPlainObject } from "../internal/json.js";
import type { ElicitResponse } from "./elicitation.js";

/**
 * The `metadata` key of a `tool_call_request` under which this package keeps what an MCP tool
 * call left pending at a question needs to go on in another process: who answered at a prompt
 * and, on 2026-07-28, the input-required round it waits in. Written when the call suspends,
 * removed when it goes on, so a resumed call ends as a live one would have written it.
 */
export const MCP_CALL_METADATA_KEY = "jp.mcp/call";

/** The input-required round a 2026-07-28 call was waiting in, as the server sent it. */
export interface SuspendedRound {
  /** `tools/call` requests the call had sent: the round limit holds across a restart. */
  readonly legs: number;
  /** The question ids the call had taken before this round, so the round keeps its ids. */
  readonly ids: readonly string[];
  /** The round's `inputRequests`, unchanged. */
  readonly input_requests: JsonObject;
  /** The server's `requestState`, echoed byte for byte on the retry. */
  readonly request_state?: string;
  /**
   * The responses the round already had, by request key (a form the person finished, or a page
   * they opened, before the turn suspended at the next one): the round is sent with them, when
   * the call goes on or is closed while suspended, so the server hears the person's answers
   * rather than the host's cancel, and a page opened then is not opened again.
   */
  readonly responses?: Readonly<Record<string, ElicitResponse>>;
}

/** What this package records on a suspended MCP tool call (see {@link MCP_CALL_METADATA_KEY}). */
export interface SuspendedMcpCall {
  readonly v: 1;
  /** The name the host gave the server, and the server's name of the tool. */
  readonly server: string;
  readonly tool: string;
  /** Question ids a person answered at a prompt, so the server hears who decided. */
  readonly prompted: readonly string[];
  /**
   * What each opening question of the call asked (`url <origin>`, `form [<field names>]`), by
   * id: a recorded consent answers only the same question when the tool runs again.
   */
  readonly gates?: Readonly<Record<string, string>>;
  /** Question ids whose answers are used up (rounds of pages sent again): asked anew. */
  readonly spent?: readonly string[];
  /** Rounds of pages the call has had (2025-11-25 `-32042`): the limit holds across restarts. */
  readonly page_rounds?: number;
  /**
   * The arguments the call ran with (the person may have edited the model's at the permission
   * prompt): a round closed while the call is suspended is sent once more with these.
   */
  readonly arguments?: JsonObject;
  readonly round?: SuspendedRound;
}

/** The index of call `callId`'s request in the stream's last turn, where a suspended call is. */
function requestIndex(stream: ConversationStream, callId: string): number | undefined {
  const { events } = stream;
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i] as { type: string; id?: unknown };
    if (event.type === "tool_call_request" && event.id === callId) return i;
    if (event.type === "turn_start") return undefined;
  }
  return undefined;
}

/** Records `record` on call `callId`'s request; `undefined` removes it. */
export function writeSuspendedCall(
  stream: ConversationStream,
  callId: string,
  record: SuspendedMcpCall | undefined,
): void {
  const index = requestIndex(stream, callId);
  if (index === undefined) return;
  const metadata = (stream.events[index] as { metadata?: JsonObject }).metadata;
  if (
    record === undefined &&
    (metadata === undefined || !Object.hasOwn(metadata, MCP_CALL_METADATA_KEY))
  )
    return;
  // Writing a request's metadata cannot fail for an index the stream just gave.
  stream.setMetadata(
    index,
    MCP_CALL_METADATA_KEY,
    record === undefined ? undefined : (JSON.parse(JSON.stringify(record)) as JsonValue),
  );
}

/**
 * The record on call `callId`'s request, when it is one this version reads and it names this
 * server and tool. Never throws: a damaged or foreign record reads as none, and the call then
 * starts again from the beginning, answered from the recorded answers.
 */
export function readSuspendedCall(
  stream: ConversationStream,
  callId: string,
  expected: { readonly server: string; readonly tool: string },
): SuspendedMcpCall | undefined {
  const index = requestIndex(stream, callId);
  if (index === undefined) return undefined;
  const metadata = (stream.events[index] as { metadata?: JsonObject }).metadata;
  const value = metadata?.[MCP_CALL_METADATA_KEY];
  if (!isPlainObject(value) || value.v !== 1) return undefined;
  if (value.server !== expected.server || value.tool !== expected.tool) return undefined;
  if (!isStringList(value.prompted)) return undefined;
  const { gates, spent, page_rounds: pageRounds, arguments: args } = value;
  if (args !== undefined && !isPlainObject(args)) return undefined;
  if (gates !== undefined && !isStringRecord(gates)) return undefined;
  if (spent !== undefined && !isStringList(spent)) return undefined;
  if (pageRounds !== undefined && !(Number.isInteger(pageRounds) && (pageRounds as number) >= 0)) {
    return undefined;
  }
  const round = value.round === undefined ? undefined : readRound(value.round);
  if (round === null) return undefined;
  return {
    v: 1,
    server: expected.server,
    tool: expected.tool,
    prompted: value.prompted,
    ...(gates === undefined ? {} : { gates }),
    ...(spent === undefined ? {} : { spent }),
    ...(pageRounds === undefined ? {} : { page_rounds: pageRounds as number }),
    ...(args === undefined ? {} : { arguments: args }),
    ...(round === undefined ? {} : { round }),
  };
}

function readRound(value: unknown): SuspendedRound | null {
  if (!isPlainObject(value)) return null;
  const { legs, ids, input_requests: requests, request_state: state } = value;
  if (typeof legs !== "number" || !Number.isInteger(legs) || legs < 1) return null;
  if (!isStringList(ids) || !isPlainObject(requests)) return null;
  if (state !== undefined && typeof state !== "string") return null;
  // Responses that do not read as responses are left out: the round is closed with the host's
  // cancel for those requests, as before they were kept.
  const responses = readResponses(value.responses);
  return {
    legs,
    ids,
    input_requests: requests,
    ...(state === undefined ? {} : { request_state: state }),
    ...(responses === undefined ? {} : { responses }),
  };
}

const ACTIONS: readonly unknown[] = ["accept", "decline", "cancel"];

// The responses of a record, or `undefined` when any of them does not read as one this package
// writes: an action, content only with `accept` and only of form values (a string, number,
// boolean, or list of strings), and in `_meta` only who decided. Each is copied field by field,
// so nothing else a record holds reaches the server as the person's answer.
function readResponses(value: unknown): Record<string, ElicitResponse> | undefined {
  if (!isPlainObject(value)) return undefined;
  const responses: Record<string, ElicitResponse> = {};
  for (const [key, response] of Object.entries(value)) {
    const read = readResponse(response);
    if (read === undefined) return undefined;
    // defineProperty: a request key "__proto__" stays a key.
    Object.defineProperty(responses, key, {
      value: read,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return responses;
}

function readResponse(value: unknown): ElicitResponse | undefined {
  if (!isPlainObject(value) || !ACTIONS.includes(value.action)) return undefined;
  const action = value.action as ElicitResponse["action"];
  const { content, _meta: meta } = value;
  if (content !== undefined && (action !== "accept" || !isFormContent(content))) return undefined;
  const decision = isPlainObject(meta) ? meta[DECISION_META_KEY] : undefined;
  if (meta !== undefined && !isDecision(decision)) return undefined;
  return {
    action,
    ...(content === undefined ? {} : { content }),
    ...(isDecision(decision) ? { _meta: { [DECISION_META_KEY]: decision } } : {}),
  };
}

function isFormContent(value: unknown): value is JsonObject {
  return (
    isPlainObject(value) &&
    Object.values(value).every(
      (item) =>
        typeof item === "string" ||
        typeof item === "boolean" ||
        (typeof item === "number" && Number.isFinite(item)) ||
        isStringList(item),
    )
  );
}

function isDecision(value: unknown): value is JsonObject {
  if (!isPlainObject(value) || (value.by !== "person" && value.by !== "host")) return false;
  const keys = Object.keys(value);
  return keys.every(
    (key) => key === "by" || (key === "reason" && typeof value.reason === "string"),
  );
}

function isStringRecord(value: unknown): value is Record<string, string> {
  return isPlainObject(value) && Object.values(value).every((item) => typeof item === "string");
}

function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}

/**
 * The request of call `callId` in the stream's last turn and this server's record on it, when
 * there is one: for a call the coordinator closes while it is suspended, before any of its tools
 * ran again. Never throws.
 */
export function suspendedRequest(
  stream: ConversationStream,
  callId: string,
  server: string,
): { readonly name: string; readonly record: SuspendedMcpCall } | undefined {
  const index = requestIndex(stream, callId);
  if (index === undefined) return undefined;
  const event = stream.events[index] as { name?: unknown; metadata?: JsonObject };
  const value = event.metadata?.[MCP_CALL_METADATA_KEY];
  if (!isPlainObject(value) || typeof value.tool !== "string") return undefined;
  if (typeof event.name !== "string") return undefined;
  const record = readSuspendedCall(stream, callId, { server, tool: value.tool });
  return record === undefined ? undefined : { name: event.name, record };
}
