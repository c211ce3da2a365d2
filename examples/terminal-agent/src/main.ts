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
//   npm run demo -- --postgres <url> …   keep the conversation in PostgreSQL (names, not dirs)
import { join } from "node:path";
import { askUser, builtinToolConfigs } from "@jp/builtins";
import { createEvent, type StoredConversation } from "@jp/conversation";
import {
  builtinExecutorSource,
  combineExecutorSources,
  createLocalCommandExecutorSource,
  layerToolsConfigs,
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
import { openDemoStore } from "./store.js";
import { inertJson, transcript } from "./transcript.js";
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

// Files under .jp/conversations, or PostgreSQL with --postgres <url> (see store.ts).
const opened = await openDemoStore({
  postgres: command.postgres,
  out: command.kind === "run" ? command.out : undefined,
});
const store = opened.ok ? opened.value : fail(`Could not open the store: ${opened.error.message}`);

/** The conversation a directory (or, in PostgreSQL, a name) on the command line names. */
async function open(arg: string | undefined): Promise<StoredConversation> {
  if (arg === undefined) return fail(USAGE);
  const loaded = await store.open(arg);
  return loaded.ok ? loaded.value : fail(`Could not load ${arg}: ${loaded.error.message}`);
}

async function save(conversation: StoredConversation) {
  const saved = await store.save(conversation);
  if (!saved.ok) fail(`Could not save the conversation: ${saved.error.message}`);
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
    // A model wrote the question and the arguments: shown inert (see `neutralize`).
    say(
      `  ${neutralize(prompt.prompt_id)}${prompt.answered ? " (answered)" : ""}: ${neutralize(what)}`,
    );
  }
  const with_ = store.option;
  say(
    `\nAnswer from any process:  npm run demo -- ${with_}--answer ${dir} <prompt id> '<reply JSON>'`,
  );
  say(`  e.g. '{"type":"answer","value":"minor"}', '{"type":"run"}', '{"type":"back"}'`);
  say(`Then go on:               npm run demo -- ${with_}--resume ${dir}`);
}

if (command.kind === "pending") {
  const listed = await store.pending(command.dir);
  if (!listed.ok) fail(`Could not load ${command.dir}: ${listed.error.message}`);
  console.log(inertJson(listed.ok ? listed.value : []));
  process.exit(0);
}

if (command.kind === "answer") {
  await open(command.dir);
  const { promptId } = command;
  let reply: StoredReply | undefined;
  try {
    reply = JSON.parse(command.reply) as StoredReply;
  } catch {
    reply = undefined;
  }
  if (reply === undefined) fail(`The reply is not JSON. ${USAGE}`);
  // Files: load, answer, save, again if another process saved first. PostgreSQL: the inbox.
  const answered = await store.answer(command.dir, promptId, reply as StoredReply);
  if (!answered.ok) fail(`Not answered (${answered.error.kind}): ${answered.error.message}`);
  say(`Answered ${promptId}; it is recorded when the turn resumes.`);
  process.exit(0);
}

const { nonInteractive, suspend, resume: resuming } = command;
const conversation = resuming === undefined ? fresh() : await open(resuming);
const dir = store.where(conversation);

function fresh(): StoredConversation {
  const conversation = store.create("Release widgets");
  // JP keeps the configuration a conversation started with in base_config.json.
  conversation.baseConfig = { conversation: { tools: JSON.parse(JSON.stringify(userTools)) } };
  return conversation;
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
  await save(conversation);
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

await save(conversation);
const hidden = new Set(Object.keys(tools).filter((name) => coordinator.config(name).style.hidden));
console.log(`\n--- Transcript ---\n\n${transcript(stream, hidden)}\n`);
console.log(`Conversation written to ${store.describe(conversation)}`);
