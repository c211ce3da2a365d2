// The demo: a scripted assistant (a deterministic stand-in for a model, no API key needed) runs
// a small release task through the real ToolCoordinator. You answer an ask_user form in the
// terminal, approve running a local tool, and type a one-time password it asks for (a secret:
// not echoed, recorded as redacted). Then the transcript is printed and the conversation is
// written to .jp/conversations/ in JP's layout.
//
//   npm run demo                         ask in this terminal (drawn on /dev/tty)
//   npm run demo -- --non-interactive    no human: see the detached policy refuse, honestly
//   npm run demo -- --suspend            stop at the first question, save it, print what is pending
//   npm run demo -- --pending <dir>      list what a saved conversation waits for
//   npm run demo -- --answer <dir> <prompt id> <reply JSON>   answer one, from any process
//   npm run demo -- --resume <dir>       go on in this terminal (add --suspend to stop again)
//   npm run demo -- --web                answer on a web page (prints the link to open)
import { join, resolve } from "node:path";
import { askUser, builtinToolConfigs } from "@jp/builtins";
import { createEvent, FileConversationStore, type StoredConversation } from "@jp/conversation";
import {
  answerPendingPromptInStore,
  builtinExecutorSource,
  combineExecutorSources,
  createLocalCommandExecutorSource,
  layerToolsConfigs,
  listPendingPrompts,
  type PendingPrompt,
  type RunResult,
  type StoredReply,
  ToolCoordinator,
  type ToolsConfig,
  TurnState,
} from "@jp/coordinator";
import { createTerminalPromptBackend, neutralize } from "@jp/prompt-terminal";
import { parseDemoArgs, USAGE } from "./args.js";
import { ScriptedAssistant } from "./scripted-assistant.js";
import { transcript } from "./transcript.js";
import { startWebBackend } from "./web.js";

const parsed = parseDemoArgs(process.argv.slice(2));
if (!parsed.ok) {
  process.stderr.write(`${parsed.message}\n${USAGE}\n`);
  process.exit(2);
}
const { command } = parsed;
if (command.kind === "help") {
  console.log(USAGE);
  process.exit(0);
}
const say = (text: string) => process.stderr.write(`${neutralize(text, { multiline: true })}\n`);
const fail = (message: string): never => {
  say(message);
  process.exit(1);
};

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

/** A conversation directory given on the command line: its store and name. */
async function open(dir: string | undefined): Promise<[FileConversationStore, StoredConversation]> {
  if (dir === undefined) return fail(USAGE);
  const path = resolve(dir);
  const store = new FileConversationStore(join(path, ".."));
  const loaded = await store.load(path.slice(store.root.length + 1));
  if (loaded.isErr()) return fail(`Could not load ${path}: ${loaded.error.message}`);
  return [store, loaded.value];
}

async function save(store: FileConversationStore, conversation: StoredConversation) {
  const saved = await store.save(conversation);
  if (saved.isErr()) fail(`Could not save the conversation: ${saved.error.message}`);
}

/** How to continue, for each pending prompt. */
function printPending(pending: readonly PendingPrompt[], dir: string) {
  say(`\nThe turn is suspended. ${pending.length} prompt(s) wait for a person:`);
  for (const prompt of pending) {
    const { request } = prompt;
    const what =
      request.kind === "question"
        ? `${request.question.text} (${request.question.answer_type.type}${request.progress ? `, ${request.progress.index}/${request.progress.total}` : ""})`
        : request.kind === "permission"
          ? `may ${request.tool_name} run with ${JSON.stringify(request.arguments)}?`
          : `deliver ${request.tool_name}'s result?`;
    say(`  ${prompt.prompt_id}${prompt.answered ? " (answered)" : ""}: ${what}`);
  }
  say(`\nAnswer from any process:  npm run demo -- --answer ${dir} <prompt id> '<reply JSON>'`);
  say(`  e.g. '{"type":"answer","value":"minor"}', '{"type":"run"}', '{"type":"back"}'`);
  say(`Then go on:               npm run demo -- --resume ${dir}`);
}

