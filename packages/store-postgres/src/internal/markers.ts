import { ConversationStream, type JsonObject, type StreamEvent } from "@jp/conversation";
import {
  listPendingPrompts,
  PENDING_METADATA_KEY,
  type PendingPrompt,
  type PromptRequest,
  type StoredReply,
} from "@jp/coordinator";

/** A suspended prompt found in a stream: what the inbox row of it holds. */
export interface FoundPrompt {
  /** The index of the `tool_call_request` holding the marker. */
  readonly seq: number;
  readonly view: PendingPrompt;
  readonly reply: StoredReply | undefined;
  readonly answeredAt: string | undefined;
}

/**
 * The suspended prompts of the stream's last turn, read as `listPendingPrompts` reads them (a
 * marker it cannot read is no prompt). Scans from the end to the last `turn_start`, so the cost
 * does not grow with the conversation.
 */
export function suspendedPrompts(events: readonly StreamEvent[], now: Date): FoundPrompt[] {
  const found: FoundPrompt[] = [];
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i] as StreamEvent;
    if (event.type === "turn_start") break;
    const prompt = promptOfEvent(event, now);
    if (prompt === undefined) continue;
    const marker = markerOf(event) as { reply?: StoredReply; answered_at?: string };
    found.push({ seq: i, view: prompt, reply: marker.reply, answeredAt: marker.answered_at });
  }
  return found.reverse();
}

/** The pending prompt held by one entry, as the coordinator reads it. */
export function promptOfEvent(event: StreamEvent, now: Date): PendingPrompt | undefined {
  if (event.type !== "tool_call_request" || markerOf(event) === undefined) return undefined;
  return listPendingPrompts(ConversationStream.from([event]), now)[0];
}

function markerOf(event: StreamEvent): JsonObject | undefined {
  const metadata = (event as { metadata?: JsonObject }).metadata;
  if (metadata === undefined || !Object.hasOwn(metadata, PENDING_METADATA_KEY)) return undefined;
  const marker = metadata[PENDING_METADATA_KEY];
  return typeof marker === "object" && marker !== null && !Array.isArray(marker)
    ? marker
    : undefined;
}

/** Whether a prompt asks for a secret, whose answer is never stored. */
export function isSecret(request: PromptRequest): boolean {
  return request.kind === "question" && request.question.answer_type.type === "secret";
}

/** The id a prompt is answered by: the inquiry id of a question, else `<tool_call_id>#<kind>`. */
export function promptIdOf(request: PromptRequest): string {
  return request.kind === "question"
    ? request.inquiry_id
    : `${request.tool_call_id}#${request.kind}`;
}
