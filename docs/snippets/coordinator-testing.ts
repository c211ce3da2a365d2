// biome-ignore-all assist/source/organizeImports: the imports the docs show stay in their region
import { ConversationStream } from "@jp/conversation";
import { ToolCoordinator, TurnState } from "@jp/coordinator";

const stream = ConversationStream.empty();
stream.startTurn("Apply the patch.");

// #region testing
import assert from "node:assert/strict";
import {
  MockExecutor,
  MockExecutorSource,
  MockInquiryBackend,
  MockPromptBackend,
} from "@jp/coordinator/testing";

const human = new MockPromptBackend({
  questions: [{ type: "answer", value: true }], // replies in order, per prompt kind
  permissions: [{ type: "run", remember: true }],
});
const llm = new MockInquiryBackend({ "call_1.apply_changes.1": true }); // by inquiry id, or a function
const tool = new MockExecutor((input) =>
  input.answers.apply_changes === undefined
    ? {
        type: "needs_input",
        question: { id: "apply_changes", text: "Apply?", answer_type: { type: "boolean" } },
      }
    : { type: "success", content: "applied" },
);
const coordinator = new ToolCoordinator({
  stream,
  tools: { patch: { run: "ask" } },
  executors: new MockExecutorSource({ patch: tool }),
  prompts: human,
  inquiries: llm,
});
const { responses } = await coordinator.run([{ id: "call_1", name: "patch", arguments: {} }], {
  turn: new TurnState(),
});
assert.equal(responses[0]?.content, "applied");
human.assertScriptUsed(); // every scripted reply used, no prompt without a reply
assert.equal(human.maxConcurrentPrompts, 1);
// #endregion
console.log("testing kit: ok");
