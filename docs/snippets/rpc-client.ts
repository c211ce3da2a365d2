// biome-ignore-all assist/source/organizeImports: the imports the docs show stay in their region
// Type-checked, not run: it needs an agent process on its stdin and stdout (examples/rpc-client
// is a runnable client; packages/rpc's tests run both sides).
import type { PromptRequest } from "@jp/coordinator";
import type { PromptReply } from "@jp/rpc";

// The UI's own dialog: shows the prompt, resolves with the person's reply, closes on abort.
declare function showDialog(prompt: PromptRequest, signal: AbortSignal): Promise<PromptReply>;

// #region client
// UI process: JSON-RPC on stdin/stdout, the human somewhere else (a window, /dev/tty).
import { createRpcPromptClient } from "@jp/rpc";

const client = createRpcPromptClient({
  input: process.stdin,
  output: process.stdout,
  capabilities: { prompts: "rich" },
  onPrompt: (prompt, { signal }) => showDialog(prompt, signal), // → a typed reply
});
const ready = await client.ready; // Result<InitializeResult, RpcError>
// #endregion
if (ready.isErr()) throw ready.error;
