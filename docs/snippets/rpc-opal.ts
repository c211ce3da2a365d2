// Type-checked, not run: it needs Opal's CLI as the UI process (packages/rpc's tests run an
// Opal-style client).
import type { ChildProcessByStdio } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import { createRpcPromptBackend } from "@jp/rpc";

// The UI process of the block before: a child with piped stdin and stdout.
declare const ui: ChildProcessByStdio<Writable, Readable, null>;

// #region opal
const prompts = createRpcPromptBackend({
  input: ui.stdout,
  output: ui.stdin,
  sessionId: "s-42",
  protocol: "opal",
});
// #endregion
console.log(prompts.state);
