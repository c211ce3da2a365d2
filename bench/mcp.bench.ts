// Elicitation round trips over the MCP SDK's in-memory pair (2025 era), in fresh processes: a bare
// SDK client answering with a constant, against @jp/mcp's connection running the same tool
// through the coordinator (every question routed and recorded; a mock person answers at once).
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { ConversationStream } from "@jp/conversation";
import { type PromptBackend, ToolCoordinator, TurnState } from "@jp/coordinator";
import { connectMcpServer } from "@jp/mcp";
import { Client, InMemoryTransport } from "@modelcontextprotocol/client";
import { McpServer, type ServerContext } from "@modelcontextprotocol/server";
import { atMost, num, type Row } from "./report.js";
import { median } from "./stats.js";

const SUITE = "@jp/mcp";
/** Elicitations per timed sample, and samples per side (interleaved, medians kept). */
const PER_SAMPLE = 500;
const SAMPLES = 9;
const WARMUP_SAMPLES = 6;
/** Fresh processes, each comparing the two sides; the figure is the median of their ratios. */
const PROCESSES = 5;
/** Set in a comparison process's environment. */
const CHILD = "JP_BENCH_MCP_CHILD";

const schema = {
  type: "object",
  properties: { name: { type: "string" } },
  required: ["name"],
} as const;

/** An MCP server whose one tool asks one form question by `elicitation/create`. */
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

/** A side of the comparison: `run(n)` makes n tool calls of one elicitation each. */
interface Side {
  run(n: number): Promise<void>;
  close(): Promise<void>;
}

async function bareClient(): Promise<Side> {
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
  return {
    run: async (n) => {
      for (let i = 0; i < n; i++) await client.callTool({ name: "ask", arguments: {} });
    },
    close: () => client.close(),
  };
}

// The cheapest possible person: accepts the opening question and answers the field at once.
const person: PromptBackend = {
  isHumanReachable: () => true,
  ask: async (request) =>
    ({
      type: "answer",
      value: request.kind === "question" && request.question.id === "respond" ? "accept" : "x",
    }) as never,
};

async function throughCoordinator(): Promise<Side> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server().connect(serverSide);
  const connection = (
    await connectMcpServer({ name: "bench", transport: clientSide })
  )._unsafeUnwrap();
  return {
    // A conversation of n turns, one call each, as a host records one turn per user message; a
    // fresh one per sample, so that no sample pays for a conversation grown by the ones before.
    run: async (n) => {
      const stream = ConversationStream.empty();
      const coordinator = new ToolCoordinator({
        stream,
        tools: { "*": { run: "unattended" } },
        executors: connection,
        prompts: person,
      });
      const detach = connection.attach(coordinator);
      for (let i = 0; i < n; i++) {
        stream.startTurn("again");
        await coordinator.run([{ id: `c${i}`, name: "ask", arguments: {} }], {
          turn: new TurnState(),
        });
      }
      detach();
    },
    close: () => connection.close(),
  };
}

/** One process's medians: milliseconds of wall and CPU time per elicitation, each side. */
interface Comparison {
  readonly bareMs: number;
  readonly coordinatedMs: number;
  readonly bareCpuMs: number;
  readonly coordinatedCpuMs: number;
}

/** Both sides in this process, their samples interleaved. */
async function compare(): Promise<Comparison> {
  const bare = await bareClient();
  const ours = await throughCoordinator();
  try {
    // Warm-up: neither side may pay for compilation (the optimizing compiler needs thousands of
    // calls before either side's code settles).
    for (let i = 0; i < WARMUP_SAMPLES; i++) {
      await bare.run(PER_SAMPLE);
      await ours.run(PER_SAMPLE);
    }
    const wall: [number[], number[]] = [[], []];
    const cpu: [number[], number[]] = [[], []];
    // Interleaved samples: load on a shared machine weighs on both sides alike.
    for (let sample = 0; sample < SAMPLES; sample++) {
      for (const [i, side] of [bare, ours].entries()) {
        const start = performance.now();
        const used = process.cpuUsage();
        await side.run(PER_SAMPLE);
        const { user, system } = process.cpuUsage(used);
        wall[i]?.push((performance.now() - start) / PER_SAMPLE);
        cpu[i]?.push((user + system) / 1000 / PER_SAMPLE);
      }
    }
    return {
      bareMs: median(wall[0]),
      coordinatedMs: median(wall[1]),
      bareCpuMs: median(cpu[0]),
      coordinatedCpuMs: median(cpu[1]),
    };
  } finally {
    await Promise.all([bare.close(), ours.close()]);
  }
}

/** {@link compare} in a fresh process of its own. */
function compareInChild(): Promise<Comparison> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", fileURLToPath(import.meta.url)], {
      env: { ...process.env, [CHILD]: "1" },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => {
      if (code === 0) resolve(JSON.parse(out) as Comparison);
      else reject(new Error(`the MCP comparison process exited with ${code}`));
    });
  });
}

/**
 * Elicitation round trips through the coordinator against a bare SDK client. Each comparison
 * runs in a fresh process: on a shared machine a process's speed drifts by half or more from
 * one phase to the next, and the two sides, which allocate differently, do not drift alike, so
 * one process's ratio is one draw. The figure is the median of {@link PROCESSES} draws.
 */
export async function mcpBench(): Promise<Row[]> {
  const draws: Comparison[] = [];
  for (let i = 0; i < PROCESSES; i++) draws.push(await compareInChild());
  const ratios = draws.map((d) => d.coordinatedCpuMs / d.bareCpuMs);
  const ratio = median(ratios);
  const pick = (key: keyof Comparison) => median(draws.map((d) => d[key]));
  const [b, o, bCpu, oCpu] = [
    pick("bareMs"),
    pick("coordinatedMs"),
    pick("bareCpuMs"),
    pick("coordinatedCpuMs"),
  ];
  const sorted = [...ratios].sort((x, y) => x - y);
  // The transport delivers synchronously: every microsecond of a round trip is the process's
  // CPU, so CPU time is the cost compared, and wall time adds only the machine's other load.
  return [
    {
      id: "mcp.elicitation",
      suite: SUITE,
      title:
        "elicitation round trips (pushed form, one field), through the coordinator vs a bare SDK client answering with a constant",
      measured: `bare ${num(1000 / b)}/s (CPU ${num(bCpu * 1000)} µs each), through the coordinator ${num(1000 / o)}/s (CPU ${num(oCpu * 1000)} µs each): CPU ratio ${ratio.toFixed(2)}, median of ${PROCESSES} processes (${sorted.map((r) => r.toFixed(2)).join(", ")})`,
      values: {
        bareMs: b,
        coordinatedMs: o,
        bareCpuMs: bCpu,
        coordinatedCpuMs: oCpu,
        ratio,
        lowestRatio: sorted[0] ?? ratio,
        highestRatio: sorted.at(-1) ?? ratio,
      },
      goal: atMost(ratio, 1.5, "≤ 1.5× the bare client's CPU cost per elicitation"),
      notes: [
        `in each of ${PROCESSES} fresh processes, the medians of ${SAMPLES} samples of ${num(PER_SAMPLE)} calls per side, sides interleaved, after ${WARMUP_SAMPLES} warm-up samples; in-memory transport, 2025-11-25; each elicitation is two routed, recorded questions (accept or decline, then the field)`,
      ],
    },
  ];
}

if (process.env[CHILD] === "1") {
  process.stdout.write(JSON.stringify(await compare()));
  process.exit(0);
}
