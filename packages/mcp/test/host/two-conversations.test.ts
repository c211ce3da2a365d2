// A tool call's id is unique only within its conversation: two conversations on one connection
// may each run a call `call_1` (a test suite's mock model does), live or suspended, and neither
// call may take the other's answers, state or record.
import type { JsonValue } from "@jp/conversation";
import { ConversationStream } from "@jp/conversation";
import { answerPendingPrompt, ToolCoordinator, TurnState } from "@jp/coordinator";
import { MockPromptBackend } from "@jp/coordinator/testing";
import { InMemoryTransport, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createMcpHandler } from "@modelcontextprotocol/server";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { connectMcpServer, type McpConnection } from "../../src/index.js";
import { createElicitServer } from "../fixtures/elicit-tools.js";
import {
  attachedCoordinator,
  elicitLog,
  inquiries,
  responseOf,
  run,
  UNATTENDED,
  unpaired,
} from "../support.js";

const answer = (value: JsonValue) => ({ type: "answer", value }) as const;
const after = (ms: number, value: JsonValue) => async () => {
  await new Promise((resolve) => setTimeout(resolve, ms));
  return answer(value);
};
const log = elicitLog();
const handler = createMcpHandler(({ era }) => createElicitServer(era));

async function connectTo(era: "2025-11-25" | "2026-07-28"): Promise<McpConnection> {
  if (era === "2025-11-25") {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await createElicitServer("legacy").connect(serverSide);
    return (await connectMcpServer({ name: "memory", transport: clientSide }))._unsafeUnwrap();
  }
  const transport = new StreamableHTTPClientTransport(new URL("http://test.local/mcp"), {
    fetch: (url, init) => handler.fetch(new Request(url, init)),
  });
  return (
    await connectMcpServer({
      name: "web",
      transport,
      versionNegotiation: { mode: { pin: "2026-07-28" } },
    })
  )._unsafeUnwrap();
}

beforeAll(() => {
  process.env.ELICIT_LOG = log.path;
});
afterEach(() => log.clear());
afterAll(async () => {
  await handler.close();
  delete process.env.ELICIT_LOG;
  log.remove();
});

const contactOf = (name: string) => [
  answer("accept"),
  answer(name),
  answer(`${name.toLowerCase()}@example.com`),
  answer(40),
];

describe.each(["2025-11-25", "2026-07-28"] as const)("two conversations on %s", (era) => {
  let connection: McpConnection;
  beforeAll(async () => {
    connection = await connectTo(era);
  });
  afterAll(() => connection.close());

  it("run calls of the same id at once; each person's answers reach their own call", async () => {
    // The first person is slower: the second conversation's call starts while the first waits.
    const [slow, ...rest] = contactOf("Ada");
    const first = run(connection, [{ id: "call_1", name: "contact" }], {
      prompts: new MockPromptBackend({ questions: [after(50, slow?.value ?? null), ...rest] }),
    });
    const second = run(connection, [{ id: "call_1", name: "contact" }], {
      prompts: new MockPromptBackend({ questions: contactOf("Bob") }),
    });
    const [a, b] = await Promise.all([first, second]);
    expect(JSON.parse(responseOf(a.stream, "call_1").content)).toMatchObject({
      action: "accept",
      content: { name: "Ada", email: "ada@example.com" },
    });
    expect(JSON.parse(responseOf(b.stream, "call_1").content)).toMatchObject({
      action: "accept",
      content: { name: "Bob", email: "bob@example.com" },
    });
    expect(inquiries(a.stream).map(([, value]) => value)).toEqual([
      "accept",
      "Ada",
      "ada@example.com",
      40,
    ]);
    expect(unpaired(a.stream)).toEqual([]);
    expect(unpaired(b.stream)).toEqual([]);
  });

  it("suspended in both and answered apart, each call resumes from its own conversation's record", async () => {
    const conversations = ["Ada", "Bob"].map((name) => ({
      name,
      ...attachedCoordinator(connection),
    }));
    let results = await Promise.all(
      conversations.map(({ coordinator }) =>
        coordinator.run([{ id: "call_1", name: "contact", arguments: {} }], {
          turn: new TurnState(),
        }),
      ),
    );
    for (let round = 0; results.some((r) => r.pending.length > 0) && round < 6; round++) {
      for (const [i, { name, stream }] of conversations.entries()) {
        for (const { prompt_id: id, request } of results[i]?.pending ?? []) {
          const field = request.kind === "question" ? request.question.id : "";
          const value: JsonValue =
            field === "respond"
              ? "accept"
              : field === "age"
                ? 40
                : field === "email"
                  ? `${name.toLowerCase()}@example.com`
                  : name;
          expect(answerPendingPrompt(stream, id, { type: "answer", value }).isOk()).toBe(true);
        }
      }
      results = await Promise.all(conversations.map(({ coordinator }) => coordinator.resume()));
    }
    for (const { name, stream } of conversations) {
      expect(JSON.parse(responseOf(stream, "call_1").content)).toMatchObject({
        action: "accept",
        content: { name, email: `${name.toLowerCase()}@example.com`, age: 40 },
      });
      expect(unpaired(stream)).toEqual([]);
    }
  });
});

it("a pass from an input that names no coordinator, with two attached, is refused with why", async () => {
  const connection = await connectTo("2025-11-25");
  const stream = ConversationStream.empty();
  const coordinators = [0, 1].map(
    () => new ToolCoordinator({ stream, tools: UNATTENDED, executors: connection }),
  );
  for (const coordinator of coordinators) connection.attach(coordinator);
  const executor = connection.executorFor({ id: "c", name: "contact", arguments: {} }, {} as never);
  await expect(
    executor?.execute({
      call: { id: "c", name: "contact", arguments: {} },
      answers: {},
      signal: new AbortController().signal,
    }),
  ).rejects.toThrow(/attached to several coordinators.*ExecuteInput\.coordinator/);
  await connection.close();
});
