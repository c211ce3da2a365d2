import { ConversationStream, type InquiryResponse, type StreamEvent } from "@jp/conversation";
import {
  builtinExecutorSource,
  layerToolsConfigs,
  type PromptBackend,
  ToolCoordinator,
  type ToolsConfig,
  TurnState,
} from "@jp/coordinator";
import { askUser, builtinToolConfigs } from "../src/index.js";

/** Runs one ask_user call through a real coordinator and returns what a host would see. */
export async function runAskUser(
  args: Record<string, unknown>,
  options: { prompts?: PromptBackend; tools?: ToolsConfig; nonInteractive?: boolean } = {},
) {
  const stream = ConversationStream.empty();
  stream.startTurn("Help me migrate.");
  const coordinator = new ToolCoordinator({
    stream,
    tools: layerToolsConfigs(builtinToolConfigs(), options.tools ?? {}),
    executors: builtinExecutorSource({ ask_user: askUser }),
    ...(options.prompts === undefined ? {} : { prompts: options.prompts }),
    ...(options.nonInteractive === undefined ? {} : { nonInteractive: options.nonInteractive }),
  });
  const result = await coordinator.run(
    [{ id: "call_1", name: "ask_user", arguments: args as never }],
    { turn: new TurnState() },
  );
  const response = result.responses[0];
  if (response === undefined) throw new Error("no response");
  return { stream, result, response, trail: trail(stream.events) };
}

/** The recorded inquiry pairs as `[id, outcome]` rows. */
export function trail(events: readonly StreamEvent[]): string[][] {
  return events.flatMap((event) => {
    if (event.type === "inquiry_request") return [["request", String(event.id)]];
    if (event.type !== "inquiry_response") return [];
    const e = event as InquiryResponse;
    const detail =
      e.outcome === "answered"
        ? JSON.stringify(e.answer)
        : e.outcome === "cancelled"
          ? e.reason
          : "";
    return [[e.outcome, e.id, detail]];
  });
}