if (command.kind === "pending") {
  const [, conversation] = await open(command.dir);
  console.log(JSON.stringify(listPendingPrompts(conversation.stream), null, 2));
  process.exit(0);
}

if (command.kind === "answer") {
  const [store, conversation] = await open(command.dir);
  const { promptId } = command;
  let reply: StoredReply | undefined;
  try {
    reply = JSON.parse(command.reply) as StoredReply;
  } catch {
    reply = undefined;
  }
  if (reply === undefined) fail(`The reply is not JSON. ${USAGE}`);
  // Load, answer, save; if another process saved first, load again and answer again.
  const answered = await answerPendingPromptInStore(
    store,
    conversation.name,
    promptId,
    reply as StoredReply,
  );
  if (answered.isErr()) fail(`Not answered (${answered.error.kind}): ${answered.error.message}`);
  say(`Answered ${promptId}; it is recorded when the turn resumes.`);
  process.exit(0);
}

const { nonInteractive, suspend, resume: resuming, out } = command;
const [store, conversation] = resuming === undefined ? fresh() : await open(resuming);
const dir = join(store.root, conversation.name);

function fresh(): [FileConversationStore, StoredConversation] {
  const store = new FileConversationStore(out ?? join(process.cwd(), ".jp/conversations"));
  const conversation = store.create({ title: "Release widgets" });
  // JP keeps the configuration a conversation started with in base_config.json.
  conversation.baseConfig = { conversation: { tools: JSON.parse(JSON.stringify(userTools)) } };
  return [store, conversation];
}

const { stream } = conversation;
// Only open the terminal when someone may be asked there now.
const terminal = suspend
  ? undefined
  : command.web
    ? await startWebBackend(say)
    : createTerminalPromptBackend();
const coordinator = new ToolCoordinator({
  stream,
  tools,
  executors: combineExecutorSources(
    builtinExecutorSource({ ask_user: askUser }),
    createLocalCommandExecutorSource({ root: process.cwd() }),
  ),
  ...(terminal === undefined ? {} : { prompts: terminal }),
  nonInteractive,
});

// Ctrl+C outside a prompt cancels the run; every open question is still closed in the record.
const abort = new AbortController();
process.once("SIGINT", () => abort.abort());

/** Stops here if the turn is suspended: saves, says how to go on, exits. */
async function stopIfSuspended(result: RunResult) {
  if (result.pending.length === 0) return;
  await terminal?.close();
  await save(store, conversation);
  printPending(result.pending, dir);
  process.exit(0);
}

const assistant = new ScriptedAssistant();
let turn = new TurnState();
let ended = false;
if (resuming === undefined) {
  const request = "Please prepare the next release of the widgets package.";
  say(`\nYou: ${request}`);
  stream.startTurn(request);
} else {
  const result = await coordinator.resume({
    signal: abort.signal,
    ...(suspend ? { suspend } : {}),
  });
  await stopIfSuspended(result);
  ({ turn } = result);
  ended = result.endTurn;
}
for (let cycle = 0; cycle < 5 && !abort.signal.aborted && !ended; cycle++) {
  const step = assistant.next(stream);
  stream.append(createEvent("chat_response", { message: step.message }));
  say(`\nAssistant (scripted): ${step.message}`);
  if (step.calls.length === 0) break;
  const result = await coordinator.run(step.calls, { turn, signal: abort.signal, suspend });
  await stopIfSuspended(result);
  if (result.endTurn) {
    say("\n(You ended the turn.)");
    ended = true;
  }
}
await terminal?.close();

await save(store, conversation);
const hidden = new Set(Object.keys(tools).filter((name) => coordinator.config(name).style.hidden));
console.log(`\n--- Transcript ---\n\n${transcript(stream, hidden)}\n`);
console.log(`Conversation written to ${dir}`);
