import type { ToolCall } from "../backends/executor.js";
import type { PermissionPromptRequest } from "../backends/prompt-backend.js";
import { configPath } from "../config/resolve.js";
import type { ResolvedToolConfig } from "../config/schema.js";
import {
  DETACHED_CAUSES,
  DETACHED_CAUSES_FOR_HOSTS,
  noHumanMessage,
  PERMISSION_INTERRUPTED,
  permissionPromptFailed,
  permissionTimedOutMessage,
  SKIPPED_BY_CONFIGURATION,
  SKIPPED_BY_USER,
  SKIPPED_REMEMBERED,
  skippedWithReason,
} from "../routing/messages.js";
import { type AbortCause, formatSeconds, type RunContext, refused, showPrompt } from "./context.js";
import { TURN_ENDED } from "./question-round.js";

// A permission prompt that ended without the person's decision says why.
function notDecided(cause: AbortCause): PermissionDecision {
  switch (cause.type) {
    case "user":
      return done(SKIPPED_BY_USER);
    case "turn_ended":
      return done(TURN_ENDED);
    case "timeout":
      return done(
        permissionTimedOutMessage(cause.ms === undefined ? undefined : formatSeconds(cause.ms)),
      );
    case "interrupted":
      return done(PERMISSION_INTERRUPTED);
  }
}

/** Whether a tool call runs (maybe with edited arguments) or is answered without running. */
export type PermissionDecision =
  | { readonly type: "run"; readonly call: ToolCall }
  | { readonly type: "suspended"; readonly request: PermissionPromptRequest }
  | { readonly type: "done"; readonly content: string; readonly is_error: boolean };

const done = (content: string, is_error = false): PermissionDecision => ({
  type: "done",
  content,
  is_error,
});

/**
 * The `run` mode: `unattended` runs, `skip` really skips, `ask`/`edit` use a remembered decision,
 * the detached `run` policy when no human is reachable, or a permission prompt. Decided at once
 * (no promise) unless a prompt is needed: most calls need none, and each await costs the call
 * a turn of the event loop's microtask queue.
 */
export function decidePermission(
  ctx: RunContext,
  call: ToolCall,
  config: ResolvedToolConfig,
): PermissionDecision | Promise<PermissionDecision> {
  const decided = decideWithoutPrompt(ctx, call, config);
  if (decided === undefined) {
    return askPermission(ctx, call, config, config.run === "edit" ? "edit" : "ask");
  }
  // Decided without its prompt: in a resumed run, the place the call's permission prompt held in
  // line is given up, and a reply stored for it is dropped: it is not asked again.
  if (ctx.resumedLine !== undefined || ctx.stored.size > 0) {
    const promptId = `${call.id}#permission`;
    ctx.resumedLine?.joined(promptId);
    ctx.stored.delete(promptId);
  }
  return decided;
}

// The decision when no permission prompt is needed; `undefined` when one is.
function decideWithoutPrompt(
  ctx: RunContext,
  call: ToolCall,
  config: ResolvedToolConfig,
): PermissionDecision | undefined {
  // Made unattended since the turn was suspended: the person's own reply to the prompt (a skip,
  // an edit) still stands; without one the tool runs.
  if (
    config.run === "unattended" &&
    (ctx.stored.size === 0 || !ctx.stored.has(`${call.id}#permission`))
  ) {
    return { type: "run", call };
  }
  if (config.run === "skip") return done(SKIPPED_BY_CONFIGURATION);
  const promptId = `${call.id}#permission`;
  // The person's own reply to this prompt, given while the turn was suspended, is used before a
  // decision another prompt remembered for the turn.
  const remembered = ctx.stored.has(promptId)
    ? undefined
    : ctx.turn.rememberedPermission(call.name);
  if (remembered !== undefined) {
    // A prompt still waiting in the resumed line takes the decision only when its turn comes
    // (its `needed`), as it would have in a live queue: not ahead of the prompts before it.
    if (ctx.humanReachable && ctx.resumedLine?.holds(promptId) === true) return undefined;
    return remembered ? { type: "run", call } : done(SKIPPED_REMEMBERED);
  }
  if (ctx.expired.has(promptId)) {
    // Suspended, and nobody decided before its deadline: the detached `run` policy decides.
    return config.detached.run === "auto"
      ? { type: "run", call }
      : done(permissionTimedOutMessage(undefined));
  }
  if (!ctx.humanReachable && !ctx.stored.has(promptId)) {
    // `auto` approves. A permission prompt has no default answer, so `defaults` fails like `deny`.
    if (config.detached.run === "auto") return { type: "run", call };
    const unreachable = ctx.unreachable ?? "not_reachable";
    const cause = DETACHED_CAUSES[unreachable];
    const key = configPath([call.name, "detached", "run"]);
    refused(ctx, {
      tool_call_id: call.id,
      tool_name: call.name,
      kind: "permission",
      reason: "no_prompt_backend",
      explanation: `${call.name} was not run because ${DETACHED_CAUSES_FOR_HOSTS[unreachable]}, and ${key} is "${config.detached.run}"${config.detached.run === "defaults" ? " (a permission prompt has no default answer)" : ""}; set it to "auto" to run the tool without asking.`,
    });
    return done(noHumanMessage(call.name, cause), true);
  }
  return undefined;
}

async function askPermission(
  ctx: RunContext,
  call: ToolCall,
  config: ResolvedToolConfig,
  mode: PermissionPromptRequest["mode"],
): Promise<PermissionDecision> {
  const request: PermissionPromptRequest = {
    kind: "permission",
    tool_name: call.name,
    tool_call_id: call.id,
    ...(config.source === undefined ? {} : { tool_source: config.source }),
    arguments: call.arguments,
    mode,
  };
  // A call of the same tool may have been decided "for the turn" while this one waited.
  const shown = await showPrompt(ctx, request, {
    suspendable: true,
    needed: () => ctx.turn.rememberedPermission(call.name) === undefined,
    onReply: (reply) => {
      if ((reply.type === "run" || reply.type === "skip") && reply.remember === true) {
        ctx.turn.rememberPermission(call.name, reply.type === "run");
      }
    },
  });
  if (shown.type === "unneeded") {
    return ctx.turn.rememberedPermission(call.name)
      ? { type: "run", call }
      : done(SKIPPED_REMEMBERED);
  }
  if (shown.type === "suspended") return { type: "suspended", request };
  if (shown.type === "aborted") return notDecided(shown.cause);
  if (shown.type === "failed") return done(permissionPromptFailed(shown.error), true);
  const { reply } = shown;
  switch (reply.type) {
    case "run":
      return { type: "run", call };
    case "edit":
      return { type: "run", call: { ...call, arguments: reply.arguments } };
    case "skip":
      return done(reply.reason ? skippedWithReason(reply.reason) : SKIPPED_BY_USER);
    default:
      return done(SKIPPED_BY_USER);
  }
}
