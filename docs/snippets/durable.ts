// biome-ignore-all assist/source/organizeImports: the imports the docs show stay in their region
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FileConversationStore } from "@jp/conversation";
import { builtinExecutorSource, type ToolsConfig } from "@jp/coordinator";
import { needsInput, success } from "@jp/tool";

// A tool that asks which plan to buy, in a conversation saved under a temporary directory.
const store = new FileConversationStore(mkdtempSync(join(tmpdir(), "jp-durable-")));
const conversation = store.create({ title: "Upgrade" });
const { name } = conversation;
conversation.stream.startTurn("Upgrade my account.");
const tools: ToolsConfig = { upgrade: { run: "unattended" } };
const executors = builtinExecutorSource({
  upgrade: {
    execute: ({ answers }) =>
      answers.plan === undefined
        ? needsInput({
            id: "plan",
            text: "Which plan?",
            answer_type: { type: "select", options: ["free", "pro"] },
          })
        : success(`upgraded to ${String(answers.plan)}`),
  },
});
const calls = [{ id: "call_1", name: "upgrade", arguments: {} }];

// #region durable
import {
  answerPendingPrompt,
  listPendingPrompts,
  ToolCoordinator,
  TurnState,
} from "@jp/coordinator";

// 1. A request handler runs the turn with nobody to ask.
const coordinator = new ToolCoordinator({ stream: conversation.stream, tools, executors });
const { pending } = await coordinator.run(calls, { turn: new TurnState(), suspend: true });
await store.save(conversation); // pending[0].request is what to show the person

// 2. Later, anywhere: answer one prompt, checked like a live answer.
const loaded = (await store.load(name))._unsafeUnwrap();
console.log(listPendingPrompts(loaded.stream).map((prompt) => prompt.prompt_id)); // what it waits for
const promptId = pending[0]?.prompt_id ?? "";
const answered = answerPendingPrompt(loaded.stream, promptId, { type: "answer", value: "pro" });
if (answered.isErr()) throw new Error(answered.error.message); // invalid_reply | unknown_prompt | …
await store.save(loaded);

// 3. Anywhere: resume. The reply is recorded where a live answer would have been.
const resumed = await new ToolCoordinator({ stream: loaded.stream, tools, executors }).resume();
await store.save(loaded); // resumed.pending: the next prompts, if any; resumed.responses: what finished
// #endregion

if (resumed.responses[0]?.content !== "upgraded to pro") throw new Error("not resumed");
console.log(resumed.responses[0].content);
