import {
  HumanUnreachableError,
  type PromptRequest,
  PromptTimedOutError,
  PromptUnsupportedError,
} from "@jp/coordinator";
import { afterEach, describe, expect, it } from "vitest";
import {
  createRpcPromptBackend,
  type PromptReply,
  RpcError,
  type RpcPromptBackend,
  type RpcPromptBackendOptions,
} from "../src/index.js";
import { type Message, never, pipes, REQUESTS } from "./support.js";

let backend: RpcPromptBackend | undefined;
afterEach(() => backend?.close());

function connect(options: Partial<RpcPromptBackendOptions> = {}) {
  const wire = pipes();
  backend = createRpcPromptBackend({
    input: wire.input,
    output: wire.output,
    sessionId: "s1",
    ...options,
  });
  return { ...wire, backend };
}

async function connected(
  prompts: "rich" | "simple",
  options: Partial<RpcPromptBackendOptions> = {},
) {
  const wire = connect(options);
  wire.remote.send({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocol_version: 1, capabilities: { prompts }, client_info: { name: "test" } },
  });
  await wire.remote.next();
  return wire;
}

const answer = (to: Message, result: unknown) => ({ jsonrpc: "2.0", id: to.id, result });
const rejection = async (promise: Promise<unknown>): Promise<RpcError> => {
  const error = await promise.then(
    () => undefined,
    (cause: unknown) => cause,
  );
  if (!RpcError.isInstance(error)) throw new Error(`expected an RpcError, got ${String(error)}`);
  return error;
};

/** The rejection of `promise`, checked to be a `Class`; its `cause` is the RpcError behind it. */
const rejectionAs = async <E extends Error>(
  promise: Promise<unknown>,
  Class: new (...args: never[]) => E,
): Promise<E & { readonly cause: RpcError }> => {
  const error = await promise.then(
    () => undefined,
    (cause: unknown) => cause,
  );
  if (!(error instanceof Class)) throw new Error(`expected a ${Class.name}, got ${String(error)}`);
  if (!RpcError.isInstance(error.cause)) throw new Error("expected an RpcError as the cause");
  return error as E & { readonly cause: RpcError };
};
const unreachable = (promise: Promise<unknown>) => rejectionAs(promise, HumanUnreachableError);

describe("start-up negotiation", () => {
  it("answers initialize with the session, and waits for it in isHumanReachable", async () => {
    const { remote, backend } = connect({ handshakeTimeoutMs: 60_000 });
    expect(backend.state).toBe("waiting_for_client");
    const reachable = backend.isHumanReachable();
    remote.send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocol_version: 1, capabilities: { prompts: "simple" } },
    });
    expect(await remote.next()).toEqual({
      jsonrpc: "2.0",
      id: 1,
      result: { protocol_version: 1, session_id: "s1", server_info: { name: "@jp/rpc" } },
    });
    expect(await reachable).toBe(true);
    expect(backend.state).toBe("ready");
    expect(backend.client).toEqual({ protocol_version: 1, capabilities: { prompts: "simple" } });
  });

  it("counts no human after the handshake deadline, and connects a late client", async () => {
    const { remote, backend } = connect({ handshakeTimeoutMs: 10 });
    expect(await backend.isHumanReachable()).toBe(false);
    expect(backend.state).toBe("no_client");
    const error = await unreachable(backend.ask(REQUESTS.boolean, { signal: never() }));
    expect(error.cause.kind).toBe("no_client");
    remote.send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocol_version: 1, capabilities: { prompts: "rich" } },
    });
    expect(await backend.waitForClient()).toBe(true);
    expect(await backend.isHumanReachable()).toBe(true);
  });

  it("holds a prompt asked before the client said hello until it does", async () => {
    const { remote, backend } = connect({ handshakeTimeoutMs: 60_000 });
    const reply = backend.ask(REQUESTS.boolean, { signal: never() });
    remote.send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocol_version: 1, capabilities: { prompts: "rich" } },
    });
    await remote.next();
    const request = await remote.next();
    expect(request.method).toBe("client/prompt");
    remote.send(answer(request, { type: "answer", value: false }));
    expect(await reply).toEqual({ type: "answer", value: false });
  });

  it("waitForClient gives up on its own timeout", async () => {
    const { backend } = connect({ handshakeTimeoutMs: 60_000 });
    expect(await backend.waitForClient({ timeoutMs: 10 })).toBe(false);
  });
});

