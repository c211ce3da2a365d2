// An MCP server asks the person questions, through the coordinator and the terminal.
//
// The example starts a small MCP server (src/bistro-server.ts, the official SDK over stdio) and
// connects to it twice with @jp/mcp: once on the 2025 protocol revisions, where its `book_table`
// tool pushes an `elicitation/create` form, and once on 2026-07-28, where `pay_deposit` answers
// with an input-required result. A scripted step (no model, no API key) calls both tools; every
// question the server asks is routed, asked in the terminal and recorded. Then the transcript is
// printed and the conversation written to .jp/conversations/ in JP's layout.
//
//   npm run example:mcp                        answer in this terminal
//   npm run example:mcp -- --non-interactive   nobody there: the server is told an honest decline
//   npm run example:mcp -- --out <dir>         write the conversation under <dir>
import { join } from "node:path";
import { type ConversationStream, createEvent, FileConversationStore } from "@jp/conversation";
import {
  type ExecutorSource,
  type ToolCall,
  ToolCoordinator,
  type ToolsConfig,
  TurnState,
} from "@jp/coordinator";
import { connectMcpServer, type McpConnection, type McpServerOptions } from "@jp/mcp";
import { createTerminalPromptBackend, neutralize } from "@jp/prompt-terminal";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { parseExampleArgs, USAGE } from "./args.js";
import { transcript } from "./transcript.js";

const parsed = parseExampleArgs(process.argv.slice(2));
if (!parsed.ok) {
  process.stderr.write(`${parsed.message}\n${USAGE}\n`);
  process.exit(2);
}
if (parsed.command.kind === "help") {
  console.log(USAGE);
  process.exit(0);
}
const { nonInteractive, out } = parsed.command;
const say = (text: string) => process.stderr.write(`${neutralize(text, { multiline: true })}\n`);

/** Connects to a fresh server process (stdio: one process per connection). */
async function bistro(
  versionNegotiation?: McpServerOptions["versionNegotiation"],
): Promise<McpConnection> {
  const connection = await connectMcpServer({
    name: "bistro",
    transport: new StdioClientTransport({
      command: process.execPath,
      args: ["--import", "tsx", join(import.meta.dirname, "bistro-server.ts")],
    }),
    ...(versionNegotiation === undefined ? {} : { versionNegotiation }),
  });
  if (connection.isErr()) {
    say(connection.error.message);
    process.exit(1);
  }
  return connection.value;
}

// A pushed elicitation exists only on the 2025 revisions; input-required results on 2026-07-28.
const legacy = await bistro();
const modern = await bistro({ mode: { pin: "2026-07-28" } });
say(
  `Connected to MCP server "bistro": book_table on ${legacy.protocolVersion} (pushes elicitation/create), pay_deposit on ${modern.protocolVersion} (input-required rounds).`,
);
const executors: ExecutorSource = {
  executorFor: (call, config) =>
    (call.name === "pay_deposit" ? modern : legacy).executorFor(call, config),
};

const store = new FileConversationStore(out ?? join(process.cwd(), ".jp/conversations"));
const conversation = store.create({ title: "Book a table over MCP" });
const { stream } = conversation;
// The server's tools run without a permission prompt, so the questions are the server's own.
const tools: ToolsConfig = { "*": { run: "unattended" } };
const terminal = nonInteractive ? undefined : createTerminalPromptBackend();
const coordinator = new ToolCoordinator({
  stream,
  tools,
  executors,
  ...(terminal === undefined ? {} : { prompts: terminal }),
  nonInteractive,
});
// Required: a question the coordinator closes without an answer still reaches the server.
legacy.attach(coordinator);
modern.attach(coordinator);

// Ctrl+C outside a prompt cancels the run; every open question is still closed in the record.
const abort = new AbortController();
process.once("SIGINT", () => abort.abort());

const request = "Book a table for two at Bistro Nord on Friday, and hold it with the deposit.";
say(`\nYou: ${request}`);
stream.startTurn(request);
const turn = new TurnState();
for (let cycle = 0; cycle < 3 && !abort.signal.aborted; cycle++) {
  const step = scriptedStep(stream);
  stream.append(createEvent("chat_response", { message: step.message }));
  say(`\nAssistant (scripted): ${step.message}`);
  if (step.calls.length === 0) break;
  const result = await coordinator.run(step.calls, { turn, signal: abort.signal });
  for (const response of result.responses) say(`  ← ${response.content}`);
  if (result.endTurn) break;
}
terminal?.close();
await Promise.all([legacy.close(), modern.close()]);

const saved = await store.save(conversation);
if (saved.isErr()) {
  say(`Could not save the conversation: ${saved.error.message}`);
  process.exit(1);
}
console.log(`\n--- Transcript (${stream.length} events recorded) ---\n\n${transcript(stream)}\n`);
console.log(`Conversation written to ${join(store.root, conversation.name)}`);

/**
 * A deterministic stand-in for a model, so the example needs no API key: it books, pays the
 * deposit if a table was booked, then sums up, reading the results the coordinator recorded.
 */
function scriptedStep(stream: ConversationStream): {
  message: string;
  calls: readonly ToolCall[];
} {
  const booked = resultOf(stream, "call_book");
  if (booked === undefined) {
    return {
      message: "I'll book it; the restaurant will ask you a few things.",
      calls: [{ id: "call_book", name: "book_table", arguments: { date: "Friday", guests: 2 } }],
    };
  }
  const reference = /Reference (B-\d+)/.exec(booked)?.[1];
  if (reference === undefined) return { message: "No table was booked.", calls: [] };
  const deposit = resultOf(stream, "call_deposit");
  if (deposit === undefined) {
    return {
      message: `Booked (${reference}). Now the deposit that holds it.`,
      calls: [{ id: "call_deposit", name: "pay_deposit", arguments: { reference } }],
    };
  }
  return deposit.startsWith("Paid")
    ? { message: `Done: the table is booked (${reference}) and the deposit paid.`, calls: [] }
    : { message: `The table is booked (${reference}); no deposit was paid.`, calls: [] };
}

function resultOf(stream: ConversationStream, id: string): string | undefined {
  const response = stream.events.find((e) => e.type === "tool_call_response" && e.id === id);
  return response === undefined ? undefined : (response as { content: string }).content;
}
