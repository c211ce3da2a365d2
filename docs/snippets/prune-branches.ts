// biome-ignore-all assist/source/organizeImports: the imports the docs show stay in their region
import { strict as assert } from "node:assert";
import { ConversationStream } from "@jp/conversation";
import {
  builtinExecutorSource,
  layerToolsConfigs,
  ToolCoordinator,
  type ToolsConfig,
  TurnState,
} from "@jp/coordinator";
import { MockPromptBackend } from "@jp/coordinator/testing";
// #region tool
import { defineQuestion, failure, success, validateAnswer } from "@jp/tool";
import type { BuiltinTool } from "@jp/coordinator";

const confirm = defineQuestion({
  id: "confirm",
  text: "Delete the 3 stale branches?",
  context: "feature/a\nfeature/b\nhotfix/old",
  answer_type: { type: "boolean" },
  default: false,
  persistence: "none", // a destructive confirmation: never "remember for this turn"
})._unsafeUnwrap(); // defineQuestion refuses invalid questions; this one is fixed

export const pruneBranches: BuiltinTool = {
  execute({ answers }) {
    const answer = answers.confirm;
    if (answer === undefined) return { type: "needs_input", question: confirm };
    if (validateAnswer(confirm.answer_type, answer).isErr()) return failure("unexpected answer");
    return answer === true ? success("Deleted 3 branches.") : success("Nothing deleted.");
  },
};
// #endregion

const userConfig: ToolsConfig = { prune_branches: { run: "unattended" } };
const prompts = new MockPromptBackend({ questions: [{ type: "answer", value: false }] });
const stream = ConversationStream.empty();
stream.startTurn("Prune.");

// #region wiring
const executors = builtinExecutorSource({ prune_branches: pruneBranches });
const tools = layerToolsConfigs(
  { prune_branches: { run: "ask", description: "Delete merged branches." } }, // your defaults
  userConfig, // the user's conversation.tools
);
const coordinator = new ToolCoordinator({ stream, tools, executors, prompts });
// #endregion
const first = await coordinator.run([{ id: "c0", name: "prune_branches", arguments: {} }], {
  turn: new TurnState(),
});
assert.equal(first.responses[0]?.content, "Nothing deleted.");

{
  // #region test
  const human = new MockPromptBackend({ questions: [{ type: "answer", value: true }] });
  const stream = ConversationStream.empty();
  stream.startTurn("Clean up the branches.");
  const coordinator = new ToolCoordinator({ stream, tools, executors, prompts: human });
  const { responses } = await coordinator.run(
    [{ id: "call_1", name: "prune_branches", arguments: {} }],
    { turn: new TurnState() },
  );
  assert.equal(responses[0]?.content, "Deleted 3 branches.");
  assert.equal(human.questions[0]?.controls.remember, false); // persistence: "none"
  // #endregion
}
console.log("prune_branches: ok");
