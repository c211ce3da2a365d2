// biome-ignore-all assist/source/organizeImports: the imports the docs show stay in their region
// Type-checked, not run: it waits for a person at a terminal (embed-anthropic.ts runs the terminal
// backend in full, also under tmux).
import type { ConversationStream } from "@jp/conversation";
import type { ExecutorSource, ToolCall, ToolsConfig } from "@jp/coordinator";

// What the host brings: the stream to record in, its tools, the model's tool calls.
declare const stream: ConversationStream;
declare const tools: ToolsConfig;
declare const executors: ExecutorSource;
declare const calls: readonly ToolCall[];

// #region terminal
import { ToolCoordinator, TurnState } from "@jp/coordinator";
import { createTerminalPromptBackend } from "@jp/prompt-terminal";

const prompts = createTerminalPromptBackend(); // { ttyPath?, input?, output?, env? }
const coordinator = new ToolCoordinator({ stream, tools, executors, prompts });
await coordinator.run(calls, { turn: new TurnState() });
prompts.close(); // ends the backend: a prompt in flight fails as the person not reached
// #endregion
