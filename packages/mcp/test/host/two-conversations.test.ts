// A tool call's id is unique only within its conversation: two conversations on one connection
// may each run a call `call_1` (a test suite's mock model does), live or suspended, and neither
// call may take the other's answers, state or record.
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import type { JsonValue } from "@jp/conversation";
import { ConversationStream } from "@jp/conversation";
import {
  answerPendingPrompt,
  combineExecutorSources,
  type ExecutorSource,
  type PromptBackend,
  ToolCoordinator,
  TurnState,
} from "@jp/coordinator";
import { MockExecutor, MockExecutorSource, MockPromptBackend } from "@jp/coordinator/testing";
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

  it("keeps no detached coordinator alive, even one that left a call suspended in memory", async () => {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    // In a function of its own, so that nothing here holds the coordinator once it returns.
    const suspendThenDetach = async () => {
      const { coordinator, detach } = attachedCoordinator(connection, { withStream: false });
      const { pending } = await coordinator.run([{ id: "g1", name: "contact", arguments: {} }], {
        turn: new TurnState(),
      });
      detach();
      return { pending: pending.length, gone: new WeakRef(coordinator) };
    };
    const { pending, gone } = await suspendThenDetach();
    expect(pending).toBe(1);
    for (let i = 0; i < 3; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      gc();
    }
    expect(gone.deref()).toBeUndefined();
  });

  it("a sub-agent's coordinator, not attached, that suspends: what the person does before its call runs again reaches the server as theirs", async () => {
    const parent = attachedCoordinator(connection);
    try {
      // Left for later at first; shown again when the turn resumes, and answered there.
      let asked = 0;
      const person: PromptBackend = {
        isHumanReachable: () => true,
        ask: async (request) => {
          asked += 1;
          if (asked === 1) return { type: "later" } as never;
          const id = request.kind === "question" ? request.question.id : "";
          const values: Record<string, JsonValue> = {
            respond: "accept",
            name: "Ada",
            email: "ada@example.com",
            age: 40,
          };
          return { type: "answer", value: values[id] ?? null } as never;
        },
      };
      const sub = attachedCoordinator(connection, { prompts: person, withStream: false });
      sub.detach(); // a sub-agent's coordinator is never attached
      const first = await sub.coordinator.run([{ id: "s1", name: "contact", arguments: {} }], {
        turn: new TurnState(),
      });
      expect(first.pending.map((p) => p.prompt_id)).toEqual(["s1.respond.1"]);
      // Attached and detached meanwhile: it stays followed while its call waits.
      connection.attach(sub.coordinator)();
      await sub.coordinator.resume();
      expect(JSON.parse(responseOf(sub.stream, "s1").content)).toMatchObject({ action: "accept" });
      await expect
        .poll(() => log.read().filter((entry) => entry.action === "accept"))
        .toEqual([expect.objectContaining({ _meta: { "jp.inquiry/decision": { by: "person" } } })]);
    } finally {
      parent.detach();
    }
  });

  it("another tool's call of the same id in the same run (a duplicate id) leaves the MCP call alone", async () => {
    const stream = ConversationStream.empty();
    stream.startTurn("Go.");
    const local = new MockExecutor(async () => ({ type: "success", content: "local done" }));
    const coordinator = new ToolCoordinator({
      stream,
      tools: UNATTENDED,
      executors: combineExecutorSources(new MockExecutorSource({ local }), connection),
      prompts: new MockPromptBackend({ questions: contactOf("Ada") }),
    });
    const detach = connection.attach(coordinator);
    try {
      const { responses } = await coordinator.run(
        [
          { id: "d", name: "local", arguments: {} },
          { id: "d", name: "contact", arguments: {} },
        ],
        { turn: new TurnState() },
      );
      expect(responses.map((r) => r.content)).toContain("local done");
      const mcp = responses.find((r) => r.content !== "local done");
      expect(JSON.parse(mcp?.content ?? "null")).toMatchObject({
        action: "accept",
        content: { name: "Ada", email: "ada@example.com", age: 40 },
      });
    } finally {
      detach();
    }
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

describe("conversations of other coordinators", () => {
  let connection: McpConnection;
  beforeAll(async () => {
    connection = await connectTo("2025-11-25");
  });
  afterAll(() => connection.close());

  // A sub-agent records in a conversation of its own, with its parent's executors, and is not
  // attached: the connection follows it while its calls run.
  it("a sub-agent's coordinator, not attached, runs the connection's tools as the person's", async () => {
    const { detach } = attachedCoordinator(connection);
    try {
      const { stream } = await run(connection, [{ id: "k1", name: "github" }], {
        attach: false,
        prompts: new MockPromptBackend({ questions: [answer("accept"), answer("octocat")] }),
      });
      // The server hears the person's answers as the person's.
      expect(JSON.parse(responseOf(stream, "k1").content)).toEqual([
        {
          action: "accept",
          content: { name: "octocat" },
          _meta: { "jp.inquiry/decision": { by: "person" } },
        },
      ]);
    } finally {
      detach();
    }
  });

  it("a sub-agent's question cancelled there ends its call and frees the connection's line", async () => {
    const { detach } = attachedCoordinator(connection);
    try {
      const sub = await run(connection, [{ id: "k2", name: "github" }], {
        attach: false,
        prompts: new MockPromptBackend({ questions: [{ type: "cancelled" }] }),
      });
      expect(inquiries(sub.stream)).toEqual([["k2.respond.1", "cancelled:user"]]);
      await expect
        .poll(() => log.read())
        .toEqual([
          {
            tool: "github",
            action: "cancel",
            _meta: { "jp.inquiry/decision": { by: "person", reason: "user" } },
          },
        ]);
      // The next call on the line (2025 calls run one at a time) is not held by it.
      const next = await run(connection, [{ id: "e1", name: "echo", arguments: { n: 2 } }]);
      expect(JSON.parse(responseOf(next.stream, "e1").content)).toEqual({ n: 2 });
    } finally {
      detach();
    }
  });

  it("a host's wrapper that rebuilds the input (no coordinator named): its call frees the line, tells the person's answers, and is left alone by another conversation's call of the same id", async () => {
    // The wrapper passes on only what ExecuteInput required before `coordinator` was added.
    const wrapped: ExecutorSource = {
      executorFor: (call, config) => {
        const executor = connection.executorFor(call, config);
        return (
          executor && {
            execute: ({ call, answers, signal }) => executor.execute({ call, answers, signal }),
          }
        );
      },
    };
    const stream = ConversationStream.empty();
    stream.startTurn("Go.");
    const runWith = (prompts: MockPromptBackend, id: string) => {
      const coordinator = new ToolCoordinator({
        stream,
        tools: UNATTENDED,
        executors: wrapped,
        prompts,
      });
      const detach = connection.attach(coordinator);
      return coordinator
        .run([{ id, name: "github", arguments: {} }], { turn: new TurnState() })
        .finally(detach);
    };
    await runWith(new MockPromptBackend({ questions: [{ type: "cancelled" }] }), "w1");
    // Meanwhile another conversation, attached as usual, has a call of the same id skipped by its
    // configuration: that ends its own call only.
    const other = (async () => {
      await new Promise((resolve) => setTimeout(resolve, 30));
      return run(connection, [{ id: "w2", name: "github" }], { tools: { "*": { run: "skip" } } });
    })();
    await runWith(new MockPromptBackend({ questions: [after(60, "accept"), answer("ada")] }), "w2");
    await other;
    // The cancelled call left the line: the next one ran, and the server heard the person.
    expect(JSON.parse(responseOf(stream, "w2").content)).toEqual([
      {
        action: "accept",
        content: { name: "ada" },
        _meta: { "jp.inquiry/decision": { by: "person" } },
      },
    ]);
  });

  it("attach refuses a stream other than the one its coordinator records in", () => {
    const { coordinator } = attachedCoordinator(connection, { withStream: false });
    const other = ConversationStream.empty();
    expect(() => connection.attach(coordinator, { stream: other })).toThrow(
      /not the conversation this coordinator records in/,
    );
  });
});
