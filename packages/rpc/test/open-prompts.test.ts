import { PassThrough } from "node:stream";
import { ConversationStream } from "@jp/conversation";
import { ToolCoordinator, TurnState } from "@jp/coordinator";
import { MockExecutor, MockExecutorSource } from "@jp/coordinator/testing";
import { afterEach, describe, expect, it } from "vitest";
import {
  createRpcPromptBackend,
  createRpcPromptClient,
  DEFAULT_MAX_OPEN_PROMPTS,
  type PromptReply,
  RpcError,
  type RpcPromptBackend,
  type RpcPromptClient,
  type RpcPromptClientOptions,
} from "../src/index.js";
import { never, pipes, REQUESTS } from "./support.js";

// A client serves a bounded number of prompts at once: an agent that sends more (broken or
// hostile) gets an error for each one beyond the bound, and the UI process does not keep them.

let client: RpcPromptClient | undefined;
let backend: RpcPromptBackend | undefined;
afterEach(() => {
  client?.close();
  backend?.close();
  client = undefined;
  backend = undefined;
});

/** A client whose prompts stay open until the test answers them, by request id. */
async function holdingClient(options: Partial<RpcPromptClientOptions> = {}) {
  const wire = pipes();
  const open = new Map<unknown, (reply: PromptReply) => void>();
  const shown: string[] = [];
  client = createRpcPromptClient({
    input: wire.input,
    output: wire.output,
    capabilities: { prompts: "rich" },
    onPrompt: (prompt) => {
      shown.push(prompt.tool_call_id);
      return new Promise((resolve) => open.set(prompt.tool_call_id, resolve));
    },
    onAskUser: (params) => {
      shown.push(params.question);
      return "ok";
    },
    ...options,
  });
  const hello = await wire.remote.next();
  wire.remote.send({
    jsonrpc: "2.0",
    id: hello.id,
    result: { protocol_version: 1, session_id: "s1", server_info: { name: "test" } },
  });
  return { ...wire, open, shown };
}

const prompt = (id: number) => ({
  jsonrpc: "2.0",
  id,
  method: "client/prompt",
  params: { session_id: "s1", prompt: { ...REQUESTS.boolean, tool_call_id: `call_${id}` } },
});

const askUser = (id: number) => ({
  jsonrpc: "2.0",
  id,
  method: "client/ask_user",
  params: { session_id: "s1", question: `question ${id}`, choices: [] },
});

// Answered at once with -32601: the first answer to arrive after it shows what came before.
const probe = { jsonrpc: "2.0", id: "probe", method: "no/such_method" };

const TOO_MANY = (max: number) => ({
  code: -32000,
  message: `too many prompts at once: this client shows at most ${max} at a time, and this one was not shown`,
});

describe("a client's bound on prompts served at once", () => {
  it("shows 32 prompts at once by default and refuses a 33rd at once with -32000, without showing it", async () => {
    const { remote, shown, open } = await holdingClient();
    const max = 32;
    expect(DEFAULT_MAX_OPEN_PROMPTS).toBe(max);
    for (let id = 1; id <= max + 1; id++) remote.send(prompt(id));
    remote.send(probe);
    expect(await remote.next()).toEqual({ jsonrpc: "2.0", id: max + 1, error: TOO_MANY(max) });
    expect(await remote.next()).toMatchObject({ id: "probe", error: { code: -32601 } });
    expect(shown).toHaveLength(max);
    expect(shown).not.toContain(`call_${max + 1}`);
    // Once one is answered, the next prompt is shown again.
    open.get("call_1")?.({ type: "answer", value: true });
    expect(await remote.next()).toEqual({
      jsonrpc: "2.0",
      id: 1,
      result: { type: "answer", value: true },
    });
    remote.send(prompt(max + 2));
    remote.send(probe);
    expect(await remote.next()).toMatchObject({ id: "probe", error: { code: -32601 } });
    expect(shown).toHaveLength(max + 1);
    expect(shown.at(-1)).toBe(`call_${max + 2}`);
  });

  it("with maxOpenPrompts: 2, shows two prompts and refuses the third, counting client/ask_user too", async () => {
    const { remote, shown } = await holdingClient({ maxOpenPrompts: 2 });
    remote.send(prompt(1));
    remote.send(prompt(2));
    remote.send(askUser(3));
    expect(await remote.next()).toEqual({ jsonrpc: "2.0", id: 3, error: TOO_MANY(2) });
    expect(shown).toEqual(["call_1", "call_2"]);
  });

  it("with maxOpenPrompts: 1, refuses a prompt sent while one is open, and serves the next once it is answered", async () => {
    const { remote, shown, open } = await holdingClient({ maxOpenPrompts: 1 });
    remote.send(prompt(1));
    remote.send(askUser(2));
    expect(await remote.next()).toEqual({ jsonrpc: "2.0", id: 2, error: TOO_MANY(1) });
    open.get("call_1")?.({ type: "answer", value: false });
    expect(await remote.next()).toMatchObject({ id: 1, result: { type: "answer", value: false } });
    remote.send(askUser(3));
    expect(await remote.next()).toEqual({ jsonrpc: "2.0", id: 3, result: { answer: "ok" } });
    expect(shown).toEqual(["call_1", "question 3"]);
  });

  it("refuses the entries of one batch beyond the bound, and serves the others", async () => {
    const { remote, shown, open } = await holdingClient({ maxOpenPrompts: 2 });
    remote.send([prompt(1), prompt(2), askUser(3)]);
    remote.send(probe);
    expect(await remote.next()).toMatchObject({ id: "probe", error: { code: -32601 } });
    expect(shown).toEqual(["call_1", "call_2"]);
    open.get("call_1")?.({ type: "answer", value: true });
    open.get("call_2")?.({ type: "answer", value: false });
    expect(await remote.next()).toEqual([
      { jsonrpc: "2.0", id: 1, result: { type: "answer", value: true } },
      { jsonrpc: "2.0", id: 2, result: { type: "answer", value: false } },
      { jsonrpc: "2.0", id: 3, error: TOO_MANY(2) },
    ]);
  });
});