describe("rich clients: client/prompt", () => {
  it("sends the prompt as it is, with the session id", async () => {
    const { remote, backend } = await connected("rich");
    const reply = backend.ask(REQUESTS.select, { signal: never() });
    const request = await remote.next();
    expect(request).toEqual({
      jsonrpc: "2.0",
      id: expect.any(Number),
      method: "client/prompt",
      params: { session_id: "s1", prompt: REQUESTS.select },
    });
    remote.send(answer(request, { type: "answer", value: "blue" }));
    expect(await reply).toEqual({ type: "answer", value: "blue" });
  });

  it.each<[string, PromptRequest, PromptReply]>([
    ["answer", REQUESTS.boolean, { type: "answer", value: true, remember: true }],
    ["back", REQUESTS.boolean, { type: "back" }],
    ["reply", REQUESTS.text, { type: "reply", message: "use staging" }],
    ["end_turn", REQUESTS.text, { type: "end_turn" }],
    ["cancelled", REQUESTS.text, { type: "cancelled" }],
    ["run", REQUESTS.permission, { type: "run", remember: true }],
    ["skip", REQUESTS.permission, { type: "skip", reason: "not now" }],
    ["edit", REQUESTS.permissionEdit, { type: "edit", arguments: { cmd: "ls -la" } }],
    ["deliver", REQUESTS.deliver, { type: "deliver" }],
    ["deliver skip", REQUESTS.deliver, { type: "skip" }],
    ["deliver edit", REQUESTS.deliverEdit, { type: "edit", content: "short" }],
  ])("returns a valid %s reply", async (_name, request, expected) => {
    const { remote, backend } = await connected("rich");
    const reply = backend.ask(request, { signal: never() });
    remote.send(answer(await remote.next(), expected));
    expect(await reply).toEqual(expected);
  });

  it.each<[string, PromptRequest, unknown, string]>([
    ["an answer without a value", REQUESTS.boolean, { type: "answer" }, "value"],
    ["a permission reply to a question", REQUESTS.boolean, { type: "run" }, "type"],
    ["a question reply to a permission", REQUESTS.permission, { type: "answer", value: 1 }, "type"],
    ["edit without arguments", REQUESTS.permission, { type: "edit" }, "arguments"],
    ["a non-object", REQUESTS.deliver, "deliver", "(root)"],
    [
      "a remember that is not boolean",
      REQUESTS.boolean,
      { type: "answer", value: 1, remember: "y" },
      "remember",
    ],
  ])("rejects %s as an invalid reply", async (_name, request, result, field) => {
    const { remote, backend } = await connected("rich");
    const reply = backend.ask(request, { signal: never() });
    remote.send(answer(await remote.next(), result));
    const error = await rejection(reply);
    expect(error.kind).toBe("invalid_reply");
    expect(error.message).toContain("is not a valid reply");
    expect(error.message).toContain(field);
  });

  it("rejects with the client's message when the client answers with an error", async () => {
    const { remote, backend } = await connected("rich");
    const reply = backend.ask(REQUESTS.boolean, { signal: never() });
    const request = await remote.next();
    remote.send({
      jsonrpc: "2.0",
      id: request.id,
      error: { code: -32603, message: "dialog crashed", data: 1 },
    });
    const error = await rejection(reply);
    expect(error).toMatchObject({ kind: "remote", code: -32603, data: 1 });
    expect(error.message).toContain("dialog crashed");
    expect(error).toBeInstanceOf(Error);
  });

  it("reads the error -32800 (request cancelled) as the user cancelling", async () => {
    const { remote, backend } = await connected("rich");
    const reply = backend.ask(REQUESTS.boolean, { signal: never() });
    const request = await remote.next();
    remote.send({ jsonrpc: "2.0", id: request.id, error: { code: -32800, message: "dismissed" } });
    expect(await reply).toEqual({ type: "cancelled" });
  });

  it("rejects when the client answers a prompt with a broken response", async () => {
    const { remote, backend } = await connected("rich");
    const reply = backend.ask(REQUESTS.boolean, { signal: never() });
    const request = await remote.next();
    remote.send({
      jsonrpc: "2.0",
      id: request.id,
      result: { type: "back" },
      error: { code: 1, message: "?" },
    });
    expect(await remote.next()).toMatchObject({ id: null, error: { code: -32600 } });
    expect(await rejection(reply)).toMatchObject({ kind: "invalid_reply" });
  });

  it("correlates concurrent prompts answered out of order", async () => {
    const { remote, backend } = await connected("rich");
    const requests = [REQUESTS.boolean, REQUESTS.select, REQUESTS.text];
    const replies = requests.map((request) => backend.ask(request, { signal: never() }));
    const sent = [await remote.next(), await remote.next(), await remote.next()];
    expect(new Set(sent.map((m) => m.id)).size).toBe(3);
    const values = [true, "red", "typed"];
    for (const i of [2, 0, 1]) {
      remote.send(answer(sent[i] as Message, { type: "answer", value: values[i] }));
    }
    expect(await Promise.all(replies)).toEqual(values.map((value) => ({ type: "answer", value })));
  });
});

