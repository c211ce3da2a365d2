import type {
  ConversationEvent,
  ConversationStream,
  InquiryRequest,
  InquiryResponse,
} from "@jp/conversation";
import type { EventEmitter } from "eventemitter3";
import type { InquiryBackend } from "../backends/inquiry-backend.js";
import type { PromptBackend, PromptRequest, ReplyFor } from "../backends/prompt-backend.js";
import type { ToolsConfig } from "../config/schema.js";
import type { TurnState } from "../turn-state.js";
import type { CoordinatorEvents, PromptOutcome } from "./events.js";
import type { PromptQueue } from "./prompt-queue.js";

/** What every tool call of one `run` shares. */
export interface RunContext {
  readonly stream: ConversationStream;
  readonly tools: ToolsConfig;
  readonly prompts: PromptBackend | undefined;
  readonly inquiries: InquiryBackend | undefined;
  readonly humanReachable: boolean;
  readonly turn: TurnState;
  /** Aborts on the host's signal and when a human ends the turn. */
  readonly signal: AbortSignal;
  readonly endTurn: () => void;
  readonly queue: PromptQueue;
  readonly emitter: EventEmitter<CoordinatorEvents>;
}

/** Appends to a stream; a refused append is a bug in the coordinator, not bad input. */
export function appendOrThrow(stream: ConversationStream, event: ConversationEvent): void {
  const appended = stream.append(event);
  if (appended.isErr()) {
    throw new Error(`ToolCoordinator could not record a ${event.type}: ${appended.error.message}`);
  }
}

/** Records an event in the run's conversation and tells listeners about inquiry events. */
export function record(ctx: RunContext, event: ConversationEvent): void {
  appendOrThrow(ctx.stream, event);
  if (event.type === "inquiry_request" || event.type === "inquiry_response") {
    ctx.emitter.emit("inquiry-recorded", { event: event as InquiryRequest | InquiryResponse });
  }
}

/** The result of showing one prompt: the reply, or why there is none. */
export type PromptResult<R extends PromptRequest> =
  | { readonly type: "reply"; readonly reply: ReplyFor<R> }
  | { readonly type: "unneeded" }
  | { readonly type: "aborted" }
  | { readonly type: "failed"; readonly error: string };

/** Hooks of {@link showPrompt} that run inside the prompt's turn in the queue. */
export interface PromptHooks<R extends PromptRequest> {
  /** Asked when the prompt's turn comes: an earlier prompt may have settled it meanwhile. */
  readonly needed?: () => boolean;
  /** Runs before the next prompt may start, so what it remembers is seen by that prompt. */
  readonly onReply?: (reply: ReplyFor<R>) => void;
}

/**
 * Shows one prompt through the queue, one at a time, and reports what happened. A prompt that
 * is no longer `needed` when its turn comes is not shown.
 */
export async function showPrompt<R extends PromptRequest>(
  ctx: RunContext,
  request: R,
  hooks: PromptHooks<R> = {},
): Promise<PromptResult<R>> {
  const backend = ctx.prompts;
  if (backend === undefined) return { type: "failed", error: "no prompt backend is configured" };
  let result: PromptResult<R>;
  try {
    let shown = false;
    const reply = await ctx.queue.run(ctx.signal, async () => {
      if (hooks.needed?.() === false) return undefined;
      shown = true;
      ctx.emitter.emit("prompt-shown", { request });
      const answered = await backend.ask(request, { signal: ctx.signal });
      if (!ctx.signal.aborted) hooks.onReply?.(answered);
      return answered;
    });
    if (!shown && !ctx.signal.aborted) return { type: "unneeded" };
    result = reply === undefined ? { type: "aborted" } : { type: "reply", reply };
  } catch (cause) {
    result = ctx.signal.aborted ? { type: "aborted" } : { type: "failed", error: describe(cause) };
  }
  if (result.type === "reply" && ctx.signal.aborted) result = { type: "aborted" };
  ctx.emitter.emit("prompt-answered", { request, outcome: outcomeOf(result) });
  return result;
}

function outcomeOf(result: PromptResult<PromptRequest>): PromptOutcome {
  if (result.type === "aborted" || result.type === "unneeded") return "cancelled";
  if (result.type === "failed") return "failed";
  return result.reply.type;
}

/** An error's message, for texts shown to the model. */
export function describe(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
}
