import type { ConversationStream, JsonObject, StreamEvent } from "@jp/conversation";
import { ANSWERED_BY_METADATA_KEY } from "./question-round.js";

/**
 * Which answers of a resumed turn's tool calls nobody gave, as the conversation records them: an
 * `inquiry_response` that the detached `defaults` policy answered carries
 * `metadata: {"answered_by": "default"}`. Read once, on first use, from the stream's last turn
 * (where every suspended call was asked its questions).
 */
export class RecordedDefaults {
  readonly #stream: ConversationStream;
  #byCall: Map<string, Set<string>> | undefined;

  constructor(stream: ConversationStream) {
    this.#stream = stream;
  }

  /** The question ids of tool call `callId` whose latest recorded answer nobody gave. */
  of(callId: string): ReadonlySet<string> | undefined {
    this.#byCall ??= answeredByDefaultInRecord(this.#stream);
    return this.#byCall.get(callId);
  }
}

/**
 * The question ids that each tool call of the stream's last turn had answered by the detached
 * `defaults` policy, by tool call id: those whose latest recorded answer under the call carries
 * `answered_by: "default"`. A sub-agent's question shown through the call (recorded with
 * `{"source": "other"}`) is not one of the call's own, whose answers its tool receives, and is
 * left out.
 */
export function answeredByDefaultInRecord(stream: ConversationStream): Map<string, Set<string>> {
  const { events } = stream;
  let start = events.length;
  while (start > 0 && (events[start - 1] as StreamEvent).type !== "turn_start") start--;
  // Whether each recorded question of the turn is a sub-agent's, by inquiry id.
  const fromSubAgent = new Map<string, boolean>();
  // The latest answer to each question of each call: whether nobody gave it.
  const latest = new Map<string, Map<string, boolean>>();
  for (let i = start; i < events.length; i++) {
    const event = events[i] as StreamEvent & { readonly id?: unknown; readonly outcome?: unknown };
    if (event.type === "inquiry_request") {
      const source = (event as { readonly source?: { readonly source?: unknown } }).source;
      fromSubAgent.set(String(event.id), source?.source === "other");
      continue;
    }
    if (event.type !== "inquiry_response") continue;
    if (event.outcome !== "answered" && event.outcome !== "redacted") continue;
    const id = String(event.id);
    if (fromSubAgent.get(id) !== false) continue;
    const parts = inquiryParts(id);
    if (parts === undefined) continue;
    const metadata = (event as { readonly metadata?: JsonObject }).metadata;
    const byDefault =
      metadata !== undefined &&
      Object.hasOwn(metadata, ANSWERED_BY_METADATA_KEY) &&
      metadata[ANSWERED_BY_METADATA_KEY] === "default";
    let questions = latest.get(parts.callId);
    if (questions === undefined) {
      questions = new Map();
      latest.set(parts.callId, questions);
    }
    questions.set(parts.questionId, byDefault);
  }
  const byCall = new Map<string, Set<string>>();
  for (const [callId, questions] of latest) {
    const ids = new Set<string>();
    for (const [questionId, byDefault] of questions) if (byDefault) ids.add(questionId);
    if (ids.size > 0) byCall.set(callId, ids);
  }
  return byCall;
}

// `<tool_call_id>.<question_id>.<attempt>`: a question id never holds a ".", a call id may.
function inquiryParts(id: string): { callId: string; questionId: string } | undefined {
  const last = id.lastIndexOf(".");
  const before = last > 0 ? id.lastIndexOf(".", last - 1) : -1;
  if (before < 0) return undefined;
  return { callId: id.slice(0, before), questionId: id.slice(before + 1, last) };
}
