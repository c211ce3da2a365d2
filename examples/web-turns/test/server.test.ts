import { mkdtemp, rm } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTurnServer, type TurnView } from "../src/server.js";

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
});
