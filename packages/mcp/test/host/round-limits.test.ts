// A 2026-07-28 server cannot make this client hold, show or record more than a careful client
// would: a round over a limit fails its call, saying what was too large, before anyone is asked,
// and the conversation stays paired.
import type { JsonObject } from "@jp/conversation";
import { type PromptBackend, TurnState } from "@jp/coordinator";
import { MockPromptBackend } from "@jp/coordinator/testing";
import { InMemoryTransport } from "@modelcontextprotocol/client";
import { fromJsonSchema, McpServer } from "@modelcontextprotocol/server";
import { afterEach, describe, expect, it } from "vitest";
import { describeFailure } from "../../src/host/push-call.js";
import {
  connectMcpServer,
  MCP_CALL_METADATA_KEY,
  type RefusedElicitation,
} from "../../src/index.js";
import { FORM_REQUEST, type Scripted, scriptedServer } from "../scripted-server.js";
import { attachedCoordinator, inquiries, responseOf, run, unpaired } from "../support.js";

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

/** One form request asking for a name. */
const FORM = FORM_REQUEST;

const round = (fields: JsonObject): Scripted => ({
  result: { resultType: "input_required", inputRequests: { k: FORM }, ...fields },
});
const DONE: Scripted = {
  result: { resultType: "complete", content: [{ type: "text", text: "ok" }] },
};

/** A person who accepts every form and answers "Ada". */
const accepting = (): PromptBackend =>
  new MockPromptBackend({
    questions: Array.from({ length: 8 }, () => (request: { question: { id: string } }) => ({
      type: "answer" as const,
      value: request.question.id.startsWith("respond") ? "accept" : "Ada",
    })) as never,
  });

/** Runs call "c1" against a server answering its first `tools/call` with `first`, then `then`. */
async function runRound(
  first: Scripted,
  options: Parameters<typeof scriptedServer>[1] = {},
  then: Scripted = DONE,
) {
  const server = await scriptedServer((_params, index) => (index === 0 ? first : then), options);
  open.push(server);
  const human = accepting() as MockPromptBackend;
  const { stream } = await run(server.connection, [{ id: "c1", name: "t" }], { prompts: human });
  return { ...server, stream, human };
}

describe("requestState", () => {
  it("of exactly 64 KiB (in UTF-8) is asked and echoed byte for byte", async () => {
    const state = `${"é".repeat(32_767)}ab`; // 65 536 bytes
    const { stream, calls, human } = await runRound(round({ requestState: state }));
    expect(human.questions).toHaveLength(2);
    expect(calls[1]?.requestState).toBe(state);
    expect(responseOf(stream, "c1")).toEqual({ content: "ok", is_error: false });
  });

  it("one byte over 64 KiB fails the call saying so, before anyone is asked", async () => {
    const state = `${"é".repeat(32_767)}abc`; // 65 537 bytes
    const { stream, calls, human, refused } = await runRound(round({ requestState: state }));
    expect(human.requests).toEqual([]);
    expect(calls).toHaveLength(1);
    const message = "its requestState is 65537 bytes long; at most 65536 are kept";
    expect(responseOf(stream, "c1")).toEqual({
      is_error: true,
      content: `MCP server "s" could not run its tool "t": its input-required result was refused: ${message}`,
    });
    expect(refused).toEqual([{ server: "s", tool_call_id: "c1", message }]);
    expect(unpaired(stream)).toEqual([]);
  });

  it("maxRequestStateBytes sets the limit: at it the round is asked, one over it fails", async () => {
    const at = await runRound(round({ requestState: "x".repeat(10) }), {
      maxRequestStateBytes: 10,
    });
    expect(responseOf(at.stream, "c1").content).toBe("ok");
    const over = await runRound(round({ requestState: "x".repeat(11) }), {
      maxRequestStateBytes: 10,
    });
    expect(over.human.requests).toEqual([]);
    expect(responseOf(over.stream, "c1").content).toContain(
      "its requestState is 11 bytes long; at most 10 are kept",
    );
  });

  it("over the limit on a later round: the questions asked before stay closed and the call fails", async () => {
    const big = round({ requestState: "x".repeat(65_537) });
    const server = await scriptedServer((_params, index) =>
      index === 0 ? round({ requestState: "s1" }) : index === 1 ? big : DONE,
    );
    open.push(server);
    const { stream } = await run(server.connection, [{ id: "c1", name: "t" }], {
      prompts: accepting(),
    });
    expect(inquiries(stream)).toEqual([
      ["c1.respond.1", "accept"],
      ["c1.name.1", "Ada"],
    ]);
    expect(responseOf(stream, "c1").content).toContain(
      "its requestState is 65537 bytes long; at most 65536 are kept",
    );
    expect(unpaired(stream)).toEqual([]);
  });

  it("is never written into the conversation when over the limit: the turn does not suspend on it", async () => {
    const server = await scriptedServer(() => round({ requestState: "x".repeat(70_000) }));
    open.push(server);
    const { stream, coordinator } = attachedCoordinator(server.connection);
    const result = await coordinator.run([{ id: "c1", name: "t", arguments: {} }], {
      turn: new TurnState(),
    });
    expect(result.pending).toEqual([]);
    expect(JSON.stringify(stream.events)).not.toContain(MCP_CALL_METADATA_KEY);
    expect(JSON.stringify(stream.events).length).toBeLessThan(10_000);
    expect(unpaired(stream)).toEqual([]);
  });
});

