// The same fixture server in this process over the SDK's in-memory pair (2025 era): the form
// controls, configuration and failure paths, quickly.
import type { JsonValue } from "@jp/conversation";
import { ConversationStream } from "@jp/conversation";
import {
  answerPendingPrompt,
  type PromptBackend,
  type QuestionReply,
  ToolCoordinator,
  type ToolsConfig,
  TurnState,
} from "@jp/coordinator";
import { MockPromptBackend } from "@jp/coordinator/testing";
import { InMemoryTransport, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { createMcpHandler } from "@modelcontextprotocol/server";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { connectMcpServer, type McpConnection, type RefusedElicitation } from "../../src/index.js";
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

const answer = (value: JsonValue): QuestionReply => ({ type: "answer", value });
const log = elicitLog();
const servers: McpConnection[] = [];

async function inMemory(options: { prefix?: string } = {}): Promise<McpConnection> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createElicitServer("legacy").connect(serverSide);
  const connection = await connectMcpServer({ name: "memory", transport: clientSide, ...options });
  const value = connection._unsafeUnwrap();
  servers.push(value);
  return value;
}

beforeAll(() => {
  process.env.ELICIT_LOG = log.path;
});
afterEach(() => log.clear());
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  delete process.env.ELICIT_LOG;
  log.remove();
});

describe("form controls on a pushed elicitation", () => {
  let server: McpConnection;
  beforeAll(async () => {
    server = await inMemory();
  });

  it("Back re-asks the previous question with its answer pre-filled", async () => {
    const human = new MockPromptBackend({
      questions: [answer("accept"), { type: "back" }, answer("accept"), answer("octocat")],
    });
    const { stream } = await run(server, [{ id: "b1", name: "github" }], { prompts: human });
    expect(inquiries(stream)).toEqual([
      ["b1.respond.1", "accept"],
      ["b1.name.1", "cancelled:back"],
      ["b1.respond.2", "accept"],
      ["b1.name.2", "octocat"],
    ]);
    expect(human.questions[2]?.initial).toBe("accept");
    expect(log.read()).toEqual([
      expect.objectContaining({ action: "accept", content: { name: "octocat" } }),
    ]);
  });

  it("Reply is the person's decline; the model gets the person's words", async () => {
    const human = new MockPromptBackend({
      questions: [answer("accept"), { type: "reply", message: "use my work account instead" }],
    });
    const { stream } = await run(server, [{ id: "r1", name: "github" }], { prompts: human });
    expect(inquiries(stream)).toEqual([
      ["r1.respond.1", "accept"],
      ["r1.name.1", "cancelled:reply"],
    ]);
    expect(responseOf(stream, "r1").content).toContain("use my work account instead");
    await expect
      .poll(() => log.read())
      .toEqual([
        {
          tool: "github",
          action: "decline",
          _meta: { "jp.inquiry/decision": { by: "person", reason: "reply" } },
        },
      ]);
  });

  it("End Turn is the person's cancel and ends the turn", async () => {
    const human = new MockPromptBackend({ questions: [{ type: "end_turn" }] });
    const { stream, result } = await run(server, [{ id: "t1", name: "github" }], {
      prompts: human,
    });
    expect(result.endTurn).toBe(true);
    await expect
      .poll(() => log.read())
      .toEqual([
        {
          tool: "github",
          action: "cancel",
          _meta: { "jp.inquiry/decision": { by: "person", reason: "end_turn" } },
        },
      ]);
    expect(unpaired(stream)).toEqual([]);
  });

  it("a decline configured for the opening question is the host's, not the person's", async () => {
    const tools: ToolsConfig = {
      github: { run: "unattended", questions: { respond: { answer: "decline" } } },
    };
    const { stream } = await run(server, [{ id: "s1", name: "github" }], { tools });
    expect(inquiries(stream)).toEqual([["s1.respond.1", "decline"]]);
    expect(log.read()).toEqual([
      { tool: "github", action: "decline", _meta: { "jp.inquiry/decision": { by: "host" } } },
    ]);
  });

  it("a turn stopped while the server works cancels the call; nothing reads as the person's", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("shutting down")), 50);
    const { stream } = await run(server, [{ id: "x1", name: "slow" }], {
      signal: controller.signal,
    });
    expect(responseOf(stream, "x1").content).toContain("interrupted");
    expect(unpaired(stream)).toEqual([]);
  });

  it("a form the server withdraws is dropped: its other questions are never asked", async () => {
    const slowAccept = async () => {
      await new Promise((resolve) => setTimeout(resolve, 400));
      return answer("accept");
    };
    const human = new MockPromptBackend({
      questions: [slowAccept, answer("accept"), answer("octocat")],
    });
    const { stream } = await run(server, [{ id: "w1", name: "withdraws" }], { prompts: human });
    expect(inquiries(stream)).toEqual([
      ["w1.respond.1", "accept"],
      ["w1.respond_2.1", "accept"],
      ["w1.name_2.1", "octocat"],
    ]);
    expect(log.read()).toEqual([
      {
        tool: "withdraws",
        first: "withdrawn",
        second: {
          action: "accept",
          content: { name: "octocat" },
          _meta: { "jp.inquiry/decision": { by: "person" } },
        },
      },
    ]);
    expect(responseOf(stream, "w1").content).toBe('["withdrawn","accept"]');
  });

  it("a call stopped while it waits for the line lets the next in only once the one before left", async () => {
    const pause = () => new Promise((resolve) => setTimeout(resolve, 50));
    const holder = run(server, [{ id: "l1", name: "delayed" }], {
      prompts: new MockPromptBackend({ questions: [answer("accept"), answer("ada")] }),
    });
    await pause();
    const stop = new AbortController();
    const stopped = run(server, [{ id: "l2", name: "github" }], { signal: stop.signal });
    await pause();
    const next = run(server, [{ id: "l3", name: "github" }], {
      prompts: new MockPromptBackend({ questions: [answer("accept"), answer("octocat")] }),
    });
    await pause();
    stop.abort(new Error("stopped"));
    const [first, second, third] = await Promise.all([holder, stopped, next]);
    // The holder's question, asked 300 ms in, still reached the holder's person.
    expect(inquiries(first.stream)).toEqual([
      ["l1.respond.1", "accept"],
      ["l1.name.1", "ada"],
    ]);
    expect(responseOf(first.stream, "l1").content).toBe('"accept"');
    expect(inquiries(second.stream)).toEqual([]);
    expect(responseOf(third.stream, "l3").content).toContain("octocat");
    expect(log.read().map((entry) => [entry.tool, entry.content])).toEqual([
      ["delayed", { name: "ada" }],
      ["github", { name: "octocat" }],
    ]);
  });

  it("a person's reply that does not fit is asked again, not sent", async () => {
    const human = new MockPromptBackend({ questions: [answer("maybe"), answer("decline")] });
    const { stream } = await run(server, [{ id: "v1", name: "github" }], { prompts: human });
    expect(inquiries(stream)).toEqual([
      ["v1.respond.1", "cancelled:invalid_answer"],
      ["v1.respond.2", "decline"],
    ]);
    expect(log.read()).toHaveLength(1);
  });
});

