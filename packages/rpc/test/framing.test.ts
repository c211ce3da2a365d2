import { afterEach, describe, expect, it } from "vitest";
import { createRpcPromptBackend, type RpcError, type RpcPromptBackend } from "../src/index.js";
import { never, pipes, REQUESTS } from "./support.js";

// Framing and JSON-RPC error handling, seen from the far end of a backend: whatever arrives,
// the session answers as the spec says and goes on.

const HELLO = {
  jsonrpc: "2.0",
  id: "hello",
  method: "initialize",
  params: { protocol_version: 1, capabilities: { prompts: "rich" } },
};

let backend: RpcPromptBackend | undefined;
afterEach(() => backend?.close());

function connect(maxLineBytes?: number) {
  const wire = pipes();
  const reports: RpcError[] = [];
  backend = createRpcPromptBackend({
    input: wire.input,
    output: wire.output,
    sessionId: "s1",
    onProtocolError: (error) => reports.push(error),
    ...(maxLineBytes === undefined ? {} : { maxLineBytes }),
  });
  return { ...wire, backend, reports };
}

describe("foreign input", () => {
  it("answers a line that is not JSON with -32700 (id null), then serves the next message", async () => {
    const { remote, reports } = connect();
    remote.write("this is not json\n");
    expect(await remote.next()).toMatchObject({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32700, message: expect.stringMatching(/^Parse error/) },
    });
    expect(reports.map((r) => r.kind)).toEqual(["protocol"]);
    remote.send(HELLO);
    expect(await remote.next()).toMatchObject({ id: "hello", result: { session_id: "s1" } });
  });

  it.each([
    ['{"jsonrpc":"2.0","id":1,"result":{"type":"answer","value":hunter2-SECRET}}'],
    ['{"jsonrpc":"2.0","id":1,"result":"hunter2-SECRET'],
    ["hunter2-SECRET"],
  ])("never quotes a line that is not JSON, in the report or the answer: %s", async (line) => {
    const { remote, reports } = connect();
    remote.write(`${line}\n`);
    const answer = await remote.next();
    expect(answer).toMatchObject({ id: null, error: { code: -32700 } });
    expect(reports).toHaveLength(1);
    for (const text of [JSON.stringify(answer), reports.map((r) => r.message).join("\n")]) {
      expect(text).not.toContain("hunter2");
      expect(text).toContain(`${line.length} characters`);
    }
  });

  it.each([
    ['{"a":1}{"b":2}', "Unexpected non-whitespace character after JSON at position 7"],
    ['{"a":"x\ty"}', "Bad control character in string literal in JSON at position 7"],
    ['{"a":', "that ends inside its JSON value"],
    ["Content-Length: 52", 'starts like a header ("Name: value")'],
    ["\ufeff{}", "starts with a byte order mark (U+FEFF)"],
  ])("says what is wrong with a line that is not JSON: %s", async (line, problem) => {
    const { remote, reports } = connect();
    remote.write(`${line}\n`);
    expect(await remote.next()).toMatchObject({ error: { code: -32700 } });
    expect(reports[0]?.message).toContain(problem);
  });

  it("answers JSON that is not a JSON-RPC message with -32600, keeping a readable id", async () => {
    const { remote } = connect();
    remote.send({ hello: "world" });
    expect(await remote.next()).toMatchObject({ id: null, error: { code: -32600 } });
    remote.send({ jsonrpc: "1.0", id: 7, method: "initialize" });
    expect(await remote.next()).toMatchObject({ id: 7, error: { code: -32600 } });
    remote.send(42);
    expect(await remote.next()).toMatchObject({ id: null, error: { code: -32600 } });
  });

  it("answers an unknown method with -32601 and ignores an unknown notification", async () => {
    const { remote } = connect();
    remote.send({ jsonrpc: "2.0", method: "client/whatever" });
    remote.send({ jsonrpc: "2.0", id: 2, method: "server/unknown", params: {} });
    expect(await remote.next()).toEqual({
      jsonrpc: "2.0",
      id: 2,
      error: { code: -32601, message: "Method not found: server/unknown" },
    });
  });

  it("does not treat Object.prototype names as methods", async () => {
    const { remote } = connect();
    remote.send({ jsonrpc: "2.0", id: 3, method: "constructor" });
    expect(await remote.next()).toMatchObject({ id: 3, error: { code: -32601 } });
  });

  it("answers bad params with -32602, naming the field", async () => {
    const { remote, backend } = connect();
    remote.send({ ...HELLO, params: { protocol_version: 1, capabilities: { prompts: "fancy" } } });
    const reply = await remote.next();
    expect(reply).toMatchObject({ id: "hello", error: { code: -32602 } });
    expect(reply.error.message).toContain("capabilities.prompts");
    expect(reply.error.data.issues[0].path).toEqual(["capabilities", "prompts"]);
    expect(backend.state).toBe("waiting_for_client");
  });

  it("rejects an unsupported protocol_version with -32602", async () => {
    const { remote } = connect();
    remote.send({ ...HELLO, params: { protocol_version: 2, capabilities: { prompts: "rich" } } });
    const reply = await remote.next();
    expect(reply).toMatchObject({ id: "hello", error: { code: -32602 } });
    expect(reply.error.message).toContain("protocol_version 2");
  });

  it("rejects an oversize line with -32600 without buffering it, then goes on", async () => {
    const { remote, reports } = connect(64);
    remote.write(`{"jsonrpc":"2.0","method":"x","params":{"pad":"${"a".repeat(100)}`);
    remote.write(`${"b".repeat(1000)}"}}\n`);
    const reply = await remote.next();
    expect(reply).toMatchObject({ id: null, error: { code: -32600 } });
    expect(reply.error.message).toContain("maximum line length of 64 bytes");
    expect(reports).toHaveLength(1);
    remote.send({ jsonrpc: "2.0", id: 1, method: "nope" });
    expect(await remote.next()).toMatchObject({ id: 1, error: { code: -32601 } });
  });

  it("fails the prompt a response that is not JSON answers, instead of leaving it open for ever", async () => {
    const { remote, backend } = connect();
    remote.send(HELLO);
    await remote.next();
    const reply = backend.ask(REQUESTS.schema, { signal: never() });
    const request = await remote.next();
    // What Python's json.dumps writes for a float("nan") in the answer.
    remote.write(
      `{"jsonrpc": "2.0", "id": ${request.id}, "result": {"type": "answer", "value": {"r": NaN}}}\n`,
    );
    expect(await remote.next()).toMatchObject({ id: null, error: { code: -32700 } });
    await expect(reply).rejects.toMatchObject({
      kind: "invalid_reply",
      message: expect.stringContaining("the response is not JSON"),
    });
  });

  it("fails the prompt a response answers when another message runs on after it on the same line", async () => {
    const { remote, backend } = connect();
    remote.send(HELLO);
    await remote.next();
    const reply = backend.ask(REQUESTS.boolean, { signal: never() });
    const request = await remote.next();
    const answer = { jsonrpc: "2.0", id: request.id, result: { type: "answer", value: true } };
    const call = { jsonrpc: "2.0", id: 99, method: "x" };
    remote.write(`${JSON.stringify(answer)}${JSON.stringify(call)}\n`);
    // Not one JSON value: the call after the response is not what the line is, so id null.
    expect(await remote.next()).toMatchObject({ id: null, error: { code: -32700 } });
    await expect(reply).rejects.toMatchObject({
      kind: "invalid_reply",
      message: expect.stringContaining("the response is not JSON"),
    });
  });

  it("answers a line that is not valid UTF-8 with -32700, and fails the prompt it answers", async () => {
    const { remote, backend, reports } = connect();
    remote.send(HELLO);
    await remote.next();
    const reply = backend.ask(REQUESTS.text, { signal: never() });
    const request = await remote.next();
    // Decoded as it is, the answer would be "ab\ufffd\ufffd": text the person never typed.
    const head = `{"jsonrpc":"2.0","id":${request.id},"result":{"type":"answer","value":"ab`;
    remote.write(
      Buffer.concat([Buffer.from(head), Buffer.from([0xff, 0xfe]), Buffer.from('"}}\n')]),
    );
    expect(await remote.next()).toMatchObject({ id: null, error: { code: -32700 } });
    await expect(reply).rejects.toMatchObject({
      kind: "invalid_reply",
      message: expect.stringContaining("not valid UTF-8"),
    });
    expect(reports[0]?.message).toContain("not valid UTF-8");
    remote.send({ jsonrpc: "2.0", id: 1, method: "nope" });
    expect(await remote.next()).toMatchObject({ id: 1, error: { code: -32601 } });
  });

  it("fails the prompt an oversize response answers, instead of leaving it open for ever", async () => {
    const { remote, backend } = connect(256);
    remote.send(HELLO);
    await remote.next();
    const reply = backend.ask(REQUESTS.text, { signal: never() });
    const request = await remote.next();
    remote.send({
      jsonrpc: "2.0",
      id: request.id,
      result: { type: "answer", value: "x".repeat(1000) },
    });
    expect(await remote.next()).toMatchObject({ id: null, error: { code: -32600 } });
    await expect(reply).rejects.toMatchObject({
      kind: "invalid_reply",
      message: expect.stringContaining("exceeds the maximum line length of 256 bytes"),
    });
  });

  it("answers a request that is not valid UTF-8 with -32700 and its id, so its sender does not wait for ever", async () => {
    const { remote, reports } = connect();
    const head = `{"jsonrpc":"2.0","id":"hello","method":"initialize","params":{"protocol_version":1,"capabilities":{"prompts":"rich"},"client_info":{"name":"ui`;
    remote.write(Buffer.concat([Buffer.from(head), Buffer.from([0xc3]), Buffer.from('"}}}\n')]));
    expect(await remote.next()).toMatchObject({
      id: "hello",
      error: { code: -32700, message: expect.stringContaining("not valid UTF-8") },
    });
    // Broken beyond parsing too: the id is still read from its top-level members.
    remote.write(
      Buffer.concat([
        Buffer.from('{"jsonrpc":"2.0","id":4,"method":"x","params":{"a":'),
        Buffer.from([0xff]),
        Buffer.from("}}\n"),
      ]),
    );
    expect(await remote.next()).toMatchObject({ id: 4, error: { code: -32700 } });
    expect(reports.map((r) => r.message)).toEqual([
      expect.stringContaining("not valid UTF-8"),
      expect.stringContaining("not valid UTF-8"),
    ]);
  });

  it("answers a request that is not JSON with -32700 and its id, without quoting it", async () => {
    const { remote } = connect();
    remote.write(
      '{"jsonrpc":"2.0","id":12,"method":"initialize","params":{"protocol_version":NaN}}\n',
    );
    const answer = await remote.next();
    expect(answer).toMatchObject({ id: 12, error: { code: -32700 } });
    expect(answer.error.message).not.toContain("NaN");
    // A notification, or a line with no readable id, still gets id null.
    remote.write('{"jsonrpc":"2.0","method":"initialize","params":{"protocol_version":NaN}}\n');
    expect(await remote.next()).toMatchObject({ id: null, error: { code: -32700 } });
  });

  it("answers each request of a batch that is not valid UTF-8 with -32700 and its id, in one array", async () => {
    const { remote } = connect();
    const bad = Buffer.from([0xff]);
    const line = Buffer.concat([
      Buffer.from('[{"jsonrpc":"2.0","id":1,"method":"a","params":{"x":"'),
      bad,
      Buffer.from(
        '"}},{"jsonrpc":"2.0","method":"n"},{"jsonrpc":"2.0","id":"two","method":"b"}]\n',
      ),
    ]);
    remote.write(line);
    expect(await remote.next()).toEqual([
      { jsonrpc: "2.0", id: 1, error: expect.objectContaining({ code: -32700 }) },
      { jsonrpc: "2.0", id: "two", error: expect.objectContaining({ code: -32700 }) },
    ]);
  });

  it("answers an oversize request with -32600 and its id once the line ends, then goes on", async () => {
    const { remote, reports } = connect(64);
    remote.send({
      jsonrpc: "2.0",
      id: "big",
      method: "initialize",
      params: { pad: "x".repeat(200) },
    });
    const reply = await remote.next();
    expect(reply).toMatchObject({ id: "big", error: { code: -32600 } });
    expect(reply.error.message).toContain("maximum line length of 64 bytes");
    expect(reply.error.message).toContain(
      `it has ${JSON.stringify({ jsonrpc: "2.0", id: "big", method: "initialize", params: { pad: "x".repeat(200) } }).length} bytes`,
    );
    expect(reports).toHaveLength(1);
    // The id after the long part is read too.
    remote.send({ jsonrpc: "2.0", method: "initialize", params: { pad: "x".repeat(200) }, id: 5 });
    expect(await remote.next()).toMatchObject({ id: 5, error: { code: -32600 } });
    remote.send({ jsonrpc: "2.0", id: 1, method: "nope" });
    expect(await remote.next()).toMatchObject({ id: 1, error: { code: -32601 } });
  });

  it("reads partial chunks and CRLF line ends", async () => {
    const { remote } = connect();
    const line = JSON.stringify(HELLO);
    remote.write(line.slice(0, 10));
    remote.write(line.slice(10, 40));
    remote.write(`${line.slice(40)}\r`);
    remote.write("\n");
    expect(await remote.next()).toMatchObject({ id: "hello", result: { protocol_version: 1 } });
  });
});