describe("inputRequests", () => {
  it("a key of 256 characters is asked; one of 257 fails the call", async () => {
    const at = await runRound({
      result: { resultType: "input_required", inputRequests: { ["k".repeat(256)]: FORM } },
    });
    expect(responseOf(at.stream, "c1").content).toBe("ok");
    expect(Object.keys(at.calls[1]?.inputResponses as JsonObject)).toEqual(["k".repeat(256)]);
    const over = await runRound({
      result: { resultType: "input_required", inputRequests: { ["k".repeat(257)]: FORM } },
    });
    expect(over.human.requests).toEqual([]);
    expect(responseOf(over.stream, "c1")).toEqual({
      is_error: true,
      content: expect.stringContaining(
        "its input-required result was refused: an input request's key is 257 characters long; at most 256 are kept",
      ),
    });
    expect(unpaired(over.stream)).toEqual([]);
  });

  /** A round whose inputRequests take `bytes` bytes as JSON (padded in the request's _meta). */
  const padded = (bytes: number): Scripted => {
    const requests = (pad: string) => ({
      k: { ...FORM, params: { ...FORM.params, _meta: { pad } } },
    });
    const base = JSON.stringify(requests("")).length;
    return {
      result: { resultType: "input_required", inputRequests: requests("x".repeat(bytes - base)) },
    };
  };

  it("taking 256 KiB as JSON are asked; one byte more fails the call", async () => {
    const at = await runRound(padded(262_144));
    expect(responseOf(at.stream, "c1").content).toBe("ok");
    const over = await runRound(padded(262_145));
    expect(over.human.requests).toEqual([]);
    expect(responseOf(over.stream, "c1").content).toContain(
      "its inputRequests take 262145 bytes as JSON; at most 262144 are kept",
    );
    expect(over.refused.map((r) => r.message)).toEqual([
      "its inputRequests take 262145 bytes as JSON; at most 262144 are kept",
    ]);
    expect(unpaired(over.stream)).toEqual([]);
  });

  it("a message of 4096 characters is shown; one of 4097 fails the call", async () => {
    const withMessage = (message: string): Scripted => ({
      result: {
        resultType: "input_required",
        inputRequests: { k: { ...FORM, params: { ...FORM.params, message } } },
      },
    });
    const at = await runRound(withMessage("m".repeat(4096)));
    expect(at.human.questions[0]?.question.text).toBe("m".repeat(4096));
    const over = await runRound(withMessage("m".repeat(4097)));
    expect(over.human.requests).toEqual([]);
    expect(responseOf(over.stream, "c1").content).toContain(
      'its input request "k" was refused: the elicitation message is 4097 characters long; at most 4096 are shown',
    );
    expect(unpaired(over.stream)).toEqual([]);
  });
});

describe("what the server says when it fails", () => {
  it("an error text of 2048 characters reaches the model whole; a longer one is cut, saying so", async () => {
    const at = await runRound({ error: { code: -32603, message: "e".repeat(2048) } });
    expect(responseOf(at.stream, "c1").content).toBe(
      `MCP server "s" could not run its tool "t": ${"e".repeat(2048)}`,
    );
    const over = await runRound({ error: { code: -32603, message: "e".repeat(1_000_000) } });
    expect(responseOf(over.stream, "c1")).toEqual({
      is_error: true,
      content: `MCP server "s" could not run its tool "t": ${"e".repeat(2048)}… (cut: 1000000 characters in all)`,
    });
  });

  it("a result that cannot be read is said to be unreadable, in one short line", async () => {
    const { stream } = await runRound({ result: { resultType: "complete", content: "x" } });
    const { content, is_error } = responseOf(stream, "c1");
    expect(is_error).toBe(true);
    expect(content).toMatch(
      /^MCP server "s" could not run its tool "t": its answer to the tool call could not be read: Invalid result for tools\/call: /,
    );
    expect(content).not.toContain("\n");
    expect(content.length).toBeLessThan(500);
  });
});

