// A minimal UI client for an agent that asks its prompts over @jp/rpc. JSON-RPC goes over this
// process's stdin/stdout (the agent spawns it with pipes); the human is on /dev/tty.
// Usage: node --conditions=@jp/source --import tsx examples/rpc-client/src/main.ts
//          [--simple] [answer …]
// Each prompt takes the next scripted answer; when none is left, the question goes to /dev/tty
// if it opens, else the prompt fails (nobody is there to answer it). `--simple` announces Opal's
// client/ask_user only.
// In a question, `:back`, `:reply`, `:end` and `:cancel` stand for the form controls.
import { openSync } from "node:fs";
import { createInterface } from "node:readline/promises";
import { Writable } from "node:stream";
import { ReadStream, WriteStream } from "node:tty";
import type { PromptRequest, QuestionPromptRequest, QuestionReply } from "@jp/coordinator";
import { neutralize } from "@jp/prompt-terminal";
import { createRpcPromptClient, type PromptReply } from "@jp/rpc";

const args = process.argv.slice(2);
const simple = args[0] === "--simple";
const scripted = simple ? args.slice(1) : args;

// stdout is the wire: everything for people goes to stderr or the terminal.
const log = (line: string) => process.stderr.write(`[rpc-client] ${line}\n`);

/** Asks on /dev/tty; `null` when there is no terminal. Opened on first use. */
interface Terminal {
  ask(text: string, secret: boolean, signal: AbortSignal): Promise<string>;
  close(): void;
}
let terminal: Terminal | null | undefined;

function openTerminal(): Terminal | null {
  if (terminal !== undefined) return terminal;
  try {
    const fd = openSync("/dev/tty", "r+");
    const input = new ReadStream(fd);
    const screen = new WriteStream(fd);
    // Echo goes through this gate, closed while a secret is typed.
    let muted = false;
    const output = new Writable({
      write: (chunk, _encoding, done) => {
        if (!muted) screen.write(chunk);
        done();
      },
    });
    // No history: a secret typed at one prompt would come back, in clear, at the up arrow.
    const readline = createInterface({ input, output, terminal: true, historySize: 0 });
    // Closed by the person (Ctrl-D): the prompt on screen then is theirs to cancel, but nobody
    // sees the ones after it, which must not read as cancelled by them too.
    let closed = false;
    readline.once("close", () => {
      closed = true;
    });
    // One prompt at a time: the agent may send prompts that overlap, and the line editor serves
    // one question; a second one asked meanwhile would never be answered, and would turn the
    // echo back on while a secret is typed. The others wait their turn, off screen.
    let turn: Promise<void> = Promise.resolve();
    terminal = {
      async ask(text, secret, signal) {
        const previous = turn;
        let release: () => void = () => {};
        const mine = new Promise<void>((resolve) => {
          release = resolve;
        });
        turn = previous.then(() => mine);
        try {
          await untilOrAbort(previous, signal);
          if (closed) throw new TerminalClosed();
          screen.write(`${text}\n`);
          const answer = readline.question("> ", { signal });
          muted = secret;
          try {
            return await answer;
          } finally {
            muted = false;
            if (secret) screen.write("\n");
          }
        } finally {
          release();
        }
      },
      close: () => {
        readline.close();
        input.destroy();
      },
    };
  } catch {
    terminal = null;
  }
  return terminal;
}

/** Resolves with `promise`, or rejects as soon as `signal` aborts (the agent gave the prompt up). */
function untilOrAbort(promise: Promise<void>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const abort = () => reject(signal.reason);
    signal.addEventListener("abort", abort, { once: true });
    void promise.then(() => {
      signal.removeEventListener("abort", abort);
      resolve();
    });
  });
}

/** The next answer: scripted, else typed; `undefined` means cancelled. */
async function answer(text: string, secret: boolean, signal: AbortSignal) {
  const next = scripted.shift();
  if (next !== undefined) {
    log(`${text} → ${secret ? "(secret)" : next}`);
    return next;
  }
  const tty = openTerminal();
  if (tty === null) {
    // Nobody saw the prompt, so it must not read as the person cancelling it: the handler fails,
    // the agent gets an error response and records a backend error.
    log(`${text} → no answer left and no terminal`);
    throw new Error("no scripted answer is left and there is no terminal to ask the person on");
  }
  return tty.ask(text, secret, signal).catch((cause: unknown) => {
    if (!(cause instanceof TerminalClosed)) return undefined;
    log(`${text} → the terminal was closed`);
    throw new Error("the terminal was closed before this prompt, so nobody saw it");
  });
}

