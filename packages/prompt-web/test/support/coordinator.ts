import { askUser, builtinToolConfigs } from "@jp/builtins";
import { ConversationStream, type JsonObject, type StreamEvent } from "@jp/conversation";
import {
  builtinExecutorSource,
  combineExecutorSources,
  type Executor,
  layerToolsConfigs,
  type PromptBackend,
  type RunResult,
  ToolCoordinator,
  type ToolsConfig,
  TurnState,
} from "@jp/coordinator";
import { MockExecutorSource } from "@jp/coordinator/testing";

/**
 * A conversation with a real coordinator: `ask_user` built in, plus the given tools (which run
 * unattended unless `tools` configures them).
 */
export function conversation(
  prompts: PromptBackend,
  options: { readonly tools?: ToolsConfig; readonly executors?: Record<string, Executor> } = {},
) {
  const stream = ConversationStream.empty();
  stream.startTurn("Help me release.");
  const coordinator = new ToolCoordinator({
    stream,
    tools: layerToolsConfigs(builtinToolConfigs(), {
      ...Object.fromEntries(
        Object.keys(options.executors ?? {}).map((name) => [name, { run: "unattended" }]),
      ),
      ...options.tools,
    }),
    executors: combineExecutorSources(
      builtinExecutorSource({ ask_user: askUser }),
      new MockExecutorSource(options.executors ?? {}),
    ),
    prompts,
  });
  let calls = 0;
  return {
    stream,
    coordinator,
    /** Runs one tool call; resolves with the coordinator's result. */
    run(name: string, args: JsonObject, turn = new TurnState()): Promise<RunResult> {
      calls += 1;
      return coordinator.run([{ id: `call_${calls}`, name, arguments: args }], { turn });
    },
  };
}

/** The recorded inquiry responses as `[id, outcome, answer or reason]`. */
export function inquiryTrail(events: readonly StreamEvent[]): string[][] {
  return events.flatMap((event) => {
    if (event.type !== "inquiry_response") return [];
    const e = event as unknown as {
      id: string;
      outcome: string;
      answer?: unknown;
      reason?: string;
    };
    const detail =
      e.outcome === "answered"
        ? JSON.stringify(e.answer)
        : e.outcome === "cancelled"
          ? String(e.reason)
          : "";
    return [[e.id, e.outcome, detail]];
  });
}