describe("what a server chose, quoted in a refusal", () => {
  it("reaches the host's log and the model with its controls and invisible characters escaped", async () => {
    const key = "k\u001b]0;owned\u0007\u009b2J\u202e";
    const { stream, refused } = await runRound({
      result: {
        resultType: "input_required",
        inputRequests: {
          [key]: {
            ...FORM,
            params: {
              ...FORM.params,
              requestedSchema: { type: "object", properties: {}, "x\u001b[2J\u2028": 1 },
            },
          },
        },
      },
    });
    const message =
      "requestedSchema.x\\u001b[2J\\u2028: is outside MCP's elicitation schema subset";
    expect(refused.map((r) => r.message)).toEqual([message]);
    expect(responseOf(stream, "c1").content).toBe(
      `MCP server "s" could not run its tool "t": its input request "k\\u001b]0;owned\\u0007\\u009b2J\\u202e" was refused: ${message}`,
    );
  });
});

describe("the round limit", () => {
  it("a round at the limit is refused before anyone is asked: only the rounds that can be answered are", async () => {
    const server = await scriptedServer(() => round({ requestState: "s" }), { maxRounds: 2 });
    open.push(server);
    const human = accepting() as MockPromptBackend;
    const { stream } = await run(server.connection, [{ id: "c1", name: "t" }], { prompts: human });
    expect(server.calls).toHaveLength(2);
    expect(human.questions.map((q) => q.question.id)).toEqual(["respond", "name"]);
    expect(inquiries(stream)).toEqual([
      ["c1.respond.1", "accept"],
      ["c1.name.1", "Ada"],
    ]);
    expect(responseOf(stream, "c1")).toEqual({
      is_error: true,
      content:
        'MCP server "s" could not run its tool "t": the server still asked for input after 2 rounds',
    });
    expect(unpaired(stream)).toEqual([]);
  });

  it("a call resumed into a round at the limit fails without asking it", async () => {
    const server = await scriptedServer(() => round({ requestState: "s" }), { maxRounds: 2 });
    open.push(server);
    const { stream, coordinator, detach } = attachedCoordinator(server.connection);
    const first = await coordinator.run([{ id: "c1", name: "t", arguments: {} }], {
      turn: new TurnState(),
    });
    expect(first.pending).toHaveLength(1);
    detach();
    // The person answers the first round when the turn resumes; the second is at the limit.
    const again = attachedCoordinator(server.connection, { stream, prompts: accepting() });
    const second = await again.coordinator.resume();
    expect(second.pending).toEqual([]);
    expect(server.calls).toHaveLength(2);
    expect(inquiries(stream).map(([id]) => id)).toEqual(["c1.respond.1", "c1.name.1"]);
    expect(responseOf(stream, "c1").content).toContain(
      "the server still asked for input after 2 rounds",
    );
    expect(unpaired(stream)).toEqual([]);
  });
});

describe("the elicitation limit of a 2025-11-25 call", () => {
  it("an elicitation past maxRounds is refused before anyone is asked, and the host's log hears of it", async () => {
    const outcomes: string[] = [];
    const server = new McpServer({ name: "p", version: "1" });
    server.registerTool(
      "t",
      { description: "asks forever", inputSchema: fromJsonSchema({ type: "object" }) },
      async (_args, ctx) => {
        for (let i = 0; i < 10; i++) {
          try {
            const result = await ctx.mcpReq.elicitInput({
              message: "Again?",
              requestedSchema: { type: "object", properties: {} },
            } as never);
            outcomes.push(result.action);
          } catch (error) {
            outcomes.push(String(error));
            break;
          }
        }
        return { content: [{ type: "text", text: "gave up" }] };
      },
    );
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const refused: RefusedElicitation[] = [];
    const connection = (
      await connectMcpServer({
        name: "p",
        transport: clientSide,
        maxRounds: 3,
        onRefused: (event) => refused.push(event),
      })
    )._unsafeUnwrap();
    open.push(connection, server);
    const human = new MockPromptBackend({
      questions: Array.from({ length: 10 }, () => ({ type: "answer", value: "decline" }) as const),
    });
    const { stream } = await run(connection, [{ id: "c1", name: "t" }], { prompts: human });
    expect(human.questions).toHaveLength(3);
    const message = "too many elicitations in one tool call (at most 3, maxRounds)";
    expect(outcomes).toEqual(["decline", "decline", "decline", expect.stringContaining(message)]);
    expect(refused).toEqual([{ server: "p", tool_call_id: "c1", message }]);
    expect(responseOf(stream, "c1").content).toBe("gave up");
    expect(unpaired(stream)).toEqual([]);
  });
});