describe("cancellation, timeout, disconnect", () => {
  it("an aborted signal resolves cancelled and sends $/cancelRequest; a late answer is dropped", async () => {
    const reports: RpcError[] = [];
    const { remote, backend } = await connected("rich", {
      onProtocolError: (e) => reports.push(e),
    });
    const controller = new AbortController();
    const reply = backend.ask(REQUESTS.boolean, { signal: controller.signal });
    const request = await remote.next();
    controller.abort();
    expect(await reply).toEqual({ type: "cancelled" });
    expect(await remote.next()).toEqual({
      jsonrpc: "2.0",
      method: "$/cancelRequest",
      params: { id: request.id },
    });
    remote.send(answer(request, { type: "answer", value: true }));
    remote.send({ jsonrpc: "2.0", id: 5, method: "nope" });
    await remote.next();
    expect(reports).toEqual([]);
  });

  it("an already aborted signal sends nothing", async () => {
    const { remote, backend } = await connected("rich");
    const controller = new AbortController();
    controller.abort();
    expect(await backend.ask(REQUESTS.boolean, { signal: controller.signal })).toEqual({
      type: "cancelled",
    });
    remote.send({ jsonrpc: "2.0", id: 5, method: "nope" });
    expect(await remote.next()).toMatchObject({ id: 5 });
  });

  it("rejects with a timeout after timeoutMs and tells the client to stop", async () => {
    const { remote, backend } = await connected("rich", { timeoutMs: 20 });
    const reply = backend.ask(REQUESTS.boolean, { signal: never() });
    const request = await remote.next();
    // The coordinator records it as `timeout`: not the person's decline, not a broken backend.
    const error = await rejectionAs(reply, PromptTimedOutError);
    expect(error.cause.kind).toBe("timeout");
    expect(error.ms).toBe(20);
    expect(await remote.next()).toMatchObject({
      method: "$/cancelRequest",
      params: { id: request.id },
    });
  });

  // Node runs a timer set past 2^31 - 1 ms after 1 ms: that would record a timeout at once.
  it.each([Number.POSITIVE_INFINITY, 30 * 24 * 60 * 60 * 1000])(
    "takes timeoutMs and handshakeTimeoutMs of %d as no limit",
    async (ms) => {
      const { remote, backend } = connect({ timeoutMs: ms, handshakeTimeoutMs: ms });
      await new Promise((resolve) => setTimeout(resolve, 30));
      expect(backend.state).toBe("waiting_for_client");
      expect(await backend.waitForClient({ timeoutMs: 20 })).toBe(false);
      remote.send({
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: { protocol_version: 1, capabilities: { prompts: "rich" } },
      });
      expect(await backend.waitForClient({ timeoutMs: ms })).toBe(true);
      const reply = backend.ask(REQUESTS.boolean, { signal: never() });
      await remote.next();
      const request = await remote.next();
      await new Promise((resolve) => setTimeout(resolve, 30));
      remote.send(answer(request, { type: "answer", value: true }));
      expect(await reply).toEqual({ type: "answer", value: true });
    },
  );

  // A disconnect is not the person's decision: never `{type: "cancelled"}`.
  it("rejects every pending prompt and every later one as unreachable when the client hangs up", async () => {
    const { remote, backend } = await connected("rich");
    const replies = [REQUESTS.boolean, REQUESTS.permission].map((r) =>
      unreachable(backend.ask(r, { signal: never() })),
    );
    await remote.next();
    await remote.next();
    remote.hangUp();
    for (const error of await Promise.all(replies)) {
      expect(error.message).toBe("their client disconnected: the peer closed the connection");
      expect(error.cause.kind).toBe("disconnected");
    }
    expect(await backend.isHumanReachable()).toBe(false);
    expect(backend.state).toBe("closed");
    expect(await backend.closed).toMatchObject({ kind: "input_ended" });
    const later = await unreachable(backend.ask(REQUESTS.boolean, { signal: never() }));
    expect(later.cause.kind).toBe("disconnected");
  });

  it("treats a failing input or output stream as a disconnect", async () => {
    const a = await connected("rich");
    const pending = unreachable(a.backend.ask(REQUESTS.boolean, { signal: never() }));
    a.input.destroy(new Error("boom"));
    expect((await pending).message).toBe(
      "their client disconnected: the input stream failed: boom",
    );
    expect(await a.backend.closed).toMatchObject({ kind: "input_error" });

    const b = await connected("rich");
    const open = unreachable(b.backend.ask(REQUESTS.boolean, { signal: never() }));
    await b.remote.next();
    b.output.destroy(new Error("EPIPE"));
    expect((await open).message).toContain("the output stream failed: EPIPE");
    expect(await b.backend.closed).toMatchObject({ kind: "output_error" });
    expect(await b.backend.isHumanReachable()).toBe(false);
  });

  it("close() tells the client to drop open prompts, which reject as unreachable", async () => {
    const { remote, backend } = await connected("rich");
    const reply = unreachable(backend.ask(REQUESTS.boolean, { signal: never() }));
    const request = await remote.next();
    backend.close();
    expect((await reply).message).toBe("the connection to their client was closed");
    expect(await remote.next()).toMatchObject({
      method: "$/cancelRequest",
      params: { id: request.id },
    });
    expect(await backend.closed).toMatchObject({ kind: "closed" });
    expect(backend.state).toBe("closed");
  });
});

