import { HumanUnreachableError, type PromptRequest, PromptUnsupportedError } from "@jp/coordinator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PromptReply } from "../src/index.js";
import { type ChildSession, FIXTURE_CLIENT, STARTUP_MS, spawnClient } from "./child-client.js";
import { never, REQUESTS } from "./support.js";

// The backend in this process, a real client in a child process (test/fixtures/client.ts),
// talking over the child's stdin/stdout. No timing assertions: each test is bounded by a timeout.

const TIMEOUT = { timeout: STARTUP_MS + 10_000 };

/** A request whose tool_name is the fixture's directive. */
const directed = <R extends PromptRequest>(request: R, directive: string): R => ({
  ...request,
  tool_name: directive,
  tool_call_id: `call_${directive}`,
});

describe("a rich client in a child process", TIMEOUT, () => {
  let session: ChildSession;
  beforeAll(async () => {
    session = await spawnClient(FIXTURE_CLIENT, ["rich"]);
  }, STARTUP_MS + 5000);
  afterAll(() => session?.stop());

  it("said hello with its capabilities", () => {
    expect(session.backend.client).toEqual({
      protocol_version: 1,
      capabilities: { prompts: "rich" },
      client_info: { name: "fixture-client" },
    });
  });

  it.each<[string, PromptRequest, PromptReply]>([
    ["answer", REQUESTS.select, { type: "answer", value: "blue", remember: true }],
    ["back", REQUESTS.boolean, { type: "back" }],
    ["reply", REQUESTS.text, { type: "reply", message: "use the staging database" }],
    ["end_turn", REQUESTS.text, { type: "end_turn" }],
    ["cancelled", REQUESTS.text, { type: "cancelled" }],
    ["run", REQUESTS.permission, { type: "run", remember: true }],
    ["skip", REQUESTS.permission, { type: "skip", reason: "not now" }],
    ["edit_arguments", REQUESTS.permissionEdit, { type: "edit", arguments: { cmd: "ls -la" } }],
    ["deliver", REQUESTS.deliver, { type: "deliver" }],
    ["deliver_skip", REQUESTS.deliver, { type: "skip" }],
    ["deliver_edit", REQUESTS.deliverEdit, { type: "edit", content: "shortened" }],
  ])("gets the typed reply %s", async (directive, request, expected) => {
    const reply = await session.backend.ask(directed(request, directive), { signal: never() });
    expect(reply).toEqual(expected);
  });

  it("rejects an invalid reply and a failing handler with a clear message", async () => {
    const ask = (directive: string) =>
      session.backend.ask(directed(REQUESTS.boolean, directive), { signal: never() });
    await expect(ask("invalid")).rejects.toThrow(
      /is not a valid reply: value: expected a JSON value/,
    );
    await expect(ask("throw")).rejects.toThrow(/the dialog crashed/);
  });

  it("answers a garbage line with a parse error and the next exchange still works", async () => {
    const first = await session.backend.ask(directed(REQUESTS.text, "garbage"), {
      signal: never(),
    });
    expect(first).toEqual({ type: "answer", value: "after garbage" });
    expect(session.protocolErrors.map((e) => e.message)).toContainEqual(
      expect.stringContaining("not JSON"),
    );
    const report = await session.backend.ask(directed(REQUESTS.text, "report"), {
      signal: never(),
    });
    // The client received the server's -32700 answer (id null) and logged it.
    expect(report).toMatchObject({
      type: "answer",
      value: { protocol_errors: [expect.stringContaining("Parse error")] },
    });
  });

  it("correlates concurrent prompts answered out of order", async () => {
    const signal = never();
    const held = session.backend.ask(directed(REQUESTS.text, "hold"), { signal });
    const release = session.backend.ask(directed(REQUESTS.text, "release"), { signal });
    const others = [REQUESTS.boolean, REQUESTS.select].map((r) =>
      session.backend.ask(r, { signal }),
    );
    expect(await Promise.all([held, release, ...others])).toEqual([
      { type: "answer", value: "held" },
      { type: "answer", value: "released" },
      { type: "answer", value: true },
      { type: "answer", value: "red" },
    ]);
  });

  it("carries a cancellation to the client, whose handler sees its signal abort", async () => {
    const controller = new AbortController();
    const cancelled = session.backend.ask(directed(REQUESTS.boolean, "wait_for_cancel"), {
      signal: controller.signal,
    });
    await session.stderrIncludes("showing call_wait_for_cancel");
    controller.abort();
    expect(await cancelled).toEqual({ type: "cancelled" });
    // $/cancelRequest was written before this prompt, so the client has seen it by now.
    const report = await session.backend.ask(directed(REQUESTS.text, "report"), {
      signal: never(),
    });
    expect(report).toMatchObject({ value: { aborted: ["call_wait_for_cancel"] } });
  });
});

describe("a simple client in a child process", TIMEOUT, () => {
  let session: ChildSession;
  beforeAll(async () => {
    const answers = { "What about confirm?": "yes", "What about colour?": "blue" };
    session = await spawnClient(FIXTURE_CLIENT, ["simple", JSON.stringify(answers)]);
  }, STARTUP_MS + 5000);
  afterAll(() => session?.stop());

  it("answers client/ask_user: a select and a boolean map back to typed answers", async () => {
    const signal = never();
    expect(await session.backend.ask(REQUESTS.select, { signal })).toEqual({
      type: "answer",
      value: "blue",
    });
    expect(await session.backend.ask(REQUESTS.boolean, { signal })).toEqual({
      type: "answer",
      value: true,
    });
  });

  it("sends Opal's params: session_id, question, and no choices for free text", async () => {
    const reply = await session.backend.ask(REQUESTS.text, { signal: never() });
    const echoed = reply.type === "answer" ? JSON.parse(String(reply.value)) : undefined;
    expect(echoed).toEqual({ session_id: "session-1", question: "What about name?" });
  });

  it("refuses a secret question without sending it", async () => {
    const reply = session.backend.ask(REQUESTS.secret, { signal: never() });
    await expect(reply).rejects.toBeInstanceOf(PromptUnsupportedError);
    await expect(reply).rejects.toThrow(
      "this person can only answer boolean, select and text questions: a secret question needs hidden input",
    );
  });
});

describe("a client that goes away mid-question", TIMEOUT, () => {
  const hangingText = { ...REQUESTS.text, question: { ...REQUESTS.text.question, text: "hang" } };
  it.each<[string, "rich" | "simple", PromptRequest, (session: ChildSession) => void]>([
    ["is killed", "rich", directed(REQUESTS.boolean, "hang"), (s) => s.child.kill("SIGKILL")],
    ["exits by itself", "rich", directed(REQUESTS.boolean, "exit"), () => {}],
    ["(simple) is killed", "simple", hangingText, (s) => s.child.kill("SIGTERM")],
  ])(
    "rejects the pending prompt as unreachable when the client %s, and no human is reachable",
    async (_name, mode, request, goAway) => {
      const session = await spawnClient(FIXTURE_CLIENT, [mode]);
      try {
        const pending = session.backend.ask(request, { signal: never() });
        await session.stderrIncludes(mode === "rich" ? `showing ${request.tool_call_id}` : "hang");
        goAway(session);
        await expect(pending).rejects.toBeInstanceOf(HumanUnreachableError);
        await expect(pending).rejects.toThrow(/^their client disconnected: /);
        expect(await session.backend.isHumanReachable()).toBe(false);
        expect(session.backend.state).toBe("closed");
      } finally {
        await session.stop();
      }
    },
  );
});