class TerminalClosed extends Error {}

const YES = new Set(["y", "yes", "true", "run", "deliver"]);
const NO = new Set(["n", "no", "false"]);
const skips = (word: string) => NO.has(word) || word === "skip";
const CONTROLS = new Map<string, QuestionReply>([
  [":back", { type: "back" }],
  [":reply", { type: "reply" }],
  [":end", { type: "end_turn" }],
  [":cancel", { type: "cancelled" }],
]);

// What the agent sends (a model's question, a tool's name and arguments) is made inert before it
// reaches the terminal or the log: no escape sequences, no bidi overrides (see `neutralize`).
function describe(prompt: PromptRequest): string {
  return neutralize(describeRaw(prompt), { multiline: true });
}

function describeRaw(prompt: PromptRequest): string {
  switch (prompt.kind) {
    case "question": {
      const { text, answer_type } = prompt.question;
      const label = prompt.prompt_label === undefined ? "" : `${prompt.prompt_label}: `;
      const hint =
        answer_type.type === "boolean"
          ? " [y/n]"
          : "options" in answer_type
            ? ` [${answer_type.options.join(answer_type.type === "select" ? "/" : ",")}]`
            : "";
      const retry = prompt.error === undefined ? "" : ` (${prompt.error})`;
      return `${label}${text}${hint}${retry}`;
    }
    case "permission":
      return `Run ${prompt.tool_name} with ${JSON.stringify(prompt.arguments)}? [run/skip]`;
    case "deliver":
      return `Deliver the result of ${prompt.tool_name}? [deliver/skip]\n${prompt.content}`;
  }
}

type AnswerValue = Extract<QuestionReply, { type: "answer" }>["value"];

function answerValue(question: QuestionPromptRequest["question"], text: string): AnswerValue {
  const type = question.answer_type.type;
  if (type === "boolean") {
    // Neither yes nor no: passed on as typed, so the agent asks again rather than record a "no"
    // the person never gave.
    const word = text.trim().toLowerCase();
    return YES.has(word) ? true : NO.has(word) ? false : text;
  }
  if (type === "multi_select") return text.split(",").map((part) => part.trim());
  if (type === "schema") {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}

/** The reply `text` stands for; `undefined` when it is neither yes nor no where one is needed. */
function replyFor(prompt: PromptRequest, text: string | undefined): PromptReply | undefined {
  if (text === undefined) return { type: "cancelled" };
  const word = text.trim().toLowerCase();
  switch (prompt.kind) {
    case "question":
      return CONTROLS.get(word) ?? { type: "answer", value: answerValue(prompt.question, text) };
    case "permission":
      return YES.has(word) ? { type: "run" } : skips(word) ? { type: "skip" } : undefined;
    case "deliver":
      return YES.has(word) ? { type: "deliver" } : skips(word) ? { type: "skip" } : undefined;
  }
}

const client = createRpcPromptClient({
  input: process.stdin,
  output: process.stdout,
  capabilities: { prompts: simple ? "simple" : "rich" },
  clientInfo: { name: "@jp-examples/rpc-client" },
  onPrompt: async (prompt, { signal }) => {
    const secret = prompt.kind === "question" && prompt.question.answer_type.type === "secret";
    // A word that is neither yes nor no is not read as "skip": the prompt is asked again.
    const again = ` (please answer ${prompt.kind === "deliver" ? "deliver" : "run"} or skip)`;
    for (let retry = ""; ; retry = again) {
      const reply = replyFor(prompt, await answer(`${describe(prompt)}${retry}`, secret, signal));
      if (reply !== undefined) return reply;
    }
  },
  onAskUser: async (params, { signal }) => {
    const choices = params.choices === undefined ? "" : ` [${params.choices.join("/")}]`;
    // The question and its choices come from the model, as in `describe`: made inert first.
    const text = neutralize(`${params.question}${choices}`, { multiline: true });
    // `null` dismisses the question (Opal's result has no cancel; the wire gets -32800).
    return (await answer(text, false, signal)) ?? null;
  },
});

const ready = await client.ready;
if (ready.isErr()) log(`not connected: ${ready.error.message}`);
else log(`connected to session ${ready.value.session_id}`);
const closed = await client.closed;
log(`disconnected (${closed.kind})`);
terminal?.close();
process.exit(0);
