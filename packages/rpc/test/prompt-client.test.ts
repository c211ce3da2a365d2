import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import {
  createRpcPromptBackend,
  createRpcPromptClient,
  type PromptReply,
  type RpcPromptBackend,
  type RpcPromptClient,
  type RpcPromptClientOptions,
} from "../src/index.js";
import { type Message, never, pipes, REQUESTS } from "./support.js";

let client: RpcPromptClient | undefined;
afterEach(() => client?.close());

type Handlers = Pick<RpcPromptClientOptions, "onPrompt" | "onAskUser">;

/** A client on pipes; the test plays the server and has already answered `initialize`. */
async function started(handlers: Handlers, prompts: "rich" | "simple" = "rich") {
  const wire = pipes();
  client = createRpcPromptClient({
    input: wire.input,
    output: wire.output,
    capabilities: { prompts },
    ...handlers,
  });
  const hello = await wire.remote.next();
  wire.remote.send({
    jsonrpc: "2.0",
    id: hello.id,
    result: { protocol_version: 1, session_id: "s1", server_info: { name: "test" } },
  });
  return { ...wire, client, hello };
}

const prompt = (id: number, promptRequest: unknown = REQUESTS.boolean) => ({
  jsonrpc: "2.0",
  id,
  method: "client/prompt",
  params: { session_id: "s1", prompt: promptRequest },
});

describe("negotiation", () => {
  it("announces itself with initialize and resolves ready with the server's answer", async () => {
    const wire = pipes();
    client = createRpcPromptClient({
      input: wire.input,
      output: wire.output,
      capabilities: { prompts: "simple" },
      clientInfo: { name: "ui", version: "1.0.0" },
      onAskUser: () => "x",
    });
    const hello = await wire.remote.next();
    expect(hello).toEqual({
      jsonrpc: "2.0",
      id: expect.any(Number),
      method: "initialize",
      params: {
        protocol_version: 1,
        capabilities: { prompts: "simple" },
        client_info: { name: "ui", version: "1.0.0" },
      },
    });
    const result = { protocol_version: 1, session_id: "s9", server_info: { name: "@jp/rpc" } };
    wire.remote.send({ jsonrpc: "2.0", id: hello.id, result });
    const ready = await client.ready;
    expect(ready.isOk() && ready.value).toEqual(result);
  });

  it.each<[string, (hello: Message) => unknown, string]>([
    [
      "a refusal",
      (hello) => ({ jsonrpc: "2.0", id: hello.id, error: { code: -32602, message: "no" } }),
      "remote",
    ],
    [
      "an invalid result",
      (hello) => ({ jsonrpc: "2.0", id: hello.id, result: {} }),
      "invalid_reply",
    ],
  ])("resolves ready with an error on %s", async (_name, answer, kind) => {
    const wire = pipes();
    client = createRpcPromptClient({
      input: wire.input,
      output: wire.output,
      capabilities: { prompts: "rich" },
      onPrompt: () => ({ type: "cancelled" }),
    });
    wire.remote.send(answer(await wire.remote.next()));
    const ready = await client.ready;
    expect(ready.isErr() && ready.error.kind).toBe(kind);
  });

  it("resolves ready with disconnected when the server hangs up first", async () => {
    const wire = pipes();
    client = createRpcPromptClient({
      input: wire.input,
      output: wire.output,
      capabilities: { prompts: "rich" },
      onPrompt: () => ({ type: "cancelled" }),
    });
    wire.remote.hangUp();
    const ready = await client.ready;
    expect(ready.isErr() && ready.error.kind).toBe("disconnected");
    expect(await client.closed).toMatchObject({ kind: "input_ended" });
  });

  it("refuses to start without the handler its capability needs (a programmer error)", () => {
    const { input, output } = pipes();
    expect(() =>
      createRpcPromptClient({ input, output, capabilities: { prompts: "rich" } }),
    ).toThrow(TypeError);
    expect(() =>
      createRpcPromptClient({ input, output, capabilities: { prompts: "simple" } }),
    ).toThrow(/onAskUser/);
  });
});

