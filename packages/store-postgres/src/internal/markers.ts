import type { ConversationStream, JsonObject, StreamEvent } from "@jp/conversation";
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
 * The suspended prompts of the stream's last turn, exactly those `listPendingPrompts` lists, each
 * with the index of the `tool_call_request` holding it (the last one of its call in the turn,
 * scanning from the end to the last `turn_start`, so the cost does not grow with the length).
 */
export function suspendedPrompts(stream: ConversationStream, now: Date): FoundPrompt[] {
  const pending = listPendingPrompts(stream, now);
  if (pending.length === 0) return [];
  const { events } = stream;
  const wanted = new Map(pending.map((p) => [p.prompt_id, p]));
  const found: FoundPrompt[] = [];
  for (let i = events.length - 1; i >= 0 && wanted.size > 0; i--) {
    const event = events[i] as StreamEvent;
    if (event.type === "turn_start") break;
    if (event.type !== "tool_call_request") continue;
    const marker = markerOf(event) as
      | { prompt_id?: unknown; reply?: StoredReply; answered_at?: string }
      | undefined;
    const view = typeof marker?.prompt_id === "string" ? wanted.get(marker.prompt_id) : undefined;
    if (marker === undefined || view === undefined) continue;
    if (view.tool_call_id !== (event as { id?: unknown }).id) continue;
    wanted.delete(view.prompt_id);
    found.push({ seq: i, view, reply: marker.reply, answeredAt: marker.answered_at });
  }
  return found.reverse();
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

/**
 * The id a prompt is answered by: the inquiry id of a question; for a permission or delivery
 * prompt the id it carries (a sub-agent's prompt escalated through its hosting call), else
 * `<tool_call_id>#<kind>`. The same rule as the coordinator's.
 */
export function promptIdOf(request: PromptRequest): string {
  if (request.kind === "question") return request.inquiry_id;
  return request.prompt_id ?? `${request.tool_call_id}#${request.kind}`;
}