describe("2026-07-28 in process, through the SDK's web handler", () => {
  const handler = createMcpHandler(({ era }) => createElicitServer(era));
  let server: McpConnection;
  beforeAll(async () => {
    const connection = await connectMcpServer({
      name: "web",
      transport: new StreamableHTTPClientTransport(new URL("http://test.local/mcp"), {
        fetch: (url, init) => handler.fetch(new Request(url, init)),
      }),
      versionNegotiation: { mode: { pin: "2026-07-28" } },
    });
    server = connection._unsafeUnwrap();
    servers.push(server);
  });
  afterAll(async () => {
    await server?.close();
    await handler.close();
  });

  it("answers an input-required round and retries with the responses", async () => {
    expect(server.protocolVersion).toBe("2026-07-28");
    const human = new MockPromptBackend({
      questions: [answer("accept"), answer("Ada"), answer("ada@example.com"), answer(null)],
    });
    const { stream } = await run(server, [{ id: "w1", name: "contact" }], { prompts: human });
    expect(JSON.parse(responseOf(stream, "w1").content)).toMatchObject({
      action: "accept",
      content: { name: "Ada", email: "ada@example.com" },
    });
    expect(inquiries(stream).at(-1)).toEqual(["w1.age.1", null]);
  });

  it.each([
    ["attached with the conversation (the round is in the call's record)", true],
    ["attached without it (the round is in memory)", false],
  ])(
    "a round whose question is cancelled while the turn is suspended reaches the server as the person's cancel, %s",
    async (_, withStream) => {
      const { stream, coordinator, detach } = attachedCoordinator(server, { withStream });
      try {
        const suspended = await coordinator.run([{ id: "w3", name: "contact", arguments: {} }], {
          turn: new TurnState(),
        });
        expect(suspended.pending.map((p) => p.prompt_id)).toEqual(["w3.respond.1"]);
        answerPendingPrompt(stream, "w3.respond.1", { type: "cancelled" });
        await coordinator.resume();
        expect(inquiries(stream)).toEqual([["w3.respond.1", "cancelled:user"]]);
        await expect
          .poll(() => log.read())
          .toEqual([
            {
              tool: "contact",
              action: "cancel",
              _meta: { "jp.inquiry/decision": { by: "person", reason: "user" } },
            },
          ]);
        // Nothing of the call is left in its record.
        const request = stream.events.find((e) => e.type === "tool_call_request") as {
          metadata?: Record<string, unknown>;
        };
        expect(request.metadata?.["jp.mcp/call"]).toBeUndefined();
      } finally {
        detach();
      }
    },
  );

  it("a round the coordinator gives up on (answers that keep failing their check) is told the host's cancel", async () => {
    const bogus: PromptBackend = {
      isHumanReachable: () => true,
      ask: async () => ({ type: "answer", value: "neither accept nor decline" }) as never,
    };
    const { stream } = await run(server, [{ id: "w4", name: "contact" }], { prompts: bogus });
    expect(inquiries(stream).map(([, outcome]) => outcome)).toEqual([
      "cancelled:invalid_answer",
      "cancelled:invalid_answer",
      "cancelled:invalid_answer",
    ]);
    await expect
      .poll(() => log.read())
      .toEqual([
        {
          tool: "contact",
          action: "cancel",
          _meta: { "jp.inquiry/decision": { by: "host", reason: "interrupted" } },
        },
      ]);
  });

  /** A new connection to the 2026-07-28 fixture server, closed after the file's tests. */
  async function freshConnection(
    options: { onRefused?: (e: RefusedElicitation) => void } = {},
    sent: string[] = [],
  ) {
    const fresh = (
      await connectMcpServer({
        name: "web",
        transport: new StreamableHTTPClientTransport(new URL("http://test.local/mcp"), {
          fetch: (url, init) => {
            if (typeof init?.body === "string") sent.push(init.body);
            return handler.fetch(new Request(url, init));
          },
        }),
        versionNegotiation: { mode: { pin: "2026-07-28" } },
        ...options,
      })
    )._unsafeUnwrap();
    servers.push(fresh);
    return fresh;
  }

  it("a round resumed on a fresh connection without its record fails saying why, and takes no recorded answer", async () => {
    const refused: RefusedElicitation[] = [];
    const fresh = await freshConnection({ onRefused: (event) => refused.push(event) });
    const coordinator = new ToolCoordinator({
      stream: ConversationStream.empty(),
      tools: {},
      executors: fresh,
    });
    fresh.attach(coordinator);
    const call = { id: "w2", name: "contact", arguments: {} };
    const executor = fresh.executorFor(call, {} as never);
    const signal = new AbortController().signal;
    // Answers recorded before a restart, without the call's record (attached without `stream`).
    const recorded = { respond: "accept", name: "Ada", email: "ada@example.com" };
    await expect(
      executor?.execute({ call, answers: recorded, signal, coordinator }),
    ).rejects.toThrow(
      'MCP server "web": tool call "w2" has answers from before a suspension but no record of its state; attach the coordinator with its conversation (attach(coordinator, { stream }))',
    );
    // The host's log hears of it too.
    expect(refused).toEqual([
      expect.objectContaining({
        server: "web",
        tool_call_id: "w2",
        message: expect.stringContaining("no record of its state"),
      }),
    ]);
    // A first pass (no answers yet) runs as usual.
    const first = await executor?.execute({
      call: { ...call, id: "w3" },
      answers: {},
      signal,
      coordinator,
    });
    expect(first).toMatchObject({ type: "needs_input", question: { id: "respond" } });
  });

  it("close() ends a round resumed from memory while it waits for the person", async () => {
    const sent: string[] = [];
    const fresh = await freshConnection({}, sent);
    let reopen = () => {};
    const closed = new Promise<void>((resolve) => {
      reopen = resolve;
    });
    let asked = 0;
    const person: PromptBackend = {
      isHumanReachable: () => true,
      ask: async () => {
        asked += 1;
        if (asked === 1) return { type: "later" } as never;
        if (asked === 2) return { type: "answer", value: "accept" } as never;
        await closed; // the person is still on the next question when the host closes
        return { type: "cancelled" } as never;
      },
    };
    const { coordinator } = attachedCoordinator(fresh, { prompts: person, withStream: false });
    const first = await coordinator.run([{ id: "r1", name: "contact", arguments: {} }], {
      turn: new TurnState(),
    });
    expect(first.pending.map((p) => p.prompt_id)).toEqual(["r1.respond.1"]);
    const resumed = coordinator.resume();
    await expect.poll(() => asked).toBe(3);
    await fresh.close();
    reopen();
    await resumed;
    // The round was sent once more, ended by the host: the server is not left waiting.
    const retries = sent.filter((body) => body.includes('"inputResponses"'));
    expect(retries.map((body) => JSON.parse(body).params.inputResponses)).toEqual([
      {
        contact: {
          action: "cancel",
          _meta: { "jp.inquiry/decision": { by: "host", reason: "interrupted" } },
        },
      },
    ]);
  });
});