describe("serving prompts", () => {
  it("hands client/prompt to onPrompt with the session and answers with its reply", async () => {
    const seen: unknown[] = [];
    const { remote } = await started({
      onPrompt: (request, { sessionId }) => {
        seen.push([request, sessionId]);
        return { type: "answer", value: true };
      },
    });
    remote.send(prompt(7));
    expect(await remote.next()).toEqual({
      jsonrpc: "2.0",
      id: 7,
      result: { type: "answer", value: true },
    });
    expect(seen).toEqual([[REQUESTS.boolean, "s1"]]);
  });

  it("never shows a prompt sent as a notification: the person's answer would go nowhere", async () => {
    const wire = pipes();
    const shown: unknown[] = [];
    const reports: string[] = [];
    client = createRpcPromptClient({
      input: wire.input,
      output: wire.output,
      capabilities: { prompts: "rich" },
      onPrompt: (request) => {
        shown.push(request);
        return { type: "run" };
      },
      onProtocolError: (error) => reports.push(error.message),
    });
    await wire.remote.next();
    const { id: _, ...notification } = prompt(0, REQUESTS.permission);
    wire.remote.send(notification);
    wire.remote.send(prompt(8));
    expect(await wire.remote.next()).toMatchObject({ id: 8 });
    expect(shown).toEqual([REQUESTS.boolean]);
    expect(reports).toEqual([
      'the peer sent client/prompt as a notification (no "id"), so it is not served',
    ]);
  });

  it("answers client/ask_user with { answer } when the handler returns a string", async () => {
    const { remote } = await started(
      { onAskUser: (params) => `echo: ${params.question}` },
      "simple",
    );
    remote.send({
      jsonrpc: "2.0",
      id: "q",
      method: "client/ask_user",
      params: { session_id: "s1", question: "Name?" },
    });
    expect(await remote.next()).toEqual({
      jsonrpc: "2.0",
      id: "q",
      result: { answer: "echo: Name?" },
    });
  });

  it("answers -32800 when onAskUser returns null (the user dismissed the question)", async () => {
    const { remote } = await started({ onAskUser: () => null }, "simple");
    remote.send({
      jsonrpc: "2.0",
      id: 4,
      method: "client/ask_user",
      params: { session_id: "s1", question: "Name?", choices: [] },
    });
    expect(await remote.next()).toMatchObject({ id: 4, error: { code: -32800 } });
  });

  it("turns a throwing handler into an error response with its message", async () => {
    const { remote } = await started({
      onPrompt: () => {
        throw new Error("the dialog crashed");
      },
    });
    remote.send(prompt(1));
    expect(await remote.next()).toEqual({
      jsonrpc: "2.0",
      id: 1,
      error: { code: -32603, message: "the dialog crashed" },
    });
  });

  it.each<[string, () => unknown, string]>([
    ["no reply", () => undefined, "returned no result"],
    ["a reply that is not JSON", () => ({ type: "answer", value: 1n }), "not JSON"],
  ])("answers -32603 for a handler that returns %s", async (_name, handler, message) => {
    const { remote } = await started({ onPrompt: handler as () => PromptReply });
    remote.send(prompt(1));
    const reply = await remote.next();
    expect(reply).toMatchObject({ id: 1, error: { code: -32603 } });
    expect(reply.error.message).toContain(message);
  });

  it("answers -32601 for a method it has no handler for, and -32602 for bad params", async () => {
    const { remote } = await started({ onPrompt: () => ({ type: "cancelled" }) });
    remote.send({
      jsonrpc: "2.0",
      id: 1,
      method: "client/ask_user",
      params: { session_id: "s", question: "?" },
    });
    expect(await remote.next()).toMatchObject({ id: 1, error: { code: -32601 } });
    remote.send(prompt(2, { kind: "question", tool_name: "t" }));
    const bad = await remote.next();
    expect(bad).toMatchObject({ id: 2, error: { code: -32602 } });
    expect(bad.error.message).toContain("prompt.tool_call_id");
  });

  it("aborts the handler's signal on $/cancelRequest", async () => {
    const { remote } = await started({
      onPrompt: (request, { signal }) =>
        new Promise((resolve, reject) =>
          signal.addEventListener("abort", () =>
            request.tool_call_id === "throws"
              ? reject(new Error("aborted"))
              : resolve({ type: "cancelled" }),
          ),
        ),
    });
    remote.send(prompt(1));
    remote.send(prompt(2, { ...REQUESTS.boolean, tool_call_id: "throws" }));
    remote.send({ jsonrpc: "2.0", method: "$/cancelRequest", params: { id: 2 } });
    // A handler that rejects because it was cancelled answers -32800 (request cancelled).
    expect(await remote.next()).toEqual({
      jsonrpc: "2.0",
      id: 2,
      error: { code: -32800, message: "Request cancelled" },
    });
    remote.send({ jsonrpc: "2.0", method: "$/cancelRequest", params: { id: 1 } });
    expect(await remote.next()).toEqual({ jsonrpc: "2.0", id: 1, result: { type: "cancelled" } });
  });

  it("close() aborts the prompts being shown and resolves closed", async () => {
    let aborted = false;
    let shown: () => void = () => {};
    const showing = new Promise<void>((resolve) => (shown = resolve));
    const { remote, client } = await started({
      onPrompt: (_request, { signal }) => {
        shown();
        return new Promise(() => signal.addEventListener("abort", () => (aborted = true)));
      },
    });
    remote.send(prompt(1));
    await showing;
    client.close();
    expect(aborted).toBe(true);
    expect(await client.closed).toMatchObject({ kind: "closed" });
  });

  it("close() answers the prompts being shown, so that the server does not wait for ever", async () => {
    let shown: () => void = () => {};
    const showing = new Promise<void>((resolve) => (shown = resolve));
    const { remote, client } = await started({
      onPrompt: () => {
        shown();
        return new Promise(() => {});
      },
    });
    remote.send(prompt(1));
    await showing;
    client.close();
    // An error, never -32800: nobody dismissed the prompt.
    expect(await remote.next()).toEqual({
      jsonrpc: "2.0",
      id: 1,
      error: { code: -32603, message: "the connection was closed before the request was answered" },
    });
  });
});

