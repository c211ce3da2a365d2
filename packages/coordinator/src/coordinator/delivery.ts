import type { ToolCall } from "../backends/executor.js";
import type { DeliverPromptRequest } from "../backends/prompt-backend.js";
import { configPath } from "../config/resolve.js";
import type { ResolvedToolConfig } from "../config/schema.js";
import {
  DELIVERY_SKIPPED_BY_CONFIGURATION,
  DELIVERY_SKIPPED_BY_USER,
  DETACHED_CAUSES,
  DETACHED_CAUSES_FOR_HOSTS,
  deliveryDeniedMessage,
  deliveryNotDecidedMessage,
} from "../routing/messages.js";
import { type AbortCause, type RunContext, refused, showPrompt } from "./context.js";

const RESULT_EDIT_CANCELLED = "Result edit cancelled.";

/** A tool call's result as it goes back to the assistant. */
export interface CallResult {
  readonly content: string;
  readonly is_error: boolean;
}

/** A delivery prompt left pending: the call suspends with it. */
export interface DeliverySuspended {
  readonly suspended: DeliverPromptRequest;
}

/**
 * The `result` mode: `unattended` delivers, `skip` withholds, `ask`/`edit` use the detached
 * `deliver` policy when no human is reachable, or a delivery prompt. Decided at once (no
 * promise) unless a prompt is needed.
 */
export function deliverResult(
  ctx: RunContext,
  call: ToolCall,
  config: ResolvedToolConfig,
  result: CallResult,
): CallResult | DeliverySuspended | Promise<CallResult | DeliverySuspended> {
  const mode = config.result;
  if (mode === "unattended") return result;
  if (mode === "skip") return { content: DELIVERY_SKIPPED_BY_CONFIGURATION, is_error: false };
  const promptId = `${call.id}#deliver`;
  if (ctx.expired.has(promptId)) {
    // Suspended, and nobody decided before its deadline: the detached `deliver` policy decides.
    return config.detached.deliver === "deny"
      ? {
          content: deliveryNotDecidedMessage("nobody decided before its deadline"),
          is_error: false,
        }
      : result;
  }
  if (!ctx.humanReachable && !ctx.stored.has(promptId)) {
    // The delivery prompt's default is "deliver", so `defaults` delivers as `auto` does.
    if (config.detached.deliver !== "deny") return result;
    const unreachable = ctx.unreachable ?? "not_reachable";
    const cause = DETACHED_CAUSES[unreachable];
    const key = configPath([call.name, "detached", "deliver"]);
    refused(ctx, {
      tool_call_id: call.id,
      tool_name: call.name,
      kind: "deliver",
      reason: "no_prompt_backend",
      explanation: `${call.name}'s result was not delivered because ${DETACHED_CAUSES_FOR_HOSTS[unreachable]}, and ${key} is "deny"; set it to "auto" or "defaults" to deliver results without asking.`,
    });
    return { content: deliveryDeniedMessage(call.name, cause), is_error: true };
  }
  return askDelivery(ctx, call, result, mode);
}

async function askDelivery(
  ctx: RunContext,
  call: ToolCall,
  result: CallResult,
  mode: DeliverPromptRequest["mode"],
): Promise<CallResult | DeliverySuspended> {
  const request: DeliverPromptRequest = {
    kind: "deliver",
    tool_name: call.name,
    tool_call_id: call.id,
    content: result.content,
    is_error: result.is_error,
    mode,
  };
  const shown = await showPrompt(ctx, request, { suspendable: true });
  if (shown.type === "suspended") return { suspended: request };
  if (shown.type === "failed") {
    // JP's text for an editor that failed. A person who could not be reached, or a backend that
    // replied with something a delivery prompt does not take, never reached a decision: say so
    // rather than "skipped by user" or "edit cancelled".
    if (mode === "edit" && shown.failure === "other") {
      return { content: RESULT_EDIT_CANCELLED, is_error: false };
    }
    return {
      content: deliveryNotDecidedMessage(`the delivery prompt failed (${shown.error})`),
      is_error: true,
    };
  }
  if (shown.type === "aborted" && shown.cause.type !== "user") {
    const why: Record<Exclude<AbortCause["type"], "user">, string> = {
      turn_ended: "the user ended the turn at another prompt",
      timeout: "nobody decided in time",
      interrupted: "the run was stopped before the user decided",
    };
    return { content: deliveryNotDecidedMessage(why[shown.cause.type]), is_error: false };
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
