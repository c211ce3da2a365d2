import type { ToolCall } from "../backends/executor.js";
import type { ResolvedToolConfig } from "../config/schema.js";
import {
  DELIVERY_SKIPPED_BY_CONFIGURATION,
  DELIVERY_SKIPPED_BY_USER,
  deliveryDeniedMessage,
} from "../routing/messages.js";
import { type RunContext, showPrompt } from "./context.js";

/** A tool call's result as it goes back to the assistant. */
export interface CallResult {
  readonly content: string;
  readonly is_error: boolean;
}

const RESULT_EDIT_CANCELLED = "Result edit cancelled.";

/**
 * The `result` mode: `unattended` delivers, `skip` withholds, `ask`/`edit` use the detached
 * `deliver` policy when no human is reachable, or a delivery prompt.
 */
export async function deliverResult(
  ctx: RunContext,
  call: ToolCall,
  config: ResolvedToolConfig,
  result: CallResult,
): Promise<CallResult> {
  const mode = config.result;
  if (mode === "unattended") return result;
  if (mode === "skip") return { content: DELIVERY_SKIPPED_BY_CONFIGURATION, is_error: false };
  if (!ctx.humanReachable) {
    // The delivery prompt's default is "deliver", so `defaults` delivers as `auto` does.
    return config.detached.deliver === "deny"
      ? { content: deliveryDeniedMessage(call.name), is_error: true }
      : result;
  }
  const shown = await showPrompt(ctx, {
    kind: "deliver",
    tool_name: call.name,
    tool_call_id: call.id,
    content: result.content,
    is_error: result.is_error,
    mode,
  });
  if (shown.type === "failed") {
    return mode === "edit" ? { content: RESULT_EDIT_CANCELLED, is_error: false } : skipped();
  }
  if (shown.type === "aborted" || shown.type === "unneeded")
    return mode === "edit" ? result : skipped();
  const { reply } = shown;
  switch (reply.type) {
    case "deliver":
      return result;
    case "edit":
      // An emptied edit keeps the original, as JP does.
      return reply.content.trim() === "" ? result : { content: reply.content, is_error: false };
    case "skip":
      return skipped();
    default:
      return mode === "edit" ? result : skipped();
  }
}

function skipped(): CallResult {
  return { content: DELIVERY_SKIPPED_BY_USER, is_error: false };
}
