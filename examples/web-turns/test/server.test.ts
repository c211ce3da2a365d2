import { mkdtemp, readdir, rm } from "node:fs/promises";
import { request } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createTurnServer, MAX_BODY_BYTES, type TurnView } from "../src/server.js";

describe("a web server whose turns wait for a person without a process waiting", () => {
  let root: string;
  const servers: ReturnType<typeof createTurnServer>[] = [];
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), "jp-web-turns-"));
  });
  afterEach(async () => {
    for (const server of servers.splice(0)) server.close();
    await rm(root, { recursive: true, force: true });
  });

  // Each request may reach a different instance: a fresh server per request proves it.
  async function post(
    path: string,
    body: unknown,
  ): Promise<{ status: number; json: TurnView & { kind?: string } }> {
    const server = createTurnServer(root);
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    const response = await fetch(`http://127.0.0.1:${port}${path}`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    return {
      status: response.status,
      json: (await response.json()) as TurnView & { kind?: string },
    };
  }

  it("starts a turn, returns the question, and finishes after two answers sent to other instances", async () => {
    const start = await post("/turns", { message: "Set up my account" });
    expect(start.status).toBe(200);
    const first = start.json;
    expect(first.pending.map((p) => [p.prompt_id, p.request.kind])).toEqual([
      ["call_plan.plan.1", "question"],
    ]);
    expect(first.results).toEqual([]);

    const bad = await post(`/turns/${first.conversation}/answers`, {
      prompt_id: "call_plan.plan.1",
      reply: { type: "answer", value: "enterprise" },
    });
    expect(bad.status).toBe(422);
    expect(bad.json.kind).toBe("invalid_reply");

    const second = await post(`/turns/${first.conversation}/answers`, {
      prompt_id: "call_plan.plan.1",
      reply: { type: "answer", value: "pro" },
    });
    expect(second.status).toBe(200);
    expect(second.json.pending.map((p) => p.prompt_id)).toEqual(["call_plan.seats.1"]);

    const done = await post(`/turns/${first.conversation}/answers`, {
      prompt_id: "call_plan.seats.1",
      reply: { type: "answer", value: "5" },
    });
    expect(done.json.pending).toEqual([]);
    expect(done.json.results).toEqual([{ id: "call_plan", content: '{"plan":"pro","seats":"5"}' }]);

    const late = await post(`/turns/${first.conversation}/answers`, {
      prompt_id: "call_plan.seats.1",
      reply: { type: "answer", value: "6" },
    });
    expect(late.status).toBe(404);
  });

  /** A server of this test's own, listening on a free port; closed after the test. */
  async function listening(): Promise<number> {
    const server = createTurnServer(root);
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return (server.address() as AddressInfo).port;
  }

  /**
   * Posts `parts` as separate writes, with the given headers (JSON and no Origin unless told),
   * as a browser or a slow network may send them.
   */
  function postRaw(
    port: number,
    path: string,
    parts: readonly Buffer[],
    headers: Record<string, string> = {},
  ): Promise<{ status: number; json: TurnView & { error?: string } }> {
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host: "127.0.0.1",
          port,
          path,
          method: "POST",
          headers: { "Content-Type": "application/json", ...headers },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (chunk: Buffer) => chunks.push(chunk));
          res.on("end", () =>
            resolve({
              status: res.statusCode ?? 0,
              json: JSON.parse(Buffer.concat(chunks).toString("utf8")),
            }),
          );
        },
      );
      req.on("error", reject);
      void (async () => {
        for (const part of parts) {
          req.write(part);
          await new Promise((wait) => setTimeout(wait, 30));
        }
        req.end();
      })();
    });
  }

  const json = (value: unknown) => [Buffer.from(JSON.stringify(value))];

  it("keeps a character whose bytes arrive in two pieces", async () => {
    const port = await listening();
    const { json: started } = await postRaw(port, "/turns", json({ message: "Set up my account" }));
    const answers = `/turns/${started.conversation}/answers`;
    await postRaw(
      port,
      answers,
      json({ prompt_id: "call_plan.plan.1", reply: { type: "answer", value: "pro" } }),
    );
    const body = Buffer.from(
      JSON.stringify({
        prompt_id: "call_plan.seats.1",
        reply: { type: "answer", value: "5 seats, café team" },
      }),
    );
    // Cut between the two bytes of "é".
    const cut = body.indexOf(Buffer.from("é")) + 1;
    const done = await postRaw(port, answers, [body.subarray(0, cut), body.subarray(cut)]);
    expect(done.status).toBe(200);
    expect(done.json.results).toEqual([
      { id: "call_plan", content: '{"plan":"pro","seats":"5 seats, café team"}' },
    ]);
  });

  it("refuses a body over the limit with 413, whether declared or streamed", async () => {
    const port = await listening();
    const big = json({ message: "x".repeat(MAX_BODY_BYTES) });
    const declared = await postRaw(port, "/turns", big);
    expect(declared.status).toBe(413);
    expect(declared.json.error).toBe(`the body must be at most ${MAX_BODY_BYTES} bytes`);
    // Chunked, so no length is declared: the limit is found while reading.
    const half = Buffer.from("x".repeat(MAX_BODY_BYTES / 2 + 1));
    const streamed = await postRaw(port, "/turns", [Buffer.from('{"message":"'), half, half]);
    expect(streamed.status).toBe(413);
    expect(await readdir(root).catch(() => [])).toEqual([]);
  });

  it("another web site can neither start a turn nor answer its question", async () => {
    const port = await listening();
    const evil = { Origin: "https://evil.example", "Sec-Fetch-Site": "cross-site" };
    // What any page can make a browser send without asking the server first.
    const form = { ...evil, "Content-Type": "text/plain" };
    expect((await postRaw(port, "/turns", json({ message: "hi" }), form)).status).toBe(403);
    expect((await postRaw(port, "/turns", json({ message: "hi" }), evil)).status).toBe(403);
    const noOrigin = { "Sec-Fetch-Site": "cross-site" };
    expect((await postRaw(port, "/turns", json({ message: "hi" }), noOrigin)).status).toBe(403);
    // A site that points its own name at 127.0.0.1 is same-origin with itself: its host is refused.
    const rebound = { Host: `evil.example:${port}`, Origin: `http://evil.example:${port}` };
    expect((await postRaw(port, "/turns", json({ message: "hi" }), rebound)).status).toBe(421);
    expect(await readdir(root).catch(() => [])).toEqual([]);

    // The person's own page (the server's origin) starts a turn; a foreign page cannot answer.
    const own = { Origin: `http://127.0.0.1:${port}` };
    const started = await postRaw(port, "/turns", json({ message: "Set up my account" }), own);
    expect(started.status).toBe(200);
    const answers = `/turns/${started.json.conversation}/answers`;
    const pro = json({ prompt_id: "call_plan.plan.1", reply: { type: "answer", value: "pro" } });
    expect((await postRaw(port, answers, pro, evil)).status).toBe(403);
    // Plain text without an Origin is refused too: a JSON body cannot come from a plain form.
    const plain = await postRaw(port, answers, pro, { "Content-Type": "text/plain" });
    expect(plain.status).toBe(415);
    // The question still waits for the person, who answers it.
    const answered = await postRaw(port, answers, pro, own);
    expect(answered.status).toBe(200);
    expect(answered.json.pending.map((p) => p.prompt_id)).toEqual(["call_plan.seats.1"]);
  });

  it("two turns started in the same instant are both kept, under different names", async () => {
    // The store names conversations after the clock: stop it, as two requests in one tenth of a
    // second would see it.
    vi.useFakeTimers({ toFake: ["Date"], now: new Date("2026-05-01T12:00:00Z") });
    try {
      const port = await listening();
      const [alice, bob] = await Promise.all([
        postRaw(port, "/turns", json({ message: "Alice's request" })),
        postRaw(port, "/turns", json({ message: "Bob's request" })),
      ]);
      expect([alice?.status, bob?.status]).toEqual([200, 200]);
      expect(alice?.json.conversation).not.toBe(bob?.json.conversation);
      expect((await readdir(root)).sort()).toEqual(
        [alice?.json.conversation, bob?.json.conversation].sort(),
      );
    } finally {
      vi.useRealTimers();
    }
  });
});