describe("simple clients: client/ask_user", () => {
  it.each<[string, PromptRequest, string[] | undefined, string, PromptReply]>([
    ["boolean yes", REQUESTS.boolean, ["yes", "no"], "Yes", { type: "answer", value: true }],
    ["boolean n", REQUESTS.boolean, ["yes", "no"], "n", { type: "answer", value: false }],
    ["select", REQUESTS.select, ["red", "blue"], "blue", { type: "answer", value: "blue" }],
    ["text", REQUESTS.text, undefined, "Ada", { type: "answer", value: "Ada" }],
    ["permission run", REQUESTS.permission, ["run", "skip"], "run", { type: "run" }],
    ["permission skip", REQUESTS.permission, ["run", "skip"], "SKIP", { type: "skip" }],
    ["deliver", REQUESTS.deliver, ["deliver", "skip"], "deliver", { type: "deliver" }],
  ])("maps %s", async (_name, request, choices, text, expected) => {
    const { remote, backend } = await connected("simple");
    const reply = backend.ask(request, { signal: never() });
    const sent = await remote.next();
    expect(sent.method).toBe("client/ask_user");
    expect(sent.params.session_id).toBe("s1");
    expect(sent.params.choices).toEqual(choices);
    remote.send(answer(sent, { answer: text }));
    expect(await reply).toEqual(expected);
  });

  // The message reaches the model as it is: it names what this person can answer.
  it.each([
    ["multi_select", REQUESTS.multiSelect, "boolean, select and text questions"],
    ["secret", REQUESTS.secret, "boolean, select and text questions"],
    ["schema", REQUESTS.schema, "boolean, select and text questions"],
    ["permission in edit mode", REQUESTS.permissionEdit, '"run" or "skip"'],
    ["deliver in edit mode", REQUESTS.deliverEdit, '"deliver" or "skip"'],
  ])("refuses a %s prompt without sending it", async (_name, request, answerable) => {
    const { remote, backend } = await connected("simple");
    const error = await rejectionAs(
      backend.ask(request, { signal: never() }),
      PromptUnsupportedError,
    );
    expect(error.message).toContain(`this person can only answer ${answerable}`);
    expect(error.cause.kind).toBe("unsupported_prompt");
    expect(error.cause.message).toContain("client/ask_user");
    remote.send({ jsonrpc: "2.0", id: 5, method: "nope" });
    // Nothing went out before this error: a secret's text never reaches a simple client.
    expect(await remote.next()).toMatchObject({ id: 5 });
  });

  it("rejects an answer that is not a string, or a word that means nothing for a permission", async () => {
    const { remote, backend } = await connected("simple");
    const first = backend.ask(REQUESTS.text, { signal: never() });
    remote.send(answer(await remote.next(), { answer: 42 }));
    expect(await rejection(first)).toMatchObject({ kind: "invalid_reply" });
    const second = backend.ask(REQUESTS.permission, { signal: never() });
    remote.send(answer(await remote.next(), { answer: "maybe" }));
    const error = await rejection(second);
    expect(error.message).toContain('expected "run" or "skip"');
  });
});

