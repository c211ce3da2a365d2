// The tools a server lists are given to a model as JSON: a definition that cannot be written so
// fails the connection, naming the tool, instead of the host's request to its model.
import { afterEach, expect, it } from "vitest";
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
