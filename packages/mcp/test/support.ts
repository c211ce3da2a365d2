// Shared helpers of the process tests: spawning fixture servers, running a coordinator, reading
// what was recorded. Assertions stay in the tests.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  ConversationStream,
  type InquiryRequest,
  type InquiryResponse,
  type JsonObject,
} from "@jp/conversation";
import { type PromptBackend, ToolCoordinator, type ToolsConfig, TurnState } from "@jp/coordinator";
import { InMemoryTransport, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { createMcpHandler, type McpServer } from "@modelcontextprotocol/server";
import {
  connectMcpServer,
  type createMcpToolServer,
  type McpConnection,
  type McpServerOptions,
} from "../src/index.js";

export const ERAS = [
  ["2025-11-25", undefined],
  ["2026-07-28", { mode: { pin: "2026-07-28" } }],
] as const satisfies readonly (readonly [string, McpServerOptions["versionNegotiation"]])[];

export type Era = (typeof ERAS)[number];

/** A stdio transport to a fixture script run with tsx, resolving workspace packages to source. */
export function fixtureTransport(
  script: string,
  env: Record<string, string> = {},
): StdioClientTransport {
  const path = fileURLToPath(new URL(`./fixtures/${script}`, import.meta.url));
  return new StdioClientTransport({
    command: process.execPath,
    args: ["--conditions=@jp/source", "--import", "tsx", path],
    env: { ...(process.env as Record<string, string>), ...env },
    stderr: "inherit",
  });
}

/** A file the fixture server appends each elicitation result to. */
export function elicitLog(): {
  path: string;
  read(): Record<string, unknown>[];
  clear(): void;
  remove(): void;
} {
  const dir = mkdtempSync(join(tmpdir(), "jp-mcp-"));
  const path = join(dir, "elicit.log");
  return {
    path,
    read: () => {
      try {
        return readFileSync(path, "utf8")
          .split("\n")
          .filter((line) => line !== "")
          .map((line) => JSON.parse(line) as Record<string, unknown>);
      } catch {
        return [];
      }
    },
    clear: () => rmSync(path, { force: true }),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

export async function connect(
  era: Era,
  options: Partial<McpServerOptions> & {
    readonly env?: Record<string, string>;
    readonly script?: string;
  } = {},
): Promise<McpConnection> {
  const { env, script, ...rest } = options;
  const connection = await connectMcpServer({
    name: "fixture",
    transport: fixtureTransport(script ?? "elicit-server.ts", env),
    ...(era[1] === undefined ? {} : { versionNegotiation: era[1] }),
    ...rest,
  });
  if (connection.isErr()) throw new Error(connection.error.message);
  return connection.value;
}

/** Every tool runs without a permission prompt. */
export const UNATTENDED: ToolsConfig = { "*": { run: "unattended" } };

export interface RunSetup {
  readonly prompts?: PromptBackend;
  readonly tools?: ToolsConfig;
  readonly promptTimeoutMs?: number;
  readonly signal?: AbortSignal;
  /** Attach the coordinator to the connection (default); false runs it unattached. */
  readonly attach?: boolean;
}

/** A person who leaves every question for later: the turn suspends at each. */
export const LATER: PromptBackend = {
  isHumanReachable: () => true,
  ask: async () => ({ type: "later" }) as never,
};

/**
 * A coordinator for `connection` recording in `stream` (default: a new conversation with one
 * turn), its questions going to `prompts` (default: {@link LATER}), attached with its
 * conversation unless `withStream` is false.
 */
export function attachedCoordinator(
  connection: McpConnection,
  options: {
    readonly prompts?: PromptBackend;
    readonly stream?: ConversationStream;
    readonly tools?: ToolsConfig;
    readonly withStream?: boolean;
  } = {},
) {
  const stream = options.stream ?? ConversationStream.empty();
  if (options.stream === undefined) stream.startTurn("Go.");
  const coordinator = new ToolCoordinator({
    stream,
    tools: options.tools ?? UNATTENDED,
    executors: connection,
    prompts: options.prompts ?? LATER,
  });
  const detach = connection.attach(coordinator, options.withStream === false ? {} : { stream });
  return { stream, coordinator, detach };
}

/** Runs tool calls through a fresh coordinator attached to `connection`. */
export async function run(
  connection: McpConnection,
  calls: readonly { id: string; name: string; arguments?: JsonObject }[],
  setup: RunSetup = {},
) {
  const stream = ConversationStream.empty();
  stream.startTurn("Go.");
  const coordinator = new ToolCoordinator({
    stream,
    tools: setup.tools ?? UNATTENDED,
    executors: connection,
    ...(setup.prompts === undefined ? {} : { prompts: setup.prompts }),
  });
  const detach = setup.attach === false ? () => {} : connection.attach(coordinator);
  try {
    const result = await coordinator.run(
      calls.map((call) => ({ id: call.id, name: call.name, arguments: call.arguments ?? {} })),
      {
        turn: new TurnState(),
        ...(setup.promptTimeoutMs === undefined ? {} : { promptTimeoutMs: setup.promptTimeoutMs }),
        ...(setup.signal === undefined ? {} : { signal: setup.signal }),
      },
    );
    return { stream, result, coordinator };
  } finally {
    detach();
  }
}

/** The recorded inquiries as `[id, outcome]` pairs, the outcome being the answer or the reason. */
export function inquiries(stream: ConversationStream): [string, unknown][] {
  const events = stream.events.filter(
    (e): e is InquiryRequest | InquiryResponse =>
      e.type === "inquiry_request" || e.type === "inquiry_response",
  );
  return events
    .filter((e): e is InquiryResponse => e.type === "inquiry_response")
    .map((e) => [
      e.id,
      e.outcome === "answered"
        ? e.answer
        : e.outcome === "cancelled"
          ? `cancelled:${e.reason}`
          : e.outcome,
    ]);
}

/** Every inquiry request has its response right after, and every tool call its response. */
export function unpaired(stream: ConversationStream): string[] {
  const problems: string[] = [];
  const open = new Map<string, string>();
  for (const event of stream.events) {
    const id = String((event as { id?: unknown }).id);
    if (event.type === "inquiry_request" || event.type === "tool_call_request")
      open.set(`${event.type}:${id}`, id);
    if (event.type === "inquiry_response") {
      if (!open.delete(`inquiry_request:${id}`)) problems.push(`response without request: ${id}`);
    }
    if (event.type === "tool_call_response") {
      if (!open.delete(`tool_call_request:${id}`))
        problems.push(`tool response without request: ${id}`);
    }
  }
  for (const key of open.keys()) problems.push(`left open: ${key}`);
  return problems;
}

/** The text of the recorded tool call response of `id`. */
export function responseOf(
  stream: ConversationStream,
  id: string,
): { content: string; is_error: boolean } {
  const response = stream.events.find((e) => e.type === "tool_call_response" && e.id === id) as
    | { content: string; is_error: boolean }
    | undefined;
  if (response === undefined) throw new Error(`no response for ${id}`);
  return { content: response.content, is_error: response.is_error };
}

/**
 * A connection to tools served by `createMcpToolServer` in this process, on `era`: an in-memory
 * pair for 2025-11-25, a handler called through `fetch` for 2026-07-28. `close` ends both sides.
 */
export async function servedInProcess(
  era: "2025-11-25" | "2026-07-28",
  factory: ReturnType<typeof createMcpToolServer>,
  options: Omit<McpServerOptions, "name" | "transport"> = {},
): Promise<{ connection: McpConnection; close: () => Promise<void> }> {
  let transport: InMemoryTransport | StreamableHTTPClientTransport;
  let closeServer = async () => {};
  if (era === "2025-11-25") {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const server = (await factory({ era: "legacy" } as never)) as McpServer;
    await server.connect(serverSide);
    transport = clientSide;
  } else {
    const handler = createMcpHandler(factory);
    transport = new StreamableHTTPClientTransport(new URL("http://served.test/mcp"), {
      fetch: (url, init) => handler.fetch(new Request(url, init)),
    });
    closeServer = () => handler.close();
  }
  const connection = (
    await connectMcpServer({
      name: "served",
      transport,
      ...options,
      ...(era === "2026-07-28" ? { versionNegotiation: { mode: { pin: era } } } : {}),
    })
  )._unsafeUnwrap();
  return {
    connection,
    close: async () => {
      await connection.close();
      await closeServer();
    },
  };
}
