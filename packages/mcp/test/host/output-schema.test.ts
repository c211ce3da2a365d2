// A tool's declared output schema holds its result to it on a 2025-era connection: a result that
// does not fit reaches the model as an error naming the mismatch, never as the tool's answer.
import { InMemoryTransport } from "@modelcontextprotocol/client";
import { fromJsonSchema, McpServer } from "@modelcontextprotocol/server";
import { afterAll, describe, expect, it } from "vitest";
import { connectMcpServer, type McpConnection } from "../../src/index.js";
import { responseOf, run } from "../support.js";

const connections: McpConnection[] = [];
afterAll(async () => {
  await Promise.all(connections.map((c) => c.close()));
});

const outputSchema = {
  type: "object",
  properties: { temperature: { type: "number" } },
  required: ["temperature"],
};

/**
 * A server whose tool `weather` declares an output schema and keeps to it; `broken()` makes its
 * next result break it on the way out, as a server with a bug would send it.
 */
async function connect(): Promise<{ connection: McpConnection; broken: () => void }> {
  const server = new McpServer({ name: "weather", version: "1" });
  server.registerTool(
    "weather",
    {
      description: "today's weather",
      inputSchema: fromJsonSchema({ type: "object" }),
      outputSchema: fromJsonSchema(outputSchema),
    },
    async () => ({
      content: [{ type: "text", text: '{"temperature":21.5}' }],
      structuredContent: { temperature: 21.5 },
    }),
  );
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  let breakNext = false;
  const send = serverSide.send.bind(serverSide);
  serverSide.send = (message, options) => {
    const result = (message as { result?: { structuredContent?: unknown } }).result;
    if (breakNext && result?.structuredContent !== undefined) {
      breakNext = false;
      result.structuredContent = { temperature: "warm" };
    }
    return send(message, options);
  };
  await server.connect(serverSide);
  const connection = (
    await connectMcpServer({ name: "weather", transport: clientSide })
  )._unsafeUnwrap();
  connections.push(connection);
  return { connection, broken: () => (breakNext = true) };
}

describe("a tool with an output schema", () => {
  it("gives the model a result that fits it, on every call", async () => {
    const { connection } = await connect();
    for (const id of ["w1", "w2"]) {
      const { stream } = await run(connection, [{ id, name: "weather" }]);
      expect(responseOf(stream, id)).toEqual({ content: '{"temperature":21.5}', is_error: false });
    }
  });

  it("gives the model an error naming the mismatch for a result that does not fit", async () => {
    const { connection, broken } = await connect();
    broken();
    const { stream } = await run(connection, [{ id: "b1", name: "weather" }]);
    const response = responseOf(stream, "b1");
    expect(response.is_error).toBe(true);
    expect(response.content).toContain("output schema");
    // The next call's result fits again.
    const again = await run(connection, [{ id: "b2", name: "weather" }]);
    expect(responseOf(again.stream, "b2").is_error).toBe(false);
  });
});
