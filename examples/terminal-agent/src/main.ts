// The demo: a scripted assistant (a deterministic stand-in for a model, no API key needed) runs
// a small release task through the real ToolCoordinator. You answer an ask_user form in the
// terminal, approve running a local tool, and type a one-time password it asks for (a secret:
// not echoed, recorded as redacted). Then the transcript is printed and the conversation is
// written to .jp/conversations/ in JP's layout.
//
//   npm run demo                      ask in this terminal (drawn on /dev/tty)
//   npm run demo -- --non-interactive no human: see the detached policy refuse, honestly
import { join } from "node:path";
import { askUser, builtinToolConfigs } from "@jp/builtins";
import { createEvent, FileConversationStore } from "@jp/conversation";
import {
  builtinExecutorSource,
  combineExecutorSources,
  createLocalCommandExecutorSource,
  layerToolsConfigs,
  ToolCoordinator,
  type ToolsConfig,
  TurnState,
} from "@jp/coordinator";
import { createTerminalPromptBackend, neutralize } from "@jp/prompt-terminal";
import { ScriptedAssistant } from "./scripted-assistant.js";
import { transcript } from "./transcript.js";

const args = new Set(process.argv.slice(2));
if (args.has("--help")) {
  console.log("usage: npm run demo [-- --non-interactive] [-- --out <dir>]");
  process.exit(0);
}
const nonInteractive = args.has("--non-interactive");
const outIndex = process.argv.indexOf("--out");
const root =
  outIndex === -1 ? join(process.cwd(), ".jp/conversations") : String(process.argv[outIndex + 1]);

const userTools: ToolsConfig = {
  publish_package: {
    source: "local",
    description: "Publish a package to the registry.",
    command: {
      program: process.execPath,
      args: [join(import.meta.dirname, "../tools/publish-package.mjs")],
    },
    run: "ask",
  },
};
const tools = layerToolsConfigs(builtinToolConfigs(), userTools);

const store = new FileConversationStore(root);
const conversation = store.create({ title: "Release widgets" });
// JP keeps the configuration a conversation started with in base_config.json.
conversation.baseConfig = { conversation: { tools: JSON.parse(JSON.stringify(userTools)) } };
const { stream } = conversation;
const terminal = createTerminalPromptBackend();
const coordinator = new ToolCoordinator({
  stream,
  tools,
  executors: combineExecutorSources(
    builtinExecutorSource({ ask_user: askUser }),
    createLocalCommandExecutorSource({ root: process.cwd() }),
  ),
  prompts: terminal,
  nonInteractive,
});

// Ctrl+C outside a prompt cancels the run; every open question is still closed in the record.
const abort = new AbortController();
process.once("SIGINT", () => abort.abort());

const say = (text: string) => process.stderr.write(`${neutralize(text, { multiline: true })}\n`);
const request = "Please prepare the next release of the widgets package.";
say(`\nYou: ${request}`);
stream.startTurn(request);
const assistant = new ScriptedAssistant();
const turn = new TurnState();
for (let cycle = 0; cycle < 5 && !abort.signal.aborted; cycle++) {
  const step = assistant.next(stream);
  stream.append(createEvent("chat_response", { message: step.message }));
  say(`\nAssistant (scripted): ${step.message}`);
  if (step.calls.length === 0) break;
  const { endTurn } = await coordinator.run(step.calls, { turn, signal: abort.signal });
  if (endTurn) {
    say("\n(You ended the turn.)");
    break;
  }
}
terminal.close();

const saved = await store.save(conversation);
const hidden = new Set(Object.keys(tools).filter((name) => coordinator.config(name).style.hidden));
console.log(`\n--- Transcript ---\n\n${transcript(stream, hidden)}\n`);
if (saved.isErr()) {
  console.error(`Could not save the conversation: ${saved.error.message}`);
  process.exit(1);
}
console.log(`Conversation written to ${join(root, conversation.name)}`);
