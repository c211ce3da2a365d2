// Which 2025-era clients are sent forms: a client declaring `elicitation: {}` (as clients of
// 2025-06-18 do, and which later revisions read as forms only) takes them; one that declares URL
// mode only, or no elicitation at all, does not, and the model is told so.
import { type BuiltinTool, builtinExecutor } from "@jp/coordinator";
import { Client, InMemoryTransport } from "@modelcontextprotocol/client";
import type { McpServer } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import { createMcpToolServer } from "../../src/index.js";

const confirm: BuiltinTool = {
  execute({ answers }) {
    if (answers.go === undefined) {
      return {
        type: "needs_input",
        question: { id: "go", text: "Go ahead?", answer_type: { type: "boolean" } },
      };
    }
    return { type: "success", content: `go: ${String(answers.go)}` };
  },
};

async function callWith(capabilities: Record<string, unknown>) {
  const factory = createMcpToolServer({
    name: "s",
    version: "1",
    tools: { confirm: { description: "asks once", executor: builtinExecutor("confirm", confirm) } },
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const server = (await factory({ era: "legacy" } as never)) as McpServer;
  await server.connect(serverSide);
  const client = new Client(
    { name: "bare", version: "1" },
    { capabilities: capabilities as never },
  );
  const asked: unknown[] = [];
  if (capabilities.elicitation !== undefined) {
    client.setRequestHandler("elicitation/create", async (request) => {
      asked.push(request.params);
      // Yes to the form's one field, whatever the server named it.
      const schema = (request.params as { requestedSchema?: { properties?: object } })
        .requestedSchema;
      const [field = "go"] = Object.keys(schema?.properties ?? {});
      return { action: "accept", content: { [field]: true } };
    });
  }
  await client.connect(clientSide);
  try {
    const result = await client.callTool({ name: "confirm", arguments: {} });
    const text = (result.content as { type: string; text: string }[])[0]?.text;
    return { text, isError: result.isError === true, asked: asked.length };
  } finally {
    await client.close();
  }
}

// A client of 2025-06-18 written without this SDK: it sends `elicitation: {}` as it is, and
// answers the form's one field with yes.
async function rawClientCall(): Promise<{ text: string | undefined; isError: boolean }> {
  const factory = createMcpToolServer({
    name: "s",
    version: "1",
    tools: { confirm: { description: "asks once", executor: builtinExecutor("confirm", confirm) } },
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const server = (await factory({ era: "legacy" } as never)) as McpServer;
  await server.connect(serverSide);
  type Message = {
    id?: number;
    method?: string;
    params?: { requestedSchema?: { properties?: object } };
    result?: { content: { text: string }[]; isError?: boolean };
  };
  const result = new Promise<Message["result"]>((resolve) => {
    clientSide.onmessage = (raw) => {
      const message = raw as Message;
      if (message.method === "elicitation/create") {
        const [field = "go"] = Object.keys(message.params?.requestedSchema?.properties ?? {});
        void clientSide.send({
          jsonrpc: "2.0",
          id: message.id as number,
          result: { action: "accept", content: { [field]: true } },
        } as never);
      } else if (message.id === 2) resolve(message.result);
      else if (message.id === 1) {
        void clientSide
          .send({ jsonrpc: "2.0", method: "notifications/initialized" } as never)
          .then(() =>
            clientSide.send({
              jsonrpc: "2.0",
              id: 2,
              method: "tools/call",
              params: { name: "confirm", arguments: {} },
            } as never),
          );
      }
    };
  });
  await clientSide.start();
  await clientSide.send({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: { elicitation: {} },
      clientInfo: { name: "raw", version: "1" },
    },
  } as never);
  const answered = await result;
  await clientSide.close();
  return { text: answered?.content[0]?.text, isError: answered?.isError === true };
}

describe("forms for 2025-era clients, by what they declare", () => {
  it("a client of 2025-06-18 declaring elicitation: {} is asked", async () => {
    expect(await rawClientCall()).toEqual({ text: "go: true", isError: false });
  });

  it.each([
    ["elicitation: {}", { elicitation: {} }],
    ["elicitation: { form: {} }", { elicitation: { form: {} } }],
    ["elicitation: { form: {}, url: {} }", { elicitation: { form: {}, url: {} } }],
  ])("a client declaring %s is asked", async (_, capabilities) => {
    expect(await callWith(capabilities)).toEqual({ text: "go: true", isError: false, asked: 1 });
  });

  it("a client declaring URL mode only is not sent a form; the model is told", async () => {
    const outcome = await callWith({ elicitation: { url: {} } });
    expect(outcome.asked).toBe(0);
    expect(outcome.isError).toBe(true);
    expect(outcome.text).toContain("does not take MCP form elicitations");
  });
});