describe("protocol: opal (no initialize)", () => {
  it("is ready at once and sends Opal's params, choices [] for free text", async () => {
    const { remote, backend } = connect({ protocol: "opal", handshakeTimeoutMs: 10 });
    expect(backend.state).toBe("ready");
    expect(await backend.isHumanReachable()).toBe(true);
    expect(await backend.waitForClient()).toBe(true);
    expect(backend.client).toBeUndefined();
    const reply = backend.ask(REQUESTS.text, { signal: never() });
    const sent = await remote.next();
    expect(sent).toEqual({
      jsonrpc: "2.0",
      id: expect.any(Number),
      method: "client/ask_user",
      params: { session_id: "s1", question: "What about name?", choices: [] },
    });
    remote.send(answer(sent, { answer: "Ada" }));
    expect(await reply).toEqual({ type: "answer", value: "Ada" });
    // Past the handshake deadline of the default protocol, it is still ready.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(backend.state).toBe("ready");
  });

  it("reads -32800 as a dismissal and counts no human once the connection closes", async () => {
    const { remote, backend } = connect({ protocol: "opal" });
    const dismissed = backend.ask(REQUESTS.boolean, { signal: never() });
    const sent = await remote.next();
    expect(sent.params.choices).toEqual(["yes", "no"]);
    remote.send({ jsonrpc: "2.0", id: sent.id, error: { code: -32800, message: "dismissed" } });
    expect(await dismissed).toEqual({ type: "cancelled" });
    remote.hangUp();
    expect(await backend.closed).toMatchObject({ kind: "input_ended" });
    expect(await backend.isHumanReachable()).toBe(false);
    await unreachable(backend.ask(REQUESTS.boolean, { signal: never() }));
  });

  it("answers an initialize sent anyway, and then treats the client as it announced", async () => {
    const { remote, backend } = connect({ protocol: "opal" });
    remote.send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocol_version: 1, capabilities: { prompts: "rich" } },
    });
    expect(await remote.next()).toMatchObject({ id: 1, result: { session_id: "s1" } });
    expect(backend.client).toMatchObject({ capabilities: { prompts: "rich" } });
    const reply = backend.ask(REQUESTS.boolean, { signal: never() });
    const sent = await remote.next();
    expect(sent.method).toBe("client/prompt");
    remote.send(answer(sent, { type: "answer", value: true }));
    expect(await reply).toEqual({ type: "answer", value: true });
  });
});