describe("rounds that ask nothing this client can read", () => {
  it("count against maxRounds, and the call's failure says they asked nothing", async () => {
    const garbage: Scripted = {
      result: { resultType: "input_required", inputRequests: "garbage", requestState: "s2" },
    };
    const { stream, calls, human } = await runRound(
      round({ requestState: "s1" }),
      { maxRounds: 4 },
      garbage,
    );
    expect(human.questions).toHaveLength(2);
    expect(calls).toHaveLength(4);
    expect(responseOf(stream, "c1")).toEqual({
      is_error: true,
      content:
        'MCP server "s" could not run its tool "t": the server still asked for input after 4 rounds; the last 3 of them had no input request this client could read (inputRequests missing, empty or not an object), so nobody was asked and the call was sent again',
    });
    expect(unpaired(stream)).toEqual([]);
  });

  it("a round that asks again after them is no longer said to ask nothing", async () => {
    const garbage: Scripted = {
      result: { resultType: "input_required", inputRequests: "garbage", requestState: "s2" },
    };
    const server = await scriptedServer(
      (_params, index) => (index === 1 ? garbage : round({ requestState: "s1" })),
      { maxRounds: 3 },
    );
    open.push(server);
    const { stream } = await run(server.connection, [{ id: "c1", name: "t" }], {
      prompts: accepting(),
    });
    expect(server.calls).toHaveLength(3);
    expect(responseOf(stream, "c1").content).toBe(
      'MCP server "s" could not run its tool "t": the server still asked for input after 3 rounds',
    );
  });
});

describe("JSON nested deeper than this process can write", () => {
  const deep = (depth: number) => `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;

  it("in a 2026-07-28 result's structuredContent: the result says so, nothing throws", async () => {
    const { stream } = await runRound({
      resultText: `{"resultType":"complete","content":[],"structuredContent":${deep(200_000)}}`,
    });
    expect(responseOf(stream, "c1")).toEqual({
      is_error: false,
      content: "[structured content nested too deeply to show]",
    });
    expect(unpaired(stream)).toEqual([]);
  });

  it("in a 2025-11-25 result's structuredContent: the result says so, nothing throws", async () => {
    let nested: JsonObject = { a: 1 };
    for (let i = 0; i < 200_000; i++) nested = { a: nested };
    const server = new McpServer({ name: "p", version: "1" });
    server.registerTool(
      "t",
      { description: "deep", inputSchema: fromJsonSchema({ type: "object" }) },
      async () => ({ content: [], structuredContent: nested }),
    );
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const connection = (
      await connectMcpServer({ name: "p", transport: clientSide })
    )._unsafeUnwrap();
    open.push(connection, server);
    const { stream } = await run(connection, [{ id: "c1", name: "t" }]);
    expect(responseOf(stream, "c1")).toEqual({
      is_error: false,
      content: "[structured content nested too deeply to show]",
    });
    expect(unpaired(stream)).toEqual([]);
  });

  it("in a round's inputRequests: the call fails saying so before anyone is asked", async () => {
    const { stream, human, refused } = await runRound({
      resultText: `{"resultType":"input_required","requestState":"s1","inputRequests":{"k":{"method":"elicitation/create","params":{"mode":"form","message":"Who?","requestedSchema":{"type":"object","properties":{}},"_meta":${deep(200_000)}}}}}`,
    });
    expect(human.requests).toEqual([]);
    const message = "its inputRequests are nested too deeply to be kept";
    expect(responseOf(stream, "c1")).toEqual({
      is_error: true,
      content: `MCP server "s" could not run its tool "t": its input-required result was refused: ${message}`,
    });
    expect(refused.map((r) => r.message)).toEqual([message]);
    expect(unpaired(stream)).toEqual([]);
  });
});

describe("describeFailure", () => {
  it("never cuts a character in two", () => {
    const text = `${"e".repeat(2047)}😀tail`;
    const described = describeFailure(new Error(text), 1000);
    expect(described).toBe(`${"e".repeat(2047)}… (cut: ${text.length} characters in all)`);
  });
});
