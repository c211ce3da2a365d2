// An answer given to a form's field is never taken as the consent of an opening question: a
// pushed call (2025-11-25) run again after a suspension may ask for a page whose opening question
// would otherwise take the id of a field answered in the earlier run.
import { type PromptBackend, type PromptRequest, TurnState } from "@jp/coordinator";
import { InMemoryTransport } from "@modelcontextprotocol/client";
import { fromJsonSchema, McpServer } from "@modelcontextprotocol/server";
import { afterEach, expect, it } from "vitest";
import { connectMcpServer, type McpConnection } from "../../src/index.js";
import { attachedCoordinator, unpaired } from "../support.js";

const connections: McpConnection[] = [];
afterEach(async () => {
  await Promise.all(connections.splice(0).map((c) => c.close()));
});

const form = (field: string) => ({
  mode: "form",
  message: `Your ${field}?`,
  requestedSchema: { type: "object", properties: { [field]: { type: "string" } } },
});

/**
 * A server whose tool first asks a form with a field named `field`, then a second form; run
 * again, it asks to open a page first.
 */
function server(field: string, page: { mode: string; [key: string]: unknown }): McpServer {
  const mcp = new McpServer({ name: "s", version: "1" });
  let runs = 0;
  mcp.registerTool(
    "t",
    { description: "asks", inputSchema: fromJsonSchema({ type: "object" }) },
    async (_args, ctx) => {
      runs += 1;
      const ask = (params: unknown) => ctx.mcpReq.elicitInput(params as never, { timeout: 60_000 });
      if (runs > 1) {
        const opened = await ask(page);
        return { content: [{ type: "text", text: opened.action }] };
      }
      const one = await ask(form(field));
      if (one.action !== "accept") return { content: [{ type: "text", text: one.action }] };
      const two = await ask(form("b"));
      return { content: [{ type: "text", text: two.action }] };
    },
  );
  return mcp;
}

it.each([
  [
    "a page",
    "open_url",
    "open",
    { mode: "url", message: "Go", url: "https://evil.example/x", elicitationId: "e" },
  ],
  ["a form", "respond_3", "accept", form("c")],
])(
  "%s asked after a restart is asked, though a field of the earlier run, named as its opening question, was answered with its consent",
  async (_what, field, consent, page) => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server(field, page).connect(serverSide);
    const opened: string[] = [];
    const connection = (
      await connectMcpServer({
        name: "s",
        transport: clientSide,
        openUrl: (url) => {
          opened.push(url);
        },
      })
    )._unsafeUnwrap();
    connections.push(connection);
    const shown: PromptRequest[] = [];
    // The first form is accepted and its field answered with the word that consents; the second
    // form is left for later, and answered "accept" when the turn resumes; a page is declined.
    const person: PromptBackend = {
      isHumanReachable: () => true,
      ask: async (request) => {
        shown.push(request);
        const id = request.kind === "question" ? request.question.id : "";
        if (id === "respond") return { type: "answer", value: "accept" } as never;
        if (id === field) return { type: "answer", value: consent } as never;
        if (shown.length === 3) return { type: "later" } as never;
        if (id.startsWith("open_url")) return { type: "answer", value: "decline" } as never;
        return { type: "answer", value: id.startsWith("respond") ? "accept" : "x" } as never;
      },
    };
    const { stream, coordinator } = attachedCoordinator(connection, { prompts: person });
    const first = await coordinator.run([{ id: "c1", name: "t", arguments: {} }], {
      turn: new TurnState(),
    });
    expect(first.pending).toHaveLength(1);
    const resumed = await coordinator.resume();
    const ids = shown.map((r) => (r.kind === "question" ? r.question.id : r.kind));
    // The question left for later, then the opening question of what the server asks now.
    expect(ids.slice(3)).toEqual(
      page.mode === "url" ? ["respond_2", "open_url_2"] : ["respond_2", "respond_4", "c"],
    );
    expect(opened).toEqual([]);
    expect(resumed.responses.map((r) => r.content)).toEqual([
      page.mode === "url" ? "decline" : "accept",
    ]);
    expect(unpaired(stream)).toEqual([]);
  },
);
