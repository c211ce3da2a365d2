// A 2026-07-28 server written without the SDK's server side: each `tools/call` is answered by a
// script, as a hostile or broken server would answer it. Everything else is the SDK's server.
import type { JsonObject } from "@jp/conversation";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createMcpHandler, fromJsonSchema, McpServer } from "@modelcontextprotocol/server";
import {
  connectMcpServer,
  type McpConnection,
  type McpServerOptions,
  type RefusedElicitation,
} from "../src/index.js";

/**
 * What the script answers one `tools/call` with: a result, a JSON-RPC error, or the result's JSON
 * text as written (for JSON no object of this process can be written as, such as deep nesting).
 */
export type Scripted =
  | { readonly result: unknown }
  | { readonly error: JsonObject }
  | { readonly resultText: string };

/** One `tools/call` the server got: its params, as sent. */
export type CallParams = JsonObject;

/**
 * Connects to a server named "s" with one tool "t", whose `tools/call` requests `script` answers
 * (given the params and how many calls came before). Returns the connection, the params of every
 * call, the refusals told to `onRefused`, and `close`.
 */
export async function scriptedServer(
  script: (params: CallParams, index: number) => Scripted,
  options: Omit<McpServerOptions, "name" | "transport"> = {},
  /** The `tools/list` result's JSON text, as written; the SDK server's list when absent. */
  toolsText?: string,
): Promise<{
  connection: McpConnection;
  calls: CallParams[];
  refused: RefusedElicitation[];
  close: () => Promise<void>;
}> {
  const handler = createMcpHandler(() => {
    const server = new McpServer({ name: "s", version: "1" });
    server.registerTool(
      "t",
      { description: "scripted", inputSchema: fromJsonSchema({ type: "object" }) },
      async () => ({ content: [] }),
    );
    return server;
  });
  const calls: CallParams[] = [];
  const refused: RefusedElicitation[] = [];
  const fetch = async (url: string | URL, init?: RequestInit): Promise<Response> => {
    const body = typeof init?.body === "string" ? (JSON.parse(init.body) as JsonObject) : {};
    if (body.method === "tools/list" && toolsText !== undefined) {
      const text = `{"jsonrpc":"2.0","id":${JSON.stringify(body.id)},"result":${toolsText}}`;
      return new Response(text, { headers: { "content-type": "application/json" } });
    }
    if (body.method !== "tools/call") return handler.fetch(new Request(url, init));
    const params = (body.params ?? {}) as JsonObject;
    calls.push(params);
    const answer = script(params, calls.length - 1);
    if ("resultText" in answer) {
      const text = `{"jsonrpc":"2.0","id":${JSON.stringify(body.id)},"result":${answer.resultText}}`;
      return new Response(text, { headers: { "content-type": "application/json" } });
    }
    return Response.json({ jsonrpc: "2.0", id: body.id, ...answer });
  };
  const connected = await connectMcpServer({
    name: "s",
    onRefused: (event) => refused.push(event),
    transport: new StreamableHTTPClientTransport(new URL("http://s.test/mcp"), { fetch }),
    versionNegotiation: { mode: { pin: "2026-07-28" } },
    ...options,
  });
  if (connected.isErr()) {
    await handler.close();
    throw new Error(connected.error.message);
  }
  const connection = connected.value;
  return {
    connection,
    calls,
    refused,
    close: async () => {
      await connection.close();
      await handler.close();
    },
  };
}

/** One form request asking for `name`. */
export const FORM_REQUEST = {
  method: "elicitation/create",
  params: {
    mode: "form",
    message: "Who?",
    requestedSchema: {
      type: "object",
      properties: { name: { type: "string" } },
      required: ["name"],
    },
  },
} as const satisfies JsonObject;

/** An input-required result of {@link FORM_REQUEST} under "k". */
export function formRound(extra: JsonObject = {}, params: JsonObject = {}): JsonObject {
  return {
    resultType: "input_required",
    requestState: "s1",
    inputRequests: {
      k: { ...FORM_REQUEST, params: { ...FORM_REQUEST.params, ...params } },
    },
    ...extra,
  };
}