describe("batches (supported, JSON-RPC 2.0 §6)", () => {
  it("answers a batch with one array, in order, with an error in the slot of a bad member", async () => {
    const { remote } = connect();
    remote.send([
      HELLO,
      { jsonrpc: "2.0", method: "ignored/notification" },
      { foo: "boo" },
      { jsonrpc: "2.0", id: 9, method: "nope" },
    ]);
    expect(await remote.next()).toEqual([
      { jsonrpc: "2.0", id: "hello", result: expect.objectContaining({ session_id: "s1" }) },
      { jsonrpc: "2.0", id: null, error: expect.objectContaining({ code: -32600 }) },
      { jsonrpc: "2.0", id: 9, error: expect.objectContaining({ code: -32601 }) },
    ]);
  });

  it("answers a batch of more than 100 entries with a single -32600 error saying so", async () => {
    const { remote, reports } = connect();
    remote.write(`[${Array(101).fill("1").join(",")}]\n`);
    const reply = await remote.next();
    expect(reply).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: {
        code: -32600,
        message: expect.stringContaining("a batch of 101 entries, more than the 100"),
      },
    });
    expect(reports.map((r) => r.message)).toEqual([
      expect.stringContaining("a batch of 101 entries"),
    ]);
    // Nothing else was sent for it: the next message answers the next line.
    remote.send({ jsonrpc: "2.0", id: 1, method: "nope" });
    expect(await remote.next()).toMatchObject({ id: 1, error: { code: -32601 } });
  });

  it("answers each request of a batch over 100 entries under its own id, and runs none", async () => {
    const { remote, reports } = connect();
    const requests = Array.from({ length: 101 }, (_, i) => ({
      jsonrpc: "2.0",
      id: i % 2 === 0 ? i : `r${i}`,
      method: "initialize",
      params: { protocol_version: 1, capabilities: { prompts: "rich" } },
    }));
    remote.send([...requests, { jsonrpc: "2.0", method: "ignored/notification" }, 7]);
    const reply = (await remote.next()) as { id: unknown; error: { code: number } }[];
    expect(reply.map((r) => r.id)).toEqual(requests.map((r) => r.id));
    for (const r of reply) {
      expect(r).toEqual({
        jsonrpc: "2.0",
        id: r.id,
        error: {
          code: -32600,
          message:
            "Invalid Request: not run: its batch of 103 entries is over the 100 one batch may hold",
        },
      });
    }
    expect(reports.map((r) => r.message)).toEqual([
      expect.stringContaining("a batch of 103 entries"),
    ]);
    // None of them ran: the next request is the session's first hello.
    remote.send(HELLO);
    expect(await remote.next()).toMatchObject({ id: "hello", result: { session_id: "s1" } });
  });

  it("answers a 1 MiB batch line with one error, not one per entry", async () => {
    const { remote } = connect();
    remote.write(
      `[${Array(512 * 1024 - 1)
        .fill("1")
        .join(",")}]\n`,
    );
    remote.send({ jsonrpc: "2.0", id: 1, method: "nope" });
    expect(await remote.next()).toMatchObject({ id: null, error: { code: -32600 } });
    expect(await remote.next()).toMatchObject({ id: 1, error: { code: -32601 } });
  });

  it("still answers a batch of exactly 100 entries entry by entry", async () => {
    const { remote } = connect();
    const batch = Array.from({ length: 100 }, (_, i) => ({
      jsonrpc: "2.0",
      id: i,
      method: "nope",
    }));
    remote.send(batch);
    const reply = await remote.next();
    expect(reply).toHaveLength(100);
    expect(reply[99]).toMatchObject({ id: 99, error: { code: -32601 } });
  });

  it("fails the prompts answered in a batch too large to read, instead of leaving them open", async () => {
    const { remote, backend } = connect();
    remote.send(HELLO);
    await remote.next();
    const reply = backend.ask(REQUESTS.boolean, { signal: never() });
    const request = await remote.next();
    const answer = { jsonrpc: "2.0", id: request.id, result: { type: "answer", value: true } };
    remote.send([answer, ...Array(100).fill({ jsonrpc: "2.0", method: "n" })]);
    expect(await remote.next()).toMatchObject({ id: null, error: { code: -32600 } });
    await expect(reply).rejects.toMatchObject({
      kind: "invalid_reply",
      message: expect.stringContaining("in a batch of 101 entries"),
    });
  });

  it("answers an empty batch with a single -32600 error", async () => {
    const { remote } = connect();
    remote.send([]);
    expect(await remote.next()).toMatchObject({ id: null, error: { code: -32600 } });
  });

  it("sends nothing for a batch of notifications, and settles responses that come in one", async () => {
    const { remote, backend } = connect();
    remote.send([
      { jsonrpc: "2.0", method: "a" },
      { jsonrpc: "2.0", method: "b" },
    ]);
    remote.send(HELLO);
    expect(await remote.next()).toMatchObject({ id: "hello" });
    const first = backend.ask(REQUESTS.boolean, { signal: never() });
    const second = backend.ask(REQUESTS.text, { signal: never() });
    const a = await remote.next();
    const b = await remote.next();
    remote.send([
      { jsonrpc: "2.0", id: b.id, result: { type: "answer", value: "bee" } },
      { jsonrpc: "2.0", id: a.id, result: { type: "answer", value: true } },
    ]);
    expect(await first).toEqual({ type: "answer", value: true });
    expect(await second).toEqual({ type: "answer", value: "bee" });
    remote.send({ jsonrpc: "2.0", id: 1, method: "nope" });
    // Nothing was sent for the batch of responses: the next message is this error.
    expect(await remote.next()).toMatchObject({ id: 1, error: { code: -32601 } });
  });
});

describe("responses the backend did not expect", () => {
  it("reports a response to an unknown id and an id-null error, without answering them", async () => {
    const { remote, reports } = connect();
    remote.send({ jsonrpc: "2.0", id: 999, result: {} });
    remote.send({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } });
    remote.send({ jsonrpc: "2.0", id: 1, method: "nope" });
    expect(await remote.next()).toMatchObject({ id: 1, error: { code: -32601 } });
    expect(reports.map((r) => r.message)).toEqual([
      "the peer answered an unknown request id 999",
      "the peer reported an error: Parse error (-32700)",
    ]);
  });
});