describe("the connection", () => {
  it("a turn suspended at a pushed elicitation tells the server the host cancelled and frees the line", async () => {
    const server = await inMemory();
    const stream = ConversationStream.empty();
    stream.startTurn("Go.");
    const coordinator = new ToolCoordinator({ stream, tools: UNATTENDED, executors: server });
    server.attach(coordinator, { stream });
    const suspended = await coordinator.run([{ id: "s1", name: "github", arguments: {} }], {
      turn: new TurnState(),
      suspend: true,
    });
    expect(suspended.pending.map((prompt) => prompt.prompt_id)).toEqual(["s1.respond.1"]);
    await expect
      .poll(() => log.read())
      .toEqual([
        {
          tool: "github",
          action: "cancel",
          _meta: { "jp.inquiry/decision": { by: "host", reason: "suspended" } },
        },
      ]);
    // The next call on the same connection runs: the suspended one no longer holds the line.
    const next = await run(server, [{ id: "s2", name: "echo", arguments: { a: 1 } }]);
    expect(responseOf(next.stream, "s2").content).toBe('{"a":1}');
  });

  it("names tools with its prefix and only runs its own", async () => {
    const server = await inMemory({ prefix: "gh_" });
    expect(server.tools.find((t) => t.name === "gh_echo")).toMatchObject({
      description: "fixture tool echo",
      parameters: { type: "object" },
    });
    const { stream } = await run(server, [
      { id: "p1", name: "gh_echo", arguments: { a: 1 } },
      { id: "p2", name: "echo" },
    ]);
    expect(responseOf(stream, "p1").content).toBe('{"a":1}');
    expect(responseOf(stream, "p2").is_error).toBe(true);
  });

  it("without a URL opener it advertises forms only", async () => {
    const server = await inMemory();
    expect(server.elicitationModes).toEqual(["form"]);
    const human = new MockPromptBackend();
    const { stream } = await run(server, [{ id: "n1", name: "api_key" }], { prompts: human });
    expect(human.requests).toEqual([]);
    expect(responseOf(stream, "n1").is_error).toBe(true);
  });

  it("refuses to run before it is attached to a coordinator", async () => {
    const server = await inMemory();
    const executor = server.executorFor({ id: "z", name: "echo", arguments: {} }, {} as never);
    await expect(
      executor?.execute({
        call: { id: "z", name: "echo", arguments: {} },
        answers: {},
        signal: new AbortController().signal,
      }),
    ).rejects.toThrow('the MCP connection "memory" is not attached to a coordinator');
  });

  it("a server that does not start is a connect-failed error, not a throw", async () => {
    const result = await connectMcpServer({
      name: "ghost",
      transport: new StdioClientTransport({ command: "/nonexistent/mcp-server" }),
    });
    expect(result._unsafeUnwrapErr()).toMatchObject({
      kind: "connect-failed",
      server: "ghost",
      message: expect.stringContaining('could not connect to MCP server "ghost"'),
    });
  });
});
