// A 2026-07-28 round resumed from its record goes on where it stood: what the person already did
// in it (a page opened) is not done again.
import { type PromptBackend, TurnState } from "@jp/coordinator";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import {
  createMcpHandler,
  fromJsonSchema,
  inputRequired,
  McpServer,
  type ServerContext,
} from "@modelcontextprotocol/server";
import { afterEach, expect, it } from "vitest";
import { connectMcpServer } from "../../src/index.js";
import { attachedCoordinator, unpaired } from "../support.js";

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

/** One round: a page to open (`p`), then a form (`g`). */
const PAGE_THEN_FORM = () => ({
  p: inputRequired.elicitUrl({ message: "Sign in", url: "https://auth.example/login" }),
  g: inputRequired.elicit({
    message: "Where?",
    requestedSchema: {
      type: "object",
      properties: { city: { type: "string" } },
      required: ["city"],
    } as never,
  }),
});

/** A 2026-07-28 server (a new process each time) whose tool asks that round once. */
async function connect(opened: string[]) {
  const seen: unknown[] = [];
  const handler = createMcpHandler(() => {
    const server = new McpServer({ name: "s", version: "1" });
    server.registerTool(
      "t",
      { description: "asks once", inputSchema: fromJsonSchema({ type: "object" }) },
      async (_input: unknown, ctx: ServerContext) => {
        const responses = ctx.mcpReq.inputResponses;
        seen.push(responses ?? null);
        if (responses === undefined) {
          return inputRequired({ requestState: "s1", inputRequests: PAGE_THEN_FORM() });
        }
        return { content: [{ type: "text", text: "done" }] };
      },
    );
    return server;
  });
  open.push(handler);
  const connection = (
    await connectMcpServer({
      name: "s",
      openUrl: (url) => {
        opened.push(url);
      },
      transport: new StreamableHTTPClientTransport(new URL("http://s.test/mcp"), {
        fetch: (url, init) => handler.fetch(new Request(url, init)),
      }),
      versionNegotiation: { mode: { pin: "2026-07-28" } },
    })
  )._unsafeUnwrap();
  open.push(connection);
  return { connection, seen };
}

const answers = (values: Record<string, unknown>): PromptBackend => ({
  isHumanReachable: () => true,
  ask: async (request) => {
    const id = request.kind === "question" ? request.question.id : request.kind;
    return (
      Object.hasOwn(values, id) ? { type: "answer", value: values[id] } : { type: "later" }
    ) as never;
  },
});

it("a page opened before the turn suspended is not opened again when the round goes on elsewhere", async () => {
  const opened: string[] = [];
  const first = await connect(opened);
  const { stream, coordinator } = attachedCoordinator(first.connection, {
    prompts: answers({ open_url: "open" }),
  });
  const suspended = await coordinator.run([{ id: "c1", name: "t", arguments: {} }], {
    turn: new TurnState(),
  });
  expect(suspended.pending.map((p) => p.prompt_id)).toEqual(["c1.respond.1"]);
  expect(opened).toEqual(["https://auth.example/login"]);

  // Another process, a new server process: the form is answered, the round sent once.
  const later = await connect(opened);
  const again = attachedCoordinator(later.connection, {
    stream,
    prompts: answers({ respond: "accept", city: "Oslo" }),
  });
  const resumed = await again.coordinator.resume();
  expect(resumed.responses.map((r) => r.content)).toEqual(["done"]);
  expect(opened).toEqual(["https://auth.example/login"]);
  const person = { "jp.inquiry/decision": { by: "person" } };
  expect(later.seen).toEqual([
    {
      p: { action: "accept", _meta: person },
      g: { action: "accept", content: { city: "Oslo" }, _meta: person },
    },
  ]);
  expect(unpaired(stream)).toEqual([]);
});