describe("the agent side, when the client refuses a prompt beyond its bound", () => {
  /** A backend and a client on two pipes; the client holds its first prompt open. */
  async function connectedPair() {
    const toClient = new PassThrough();
    const toServer = new PassThrough();
    backend = createRpcPromptBackend({ input: toServer, output: toClient, sessionId: "s1" });
    const shown: string[] = [];
    let showing: () => void = () => {};
    const firstShown = new Promise<void>((resolve) => (showing = resolve));
    client = createRpcPromptClient({
      input: toClient,
      output: toServer,
      capabilities: { prompts: "rich" },
      maxOpenPrompts: 1,
      onPrompt: (prompt) => {
        shown.push(prompt.tool_call_id);
        if (shown.length > 1) return { type: "answer", value: true };
        showing();
        return new Promise<PromptReply>(() => {});
      },
    });
    expect(await backend.waitForClient()).toBe(true);
    const held = backend.ask(REQUESTS.boolean, { signal: never() });
    held.catch(() => {});
    await firstShown;
    return { backend, shown };
  }

  it("rejects the prompt with a remote RpcError of code -32000: a failure, not a dismissal", async () => {
    const { backend, shown } = await connectedPair();
    const error = await backend.ask(REQUESTS.select, { signal: never() }).then(
      () => undefined,
      (cause: unknown) => cause,
    );
    expect(RpcError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      kind: "remote",
      code: -32000,
      message: expect.stringContaining("this client shows at most 1 at a time"),
    });
    expect(shown).toHaveLength(1);
  });

  it("is recorded by the coordinator as a backend error, never as the person cancelling", async () => {
    const { backend } = await connectedPair();
    const stream = ConversationStream.empty();
    stream.startTurn("Please deploy.");
    const executor = new MockExecutor((input) =>
      input.answers.q === undefined
        ? {
            type: "needs_input",
            question: { id: "q", text: "Deploy?", answer_type: { type: "boolean" } },
          }
        : { type: "success", content: "deployed" },
    );
    const coordinator = new ToolCoordinator({
      stream,
      tools: { deploy: { run: "unattended" } },
      executors: new MockExecutorSource({ deploy: executor }),
      prompts: backend,
    });
    const { responses } = await coordinator.run([{ id: "call_1", name: "deploy", arguments: {} }], {
      turn: new TurnState(),
    });
    const recorded = stream.events.filter((event) => event.type === "inquiry_response");
    expect(recorded).toEqual([
      expect.objectContaining({
        outcome: "cancelled",
        id: "call_1.q.1",
        reason: "backend_error",
      }),
    ]);
    expect(responses[0]?.is_error).toBe(true);
    expect(responses[0]?.content).not.toContain("cancelled by user");
    expect(responses[0]?.content).not.toBe("deployed");
  });
});
