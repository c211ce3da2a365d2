// A 2026-07-28 round this client cannot take is refused before anyone is asked: the call fails
// saying why, and the host's log (onRefused) hears of it, as of any refused elicitation.
import type { JsonObject } from "@jp/conversation";
import { MockPromptBackend } from "@jp/coordinator/testing";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createMcpHandler, fromJsonSchema, McpServer } from "@modelcontextprotocol/server";
import { afterEach, expect, it } from "vitest";
import { connectMcpServer, type RefusedElicitation } from "../../src/index.js";
import { responseOf, run, unpaired } from "../support.js";

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

/**
 * A server whose tool answers with one round of `request`, under "k", as a server written
 * without the SDK's checks of what the client declared would; a client without `openUrl`.
 */
async function connect(request: unknown, refused: RefusedElicitation[]) {
  const handler = createMcpHandler(() => {
    const server = new McpServer({ name: "s", version: "1" });
    server.registerTool(
      "t",
      { description: "asks once", inputSchema: fromJsonSchema({ type: "object" }) },
      async () => ({ content: [] }),
    );
    return server;
  });
  open.push(handler);
  const fetch = async (url: string | URL, init?: RequestInit): Promise<Response> => {
    const body = typeof init?.body === "string" ? (JSON.parse(init.body) as JsonObject) : {};
    if (body.method !== "tools/call") return handler.fetch(new Request(url, init));
    const result = {
      resultType: "input_required",
      requestState: "s1",
      inputRequests: { k: request },
    };
    return Response.json({ jsonrpc: "2.0", id: body.id, result });
  };
  const connection = (
    await connectMcpServer({
      name: "s",
      onRefused: (event) => refused.push(event),
      transport: new StreamableHTTPClientTransport(new URL("http://s.test/mcp"), { fetch }),
      versionNegotiation: { mode: { pin: "2026-07-28" } },
    })
  )._unsafeUnwrap();
  open.push(connection);
  return connection;
}

it.each([
  [
    "a page, from a client that opens none",
    {
      method: "elicitation/create",
      params: { mode: "url", message: "Sign in", url: "https://auth.example/login" },
    },
    'it asked to open a URL under "k", which this client does not offer',
  ],
  [
    "a request other than an elicitation",
    { method: "roots/list", params: {} },
    'it asked for "roots/list" under "k", which this client does not offer',
  ],
])("%s: refused, nobody asked, the host's log told", async (_name, request, message) => {
  const refused: RefusedElicitation[] = [];
  const connection = await connect(request, refused);
  const person = new MockPromptBackend();
  const { stream } = await run(connection, [{ id: "c1", name: "t" }], { prompts: person });
  expect(person.requests).toEqual([]);
  expect(responseOf(stream, "c1")).toEqual({
    is_error: true,
    content: expect.stringContaining(message),
  });
  expect(refused).toEqual([{ server: "s", tool_call_id: "c1", message }]);
  expect(unpaired(stream)).toEqual([]);
});

// A method name longer than an error quotes, made of characters beyond U+FFFF: the cut keeps
// whole characters, so the text the model and the record get is valid in any JSON.
it.each([
  ["ends inside a character", 57],
  ["ends right after a character", 56],
])(
  "a long method name quoted in the refusal is cut at whole characters (the cut %s)",
  async (_name, ascii) => {
    const method = `${"m".repeat(ascii)}${"😀".repeat(40)}`;
    const refused: RefusedElicitation[] = [];
    const connection = await connect({ method, params: {} }, refused);
    const { stream } = await run(connection, [{ id: "c1", name: "t" }], {
      prompts: new MockPromptBackend(),
    });
    const content = String(responseOf(stream, "c1")?.content);
    expect(content).toContain(`it asked for "${"m".repeat(ascii)}`);
    expect(content).toContain('… under "k"');
    // No lone half of a character (`\p{Cs}` matches only an unpaired one under the `u` flag).
    expect(content).not.toMatch(/\p{Cs}/u);
    expect(refused[0]?.message).not.toMatch(/\p{Cs}/u);
  },
);
