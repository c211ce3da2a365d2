import type {
  AskOptions,
  LaterReply,
  PromptBackend,
  PromptRequest,
  ReplyFor,
  ToolCoordinator,
} from "@jp/coordinator";

/** Where a sub-agent's prompts go. */
export interface SubAgentPromptsOptions {
  /** The sub-agent's name, shown to the human and recorded as the question's source. */
  readonly agent: string;
  /**
   * The parent: its coordinator and the id of the tool call that runs this sub-agent. Without
   * one the sub-agent is standalone and uses `standalone` like a top-level agent.
   */
  readonly parent?: { readonly coordinator: ToolCoordinator; readonly toolCallId: string };
  /** The prompt backend of a standalone sub-agent. */
  readonly standalone?: PromptBackend;
}

/**
 * The {@link PromptBackend} for a sub-agent's coordinator (Opal's `ask_parent`): its `ask_user`
 * questions, permission and delivery prompts go to the parent's human, one at a time with the
 * parent's own prompts, labelled with the sub-agent's name. Both conversations record the
 * question: the sub-agent's as the assistant's, the parent's as `{"source":"other","name":agent}`.
 * Each records what the person did (an answer, Back, Reply, End Turn, a cancel); End Turn ends
 * both turns. Pass the hosting tool's `signal` to the sub-agent's `run()`.
 *
 * When the parent's turn suspends at a sub-agent's prompt, the sub-agent gets `{type: "later"}`:
 * its own run suspends and returns, and the parent's hosting call waits at the prompt. When the
 * parent's turn resumes, the hosting tool runs again from its start with a fresh sub-agent, and
 * every prompt that sub-agent asks again is answered from the parent's record, without asking
 * anyone, until it reaches the prompt the person has just answered. So a sub-agent should ask the
 * same things in the same order when run again (a scripted or recorded model does; a live model
 * may not): a prompt that differs ends the replay, and is asked anew.
 *
 * @example
 * const child = new ToolCoordinator({
 *   stream: childStream, tools, executors,
 *   prompts: subAgentPrompts({ agent: "researcher", parent: { coordinator, toolCallId } }),
 * });
 */
export function subAgentPrompts(options: SubAgentPromptsOptions): PromptBackend {
  const { parent, standalone, agent } = options;
  if (parent === undefined) {
    return (
      standalone ?? {
        isHumanReachable: () => false,
        ask: () => Promise.reject(new Error("no prompt backend")),
      }
    );
  }
  return {
    isHumanReachable: () => parent.coordinator.humanReachableFor(parent.toolCallId),
    ask: <R extends PromptRequest>(
      request: R,
      { signal }: AskOptions,
    ): Promise<ReplyFor<R> | LaterReply> =>
      parent.coordinator.escalate(parent.toolCallId, agent, request, { signal }),
  };
}
