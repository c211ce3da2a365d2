// biome-ignore-all assist/source/organizeImports: the imports the docs show stay in their region
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FileConversationStore } from "@jp/conversation";
import type { BuiltinTool, ToolCall } from "@jp/coordinator";
import { MockInquiryBackend, MockPromptBackend } from "@jp/coordinator/testing";
import { success } from "@jp/tool";

// What the host brings: a tool, a person (scripted here), a model, and the model's tool calls.
const pruneBranches: BuiltinTool = { execute: () => success("pruned 3 merged branches") };
const terminal = new MockPromptBackend({
  permissions: [{ type: "run" }, { type: "run" }, { type: "run" }],
});
const llm = new MockInquiryBackend({});
const toolCallsFromTheModel: ToolCall[] = [{ id: "call_1", name: "prune_branches", arguments: {} }];
const signal = AbortSignal.timeout(60_000);

// #region example
import { ConversationStream } from "@jp/conversation";
import { builtinExecutorSource, ToolCoordinator, TurnState } from "@jp/coordinator";

const stream = ConversationStream.empty();
stream.startTurn("Tidy up the repository.");
const coordinator = new ToolCoordinator({
  stream, // where everything is recorded
  tools: { prune_branches: { run: "ask" } }, // JP's conversation.tools shape
  executors: builtinExecutorSource({ prune_branches: pruneBranches }),
  prompts: terminal, // a PromptBackend; omit it to run detached
  inquiries: llm, // optional: an InquiryBackend
});
coordinator.on("tool-state", ({ tool_name, state }) => console.log(tool_name, state));

const turn = new TurnState(); // one per turn
const { responses, endTurn } = await coordinator.run(toolCallsFromTheModel, { turn, signal });
// #endregion
console.log(responses[0]?.content, endTurn);

const calls: ToolCall[] = [{ id: "call_2", name: "prune_branches", arguments: {} }];
// #region deadlines
await coordinator.run(calls, {
  turn,
  signal: AbortSignal.timeout(120_000),
  promptTimeoutMs: 30_000,
});
// #endregion

const root = mkdtempSync(join(tmpdir(), "jp-coordinator-"));
// #region env
import { createLocalCommandExecutorSource } from "@jp/coordinator";

const localTools = createLocalCommandExecutorSource({
  root,
  inheritEnv: ["SSH_AUTH_SOCK"], // names added for every local tool; `true` passes everything
});
// #endregion
console.log(typeof localTools.executorFor);

// A turn that suspends at a question, saved, answered and resumed.
const store = new FileConversationStore(join(root, ".jp/conversations"));
const conversation = store.create();
conversation.stream.startTurn("Deploy.");
const tools = { deploy: { run: "unattended" as const } };
const executors = builtinExecutorSource({
  deploy: {
    execute: ({ answers }) =>
      answers.go === undefined
        ? {
            type: "needs_input",
            question: { id: "go", text: "Deploy now?", answer_type: { type: "boolean" } },
          }
        : success(`deployed: ${String(answers.go)}`),
  },
});
const deploy: ToolCall[] = [{ id: "call_3", name: "deploy", arguments: {} }];
// #region durable
import { answerPendingPrompt } from "@jp/coordinator";

const waiting = new ToolCoordinator({ stream: conversation.stream, tools, executors });
const { pending } = await waiting.run(deploy, { turn, suspend: { deadlineMs: 86_400_000 } });
await store.save(conversation); // the only state there is
// … later, in any process:
const loaded = (await store.load(conversation.name))._unsafeUnwrap();
answerPendingPrompt(loaded.stream, pending[0]?.prompt_id ?? "", { type: "answer", value: true });
const resumed = await new ToolCoordinator({ stream: loaded.stream, tools, executors }).resume();
// #endregion
console.log(resumed.responses[0]?.content);
