// How a 2026-07-28 round ends when it ends without the person's answers: what the server is sent,
// with which arguments, and never twice.
import type { ConversationStream, JsonObject } from "@jp/conversation";
import { answerPendingPrompt, type PromptBackend, TurnState } from "@jp/coordinator";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import {
  createMcpHandler,
  fromJsonSchema,
  inputRequired,
  McpServer,
  type ServerContext,
} from "@modelcontextprotocol/server";
import { afterEach, describe, expect, it } from "vitest";
import { connectMcpServer } from "../../src/index.js";
import { attachedCoordinator } from "../support.js";

/** What the server's tool saw on each request: its arguments and the response to `f`, if any. */
interface Seen {
  readonly args: JsonObject;
  readonly state: string | undefined;
  readonly response: unknown;
  readonly responses: unknown;
}

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

/** One form, `f`: a name and a city. */
const ONE_FORM = () => ({
  f: inputRequired.elicit({
    message: "Who?",
    requestedSchema: {
      type: "object",
      properties: { name: { type: "string" }, city: { type: "string" } },
      required: ["name", "city"],
    } as never,
  }),
});

/** Two forms in one round: `f` (a name), then `g` (a city). */
const TWO_FORMS = () => ({
  f: inputRequired.elicit({
    message: "Who?",
    requestedSchema: {
      type: "object",
      properties: { name: { type: "string" } },
      required: ["name"],
    } as never,
  }),
  g: inputRequired.elicit({
    message: "Where?",
    requestedSchema: {
      type: "object",
      properties: { city: { type: "string" } },
      required: ["city"],
    } as never,
  }),
});

/**
 * A 2026-07-28 server whose tool asks one round (`ONE_FORM` unless given) and then finishes; what
 * it saw under `f` is each request's `response`, everything it got in `inputResponses`.
 */
