// A secret travels only by a page the person opens (URL mode). After the person opens it, the
// server waits while the person uses the page: that time is the person's, not the server's.
import { ConversationStream, type ToolCallResponse } from "@jp/conversation";
import { type BuiltinTool, builtinExecutor, ToolCoordinator, TurnState } from "@jp/coordinator";
import { MockPromptBackend } from "@jp/coordinator/testing";
import { InMemoryTransport } from "@modelcontextprotocol/client";
import { fromJsonSchema, McpServer } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import { connectMcpServer, createMcpToolServer, type SecretPage } from "../../src/index.js";
import { servedInProcess } from "../support.js";

// A tool of ours served over MCP whose secret question goes by URL: the person takes `typingMs`
// on the page before the answer reaches the server.
const login: BuiltinTool = {
  execute({ answers }) {
    if (typeof answers.token !== "string") {
      return {
        type: "needs_input",
        question: { id: "token", text: "Token?", answer_type: { type: "secret" } },
      };
    }
    return { type: "success", content: `signed in (${answers.token.length} characters)` };
  },
};

let pagesMade = 0;

function pageTakes(typingMs: number): SecretPage {
  return {
    async begin() {
      pagesMade += 1;
      const answer = new Promise<string>((done) => setTimeout(() => done("s3cr3t"), typingMs));
      return { url: "https://secrets.example.com/p", answer };
    },
  };
}

async function signIn(
  era: "2025-11-25" | "2026-07-28",
  limits: { serverTimeoutMs: number; pageTimeoutMs?: number },
  typingMs: number,
  client: { opensUrls: boolean } = { opensUrls: true },
): Promise<ToolCallResponse | undefined> {
  const factory = createMcpToolServer({
    name: "keys",
    version: "1",
    tools: { login: { description: "signs in", executor: builtinExecutor("login", login) } },
    secretPage: pageTakes(typingMs),
  });
  const { connection, close } = await servedInProcess(era, factory, {
    ...(client.opensUrls ? { openUrl: () => {} } : {}),
    ...limits,
  });
  try {
    const stream = ConversationStream.empty();
    stream.startTurn("Sign in.");
    const coordinator = new ToolCoordinator({
      stream,
      tools: { "*": { run: "unattended" } },
      executors: connection,
      prompts: new MockPromptBackend({ questions: [{ type: "answer", value: "open" }] }),
    });
    connection.attach(coordinator);
    const { responses } = await coordinator.run([{ id: "c1", name: "login", arguments: {} }], {
      turn: new TurnState(),
    });
    return responses[0];
  } finally {
    await close();
  }
}

describe.each(["2025-11-25", "2026-07-28"] as const)("on %s", (era) => {
  it("the time the person spends on an opened page does not count as the server's", async () => {
    const response = await signIn(era, { serverTimeoutMs: 200 }, 600);
    expect(response).toMatchObject({ content: "signed in (6 characters)", is_error: false });
  });

  it("a client that takes no URL elicitations gets an error the model can act on, and no page is made", async () => {
    pagesMade = 0;
    const response = await signIn(era, { serverTimeoutMs: 1_000 }, 0, { opensUrls: false });
    expect(response).toMatchObject({
      is_error: true,
      content:
        'Question "token" asks for a secret. MCP does not allow secrets in a form, and this client ' +
        "cannot open a page to collect it (it does not take URL elicitations); ask for it another " +
        "way or do without it.",
    });
    expect(pagesMade).toBe(0);
  });

  it("the page has its own allowance (pageTimeoutMs), and the failure names it", async () => {
    const response = await signIn(era, { serverTimeoutMs: 100, pageTimeoutMs: 300 }, 1_500);
    expect(response?.is_error).toBe(true);
    expect(response?.content).toContain("did not answer within 0.3 s");
  });
});

describe("on 2025-11-25, a page and a form asked at once", () => {
  it("the page allowance holds while the opened page waits, whichever request is answered last", async () => {
    const server = new McpServer({ name: "both", version: "1" });
    server.registerTool(
      "both",
      { description: "a page and a form", inputSchema: fromJsonSchema({ type: "object" }) },
      async (_args, ctx) => {
        const [page, form] = await Promise.all([
          ctx.mcpReq.elicitInput(
            {
              mode: "url",
              message: "Sign in",
              url: "https://auth.example.com/",
              elicitationId: "p",
            },
            { timeout: 60_000 },
          ),
          ctx.mcpReq.elicitInput(
            {
              mode: "form",
              message: "Name?",
              requestedSchema: { type: "object", properties: { name: { type: "string" } } },
            } as never,
            { timeout: 60_000 },
          ),
        ]);
        // The person is on the page: the server waits for it longer than its working limit.
        await new Promise((done) => setTimeout(done, 400));
        return { content: [{ type: "text", text: `${page.action} ${form.action}` }] };
      },
    );
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const connection = (
      await connectMcpServer({
        name: "both",
        transport: clientSide,
        openUrl: () => {},
        serverTimeoutMs: 100,
        pageTimeoutMs: 5_000,
      })
    )._unsafeUnwrap();
    try {
      const stream = ConversationStream.empty();
      stream.startTurn("Both.");
      const coordinator = new ToolCoordinator({
        stream,
        tools: { "*": { run: "unattended" } },
        executors: connection,
        prompts: new MockPromptBackend({
          questions: [
            { type: "answer", value: "open" },
            { type: "answer", value: "accept" },
            { type: "answer", value: "Ada" },
          ],
        }),
      });
      connection.attach(coordinator);
      const { responses } = await coordinator.run([{ id: "c1", name: "both", arguments: {} }], {
        turn: new TurnState(),
      });
      expect(responses[0]).toMatchObject({ content: "accept accept", is_error: false });
    } finally {
      await connection.close();
    }
  });
});
