// The tools a server lists are given to a model as JSON: a definition that cannot be written so,
// or a list larger than a model should be given, fails the connection, naming the tool, instead
// of the host's request to its model.
import { InMemoryTransport } from "@modelcontextprotocol/client";
import { fromJsonSchema, McpServer } from "@modelcontextprotocol/server";
import { afterEach, describe, expect, it } from "vitest";
import { connectMcpServer } from "../../src/index.js";
import { scriptedServer } from "../scripted-server.js";

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

const listing = (schema: string) =>
  `{"resultType":"complete","ttlMs":0,"cacheScope":"private","tools":[{"name":"ok","inputSchema":{"type":"object"}},{"name":"deep","inputSchema":{"type":"object","properties":{"x":{"type":"string","default":${schema}}}}}]}`;
const nested = (depth: number) => `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;

it("a tool whose input schema is nested deeper than JSON can be written fails the connection, naming it", async () => {
  await expect(
    scriptedServer(() => ({ result: {} }), {}, listing(nested(200_000))),
  ).rejects.toThrow(
    'MCP server "s" offers a tool that cannot be given to a model: the input schema of its tool "deep" is nested too deeply to be written as JSON',
  );
});

it("a deep schema that JSON can still write connects, and its tools go to the model as given", async () => {
  const server = await scriptedServer(() => ({ result: {} }), {}, listing(nested(100)));
  open.push(server);
  expect(server.connection.tools.map((tool) => tool.name)).toEqual(["ok", "deep"]);
  expect(JSON.stringify(server.connection.tools)).toContain(nested(100));
});

/** A `tools/list` result listing `tools` (name and input schema, plus any field given). */
const listOf = (tools: readonly Record<string, unknown>[]) =>
  JSON.stringify({
    resultType: "complete",
    ttlMs: 0,
    cacheScope: "private",
    tools: tools.map((tool) => ({ inputSchema: { type: "object" }, ...tool })),
  });
const named = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `t${i}` }));

describe("what a server lists is bounded before a model is given it", () => {
  it("128 tools are taken; 129 fail the connection, saying how to take more", async () => {
    const at = await scriptedServer(() => ({ result: {} }), {}, listOf(named(128)));
    open.push(at);
    expect(at.connection.tools).toHaveLength(128);
    await expect(scriptedServer(() => ({ result: {} }), {}, listOf(named(129)))).rejects.toThrow(
      'MCP server "s" lists 129 tools; at most 128 are taken (maxTools)',
    );
  });

  it("maxTools sets the limit", async () => {
    const at = await scriptedServer(() => ({ result: {} }), { maxTools: 300 }, listOf(named(300)));
    open.push(at);
    expect(at.connection.tools).toHaveLength(300);
    await expect(
      scriptedServer(() => ({ result: {} }), { maxTools: 2 }, listOf(named(3))),
    ).rejects.toThrow('MCP server "s" lists 3 tools; at most 2 are taken (maxTools)');
  });

  it.each([
    ["", '"" is empty'],
    ["n".repeat(129), "is 129 characters long; at most 128 are taken"],
    ["run\u001b[2J", '"run\\u001b[2J" holds a space, a control or an invisible character'],
    [
      "safe\u202etxt.exe",
      '"safe\\u202etxt.exe" holds a space, a control or an invisible character',
    ],
    ["two words", '"two words" holds a space, a control or an invisible character'],
  ])("a tool named %j fails the connection, its name quoted inert", async (name, problem) => {
    const failed = scriptedServer(() => ({ result: {} }), {}, listOf([{ name }]));
    await expect(failed).rejects.toThrow(
      `MCP server "s" offers a tool whose name cannot be given to a model: `,
    );
    await expect(failed).rejects.toThrow(problem);
  });

  it("a name of 128 characters is taken", async () => {
    const server = await scriptedServer(
      () => ({ result: {} }),
      {},
      listOf([{ name: "n".repeat(128) }]),
    );
    open.push(server);
    expect(server.connection.tools.map((tool) => tool.name)).toEqual(["n".repeat(128)]);
  });

  it("two tools of one name fail the connection", async () => {
    await expect(
      scriptedServer(() => ({ result: {} }), {}, listOf([{ name: "a" }, { name: "a" }])),
    ).rejects.toThrow('MCP server "s" lists two tools named "a"');
  });

  it("an input schema over 64 KiB as JSON fails the connection, naming the tool", async () => {
    const schema = (bytes: number) => {
      const base = JSON.stringify({ type: "object", description: "" }).length;
      return { type: "object", description: "d".repeat(bytes - base) };
    };
    const at = await scriptedServer(
      () => ({ result: {} }),
      {},
      listOf([{ name: "big", inputSchema: schema(65_536) }]),
    );
    open.push(at);
    expect(at.connection.tools[0]?.parameters).toEqual(schema(65_536));
    await expect(
      scriptedServer(
        () => ({ result: {} }),
        {},
        listOf([{ name: "big", inputSchema: schema(65_537) }]),
      ),
    ).rejects.toThrow(
      'MCP server "s" offers a tool that cannot be given to a model: the input schema of its tool "big" takes 65537 bytes as JSON; at most 65536 are taken',
    );
  });

  it("a description over 8192 characters is cut, saying how long it was", async () => {
    const server = await scriptedServer(
      () => ({ result: {} }),
      {},
      listOf([
        { name: "a", description: "a".repeat(8192) },
        { name: "b", description: "b".repeat(100_000) },
      ]),
    );
    open.push(server);
    expect(server.connection.tools.map((tool) => tool.description)).toEqual([
      "a".repeat(8192),
      `${"b".repeat(8192)}… (cut: 100000 characters in all)`,
    ]);
  });
});

it("a server's error text when it cannot list its tools is cut and made inert in the connection's error", async () => {
  const server = new McpServer({ name: "p", version: "1" });
  server.registerTool(
    "t",
    { description: "d", inputSchema: fromJsonSchema({ type: "object" }) },
    async () => ({ content: [] }),
  );
  server.server.setRequestHandler("tools/list", () => {
    throw new Error(`no\u001b]52;c;ZXZpbA==\u0007 \u009b2J\n${"e".repeat(100_000)}`);
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  open.push(server);
  const connected = await connectMcpServer({ name: "p", transport: clientSide });
  expect(connected.isErr()).toBe(true);
  const message = connected.isErr() ? connected.error.message : "";
  expect(message).toBe(
    `could not connect to MCP server "p": no\\u001b]52;c;ZXZpbA==\\u0007 \\u009b2J\n${"e".repeat(2048 - 23)}… (cut: 100023 characters in all)`,
  );
});