async function connect(onRetry?: () => Promise<void>, requests = ONE_FORM) {
  const seen: Seen[] = [];
  const handler = createMcpHandler(() => {
    const server = new McpServer({ name: "s", version: "1" });
    server.registerTool(
      "t",
      { description: "asks once", inputSchema: fromJsonSchema({ type: "object" }) },
      async (input: unknown, ctx: ServerContext) => {
        const args = input as JsonObject;
        const responses = ctx.mcpReq.inputResponses;
        const response = responses?.f;
        seen.push({
          args,
          state: ctx.mcpReq.requestState<string>(),
          response: response ?? null,
          responses: responses ?? null,
        });
        if (response === undefined) {
          return inputRequired({ requestState: `state-${seen.length}`, inputRequests: requests() });
        }
        await onRetry?.();
        return { content: [{ type: "text", text: "done" }] };
      },
    );
    return server;
  });
  open.push(handler);
  const connection = (
    await connectMcpServer({
      name: "s",
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

describe("a 2026-07-28 round that ends without the person's answers", () => {
  it("stopped while its answers are on their way, it is not sent again when the call ends", async () => {
    const abort = new AbortController();
    const { connection, seen } = await connect(async () => {
      abort.abort(); // the host stops the run while the server works on the answers
      await new Promise((done) => setTimeout(done, 100));
    });
    const { coordinator } = attachedCoordinator(connection, {
      prompts: answers({ respond: "accept", name: "ada", city: "paris" }),
    });
    const { responses } = await coordinator.run([{ id: "c1", name: "t", arguments: {} }], {
      turn: new TurnState(),
      signal: abort.signal,
    });
    expect(responses[0]?.content).toContain("cancelled");
    await new Promise((done) => setTimeout(done, 200));
    // The first request and the one retry with the answers: nothing after the stop.
    expect(seen.map((s) => s.response === null)).toEqual([true, false]);
  });

  it("closed while the turn is suspended, it is sent with the arguments the person edited", async () => {
    const { connection, seen } = await connect();
    const person: PromptBackend = {
      isHumanReachable: () => true,
      ask: async (request) =>
        (request.kind === "permission"
          ? { type: "edit", arguments: { path: "/data/tmp" } }
          : { type: "later" }) as never,
    };
    const { stream, coordinator } = attachedCoordinator(connection, {
      prompts: person,
      tools: { "*": { run: "ask" } },
    });
    const suspended = await coordinator.run(
      [{ id: "c2", name: "t", arguments: { path: "/data" } }],
      { turn: new TurnState() },
    );
    expect(suspended.pending.map((p) => p.prompt_id)).toEqual(["c2.respond.1"]);
    answerPendingPrompt(stream, "c2.respond.1", { type: "cancelled" });
    await coordinator.resume();
    await expect.poll(() => seen.length).toBe(2);
    expect(seen.map((s) => s.args)).toEqual([{ path: "/data/tmp" }, { path: "/data/tmp" }]);
    expect(seen[1]?.response).toMatchObject({ action: "cancel" });
  });

  it("closed while the turn is suspended, a request the person answered before is sent with the answer", async () => {
    const { connection, seen } = await connect(undefined, TWO_FORMS);
    const { stream, coordinator } = attachedCoordinator(connection, {
      prompts: answers({ respond: "accept", name: "ada" }),
    });
    const suspended = await coordinator.run([{ id: "c5", name: "t", arguments: {} }], {
      turn: new TurnState(),
    });
    expect(suspended.pending.map((p) => p.prompt_id)).toEqual(["c5.respond_2.1"]);
    // In another process, the person dismisses the second form.
    const later = await connect(undefined, TWO_FORMS);
    const again = attachedCoordinator(later.connection, { stream });
    answerPendingPrompt(stream, "c5.respond_2.1", { type: "cancelled" });
    await again.coordinator.resume();
    await expect.poll(() => later.seen.length).toBe(1);
    expect(seen).toHaveLength(1);
    // The first form carries the person's answer; the second, the person's cancel.
    expect(later.seen[0]?.responses).toEqual({
      f: {
        action: "accept",
        content: { name: "ada" },
        _meta: { "jp.inquiry/decision": { by: "person" } },
      },
      g: { action: "cancel", _meta: { "jp.inquiry/decision": { by: "person", reason: "user" } } },
    });
  });

  it("an invalid answer at a resumed prompt asks again and keeps the round: one retry, its state echoed", async () => {
    const { connection, seen } = await connect();
    let resumed = false;
    let invalid = 0;
    const person: PromptBackend = {
      isHumanReachable: () => true,
      ask: async (request) => {
        const id = request.kind === "question" ? request.question.id : "";
        if (!resumed) {
          if (id === "respond") return { type: "answer", value: "accept" } as never;
          if (id === "name") return { type: "answer", value: "ada" } as never;
          return { type: "later" } as never;
        }
        if (id === "city" && invalid++ === 0) return { type: "answer", value: 42 } as never;
        return { type: "answer", value: "paris" } as never;
      },
    };
    const { coordinator } = attachedCoordinator(connection, { prompts: person });
    const suspended = await coordinator.run([{ id: "c3", name: "t", arguments: {} }], {
      turn: new TurnState(),
    });
    expect(suspended.pending.map((p) => p.prompt_id)).toEqual(["c3.city.1"]);
    resumed = true;
    await coordinator.resume();
    expect(seen.map((s) => s.state)).toEqual([undefined, "state-1"]);
    expect(seen[1]?.response).toMatchObject({
      action: "accept",
      content: { name: "ada", city: "paris" },
      _meta: { "jp.inquiry/decision": { by: "person" } },
    });
  });

  it("closed in one conversation, it touches no other conversation's call of the same id", async () => {
    const { connection, seen } = await connect();
    // Two conversations, each suspended at a call "c1" by an earlier process of its own.
    const suspendedAt = async (conversation: string) => {
      const { connection: earlier } = await connect();
      const { stream, coordinator } = attachedCoordinator(earlier);
      await coordinator.run([{ id: "c1", name: "t", arguments: { conversation } }], {
        turn: new TurnState(),
      });
      return stream;
    };
    const a = await suspendedAt("A");
    const b = await suspendedAt("B");
    const recordOf = (stream: ConversationStream) =>
      (stream.events.find((e) => e.type === "tool_call_request") as { metadata?: JsonObject })
        .metadata?.["jp.mcp/call"];
    // A host process attaches B's conversation first, then A's, and the person cancels A's.
    const coordinatorOf = (stream: ConversationStream) =>
      attachedCoordinator(connection, { stream }).coordinator;
    coordinatorOf(b);
    const forA = coordinatorOf(a);
    answerPendingPrompt(a, "c1.respond.1", { type: "cancelled" });
    await forA.resume();
    // The host's server hears one request: A's round, closed.
    await expect.poll(() => seen.length).toBe(1);
    expect(seen[0]).toMatchObject({ args: { conversation: "A" }, response: { action: "cancel" } });
    expect(recordOf(a)).toBeUndefined();
    expect(recordOf(b)).toBeDefined();
  });
});
