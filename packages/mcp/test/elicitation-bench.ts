// Elicitation round-trips per second, in one process over the SDK's in-memory pair (2025 era):
// a bare SDK client answering with a constant, against this package's connection running the
// same tool through the coordinator (every question routed and recorded; a mock person).
// Run: node --conditions=@jp/source --import tsx packages/mcp/test/elicitation-bench.ts
import { ConversationStream } from "@jp/conversation";
import { type QuestionReply, ToolCoordinator, TurnState } from "@jp/coordinator";
import { MockPromptBackend } from "@jp/coordinator/testing";
import { Client, InMemoryTransport } from "@modelcontextprotocol/client";
import { McpServer, type ServerContext } from "@modelcontextprotocol/server";
import { connectMcpServer } from "../src/index.js";

const schema = {
  type: "object",
  properties: { name: { type: "string" } },
  required: ["name"],
} as const;

function server(): McpServer {
  const mcp = new McpServer({ name: "bench", version: "1" });
  mcp.registerTool("ask", { description: "asks once" }, async (ctx: ServerContext) => {
    const reply = await ctx.mcpReq.elicitInput({
      mode: "form",
      message: "Name?",
      requestedSchema: schema as never,
    });
    return { content: [{ type: "text", text: reply.action }] };
  });
  return mcp;
}

async function bare(n: number): Promise<number> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server().connect(serverSide);
  const client = new Client(
    { name: "bare", version: "1" },
    { capabilities: { elicitation: { form: {} } } },
  );
  client.setRequestHandler("elicitation/create", async () => ({
    action: "accept",
    content: { name: "x" },
  }));
  await client.connect(clientSide);
  const start = performance.now();
  for (let i = 0; i < n; i++) await client.callTool({ name: "ask", arguments: {} });
  const ms = performance.now() - start;
  await client.close();
  return ms;
}

async function coordinated(n: number): Promise<number> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server().connect(serverSide);
  const connection = (
    await connectMcpServer({ name: "bench", transport: clientSide })
  )._unsafeUnwrap();
  const replies: QuestionReply[] = [];
  for (let i = 0; i < n; i++)
    replies.push({ type: "answer", value: "accept" }, { type: "answer", value: "x" });
  const human = new MockPromptBackend({ questions: replies });
  const stream = ConversationStream.empty();
  stream.startTurn("bench");
  const coordinator = new ToolCoordinator({
    stream,
    tools: { "*": { run: "unattended" } },
    executors: connection,
    prompts: human,
  });
  connection.attach(coordinator);
  const start = performance.now();
  for (let i = 0; i < n; i++) {
    // One turn per call, as a host records one turn per user message.
    stream.startTurn("again");
    await coordinator.run([{ id: `c${i}`, name: "ask", arguments: {} }], { turn: new TurnState() });
  }
  const ms = performance.now() - start;
  await connection.close();
  return ms;
}

const n = Number(process.argv[2] ?? 1000);
const rounds = Number(process.argv[3] ?? 7);
await bare(200);
await coordinated(200);
// Interleaved rounds and medians: the machine is shared, single runs are noisy.
const bareMs: number[] = [];
const ourMs: number[] = [];
for (let round = 0; round < rounds; round++) {
  bareMs.push(await bare(n));
  ourMs.push(await coordinated(n));
}
const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
const [b, o] = [median(bareMs), median(ourMs)];
const perSecond = (ms: number) => Math.round((n / ms) * 1000);
console.log(
  `bare SDK client:         ${perSecond(b)} elicitations/s (${(b / n).toFixed(3)} ms each)`,
);
console.log(
  `through the coordinator: ${perSecond(o)} elicitations/s (${(o / n).toFixed(3)} ms each)`,
);
console.log(
  `ratio: ${(o / b).toFixed(2)}× the bare client's cost (goal ≤ 1.5×), median of ${rounds} rounds of ${n}`,
);
