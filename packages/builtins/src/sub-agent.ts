import type {
  AskOptions,
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
    ask: <R extends PromptRequest>(request: R, { signal }: AskOptions): Promise<ReplyFor<R>> =>
      parent.coordinator.escalate(parent.toolCallId, agent, request, { signal }),
  };
}