describe("a server that reuses a request id, or sends id null", () => {
  it("close() aborts and answers every prompt being shown, not only the last one under an id", async () => {
    const aborted: number[] = [];
    let shown = 0;
    let showing: () => void = () => {};
    const allShown = new Promise<void>((resolve) => (showing = resolve));
    const { remote, client } = await started({
      onPrompt: (_prompt, { signal }) => {
        const index = shown++;
        signal.addEventListener("abort", () => aborted.push(index));
        if (shown === 3) showing();
        return new Promise(() => {});
      },
    });
    remote.send(prompt(1));
    remote.send(prompt(1));
    remote.send({ ...prompt(0), id: null });
    await allShown;
    client.close();
    expect(aborted.sort()).toEqual([0, 1, 2]);
    const answers = [await remote.next(), await remote.next(), await remote.next()];
    expect(answers.map((answer) => answer.id).sort()).toEqual([1, 1, null]);
    for (const answer of answers) expect(answer.error.code).toBe(-32603);
  });

  it("$/cancelRequest aborts every prompt being shown under that id", async () => {
    const aborted: number[] = [];
    let shown = 0;
    let showing: () => void = () => {};
    const bothShown = new Promise<void>((resolve) => (showing = resolve));
    const { remote } = await started({
      onPrompt: (_prompt, { signal }) => {
        const index = shown++;
        if (shown === 2) showing();
        return new Promise((_resolve, reject) => {
          signal.addEventListener("abort", () => {
            aborted.push(index);
            reject(new Error("closed"));
          });
        });
      },
    });
    remote.send(prompt(1));
    remote.send(prompt(1));
    await bothShown;
    remote.send({ jsonrpc: "2.0", method: "$/cancelRequest", params: { id: 1 } });
    expect(await remote.next()).toMatchObject({ id: 1, error: { code: -32800 } });
    expect(await remote.next()).toMatchObject({ id: 1, error: { code: -32800 } });
    expect(aborted.sort()).toEqual([0, 1]);
  });
});

describe("a server whose prompt the client cannot read", () => {
  let backend: RpcPromptBackend | undefined;
  afterEach(() => backend?.close());

  it("fails a prompt longer than the client's maxLineBytes instead of leaving it open for ever", async () => {
    const toClient = new PassThrough();
    const toServer = new PassThrough();
    backend = createRpcPromptBackend({ input: toServer, output: toClient, sessionId: "s1" });
    let shown = 0;
    client = createRpcPromptClient({
      input: toClient,
      output: toServer,
      capabilities: { prompts: "rich" },
      maxLineBytes: 1024,
      onPrompt: () => {
        shown += 1;
        return { type: "deliver" };
      },
    });
    expect(await backend.waitForClient()).toBe(true);
    const long = { ...REQUESTS.deliver, content: "x".repeat(4096) };
    await expect(backend.ask(long, { signal: never() })).rejects.toMatchObject({
      kind: "remote",
      code: -32600,
      message: expect.stringContaining("exceeds the maximum line length of 1024 bytes"),
    });
    expect(shown).toBe(0);
    // The session goes on.
    expect(await backend.ask(REQUESTS.deliver, { signal: never() })).toEqual({ type: "deliver" });
  });
});
