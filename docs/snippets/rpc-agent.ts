// biome-ignore-all assist/source/organizeImports: the imports the docs show stay in their region
// Type-checked, not run: it spawns the host's UI program, which is not part of the SDK
// (examples/rpc-client is a runnable client; packages/rpc's tests run both sides).
import type { ConversationStream } from "@jp/conversation";
import type { ExecutorSource, ToolsConfig } from "@jp/coordinator";

// What the host brings: the stream to record in, its tools.
declare const stream: ConversationStream;
declare const tools: ToolsConfig;
declare const executors: ExecutorSource;

// #region agent
// Agent process: the UI client is a child talking over its stdin/stdout.
import { spawn } from "node:child_process";
import { ToolCoordinator } from "@jp/coordinator";
import { createRpcPromptBackend } from "@jp/rpc";

const ui = spawn("my-ui", { stdio: ["pipe", "pipe", "inherit"] });
const prompts = createRpcPromptBackend({ input: ui.stdout, output: ui.stdin, sessionId: "s-42" });
const coordinator = new ToolCoordinator({ stream, tools, executors, prompts });
// #endregion

console.log(coordinator.tools);
