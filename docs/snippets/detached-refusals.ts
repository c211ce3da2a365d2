import { ConversationStream } from "@jp/conversation";
import { builtinExecutorSource, ToolCoordinator, TurnState } from "@jp/coordinator";
import { success } from "@jp/tool";

// A tool that needs permission to run, and nobody to ask: the detached policy refuses.
const stream = ConversationStream.empty();
stream.startTurn("Format the code.");
const coordinator = new ToolCoordinator({
  stream,
  tools: { cargo_fmt: { run: "ask" } },
  executors: builtinExecutorSource({ cargo_fmt: { execute: () => success("formatted") } }),
});
const calls = [{ id: "call_1", name: "cargo_fmt", arguments: {} }];
const turn = new TurnState();
const log = { warn: (text: string) => console.log(`warn: ${text}`) };

// #region refusals
coordinator.on("prompt-refused", (refusal) => log.warn(refusal.explanation));
const { responses, refusals } = await coordinator.run(calls, { turn });
// #endregion
if (refusals.length !== 1 || responses[0]?.is_error !== true) throw new Error("not refused");
