import { ConversationStream, type StreamEvent } from "@jp/conversation";
import { ToolCoordinator, type ToolsConfig, TurnState } from "@jp/coordinator";
import { MockExecutor, MockExecutorSource } from "@jp/coordinator/testing";
import { afterEach, describe, expect, it } from "vitest";
import { type ChildSession, FIXTURE_CLIENT, STARTUP_MS, spawnClient } from "./child-client.js";

// End to end: a real ToolCoordinator, the RPC backend, and a UI client in a child process.

let session: ChildSession | undefined;
afterEach(() => session?.stop());

/** A tool that asks one question and reports the answer. */
const asking = (answer_type: { type: "boolean" } | { type: "select"; options: string[] }) =>
  new MockExecutor((input) =>
    input.answers.q === undefined
      ? { type: "needs_input", question: { id: "q", text: "Deploy to production?", answer_type } }
      : { type: "success", content: `answered: ${JSON.stringify(input.answers.q)}` },
  );

async function runOneCall(tools: ToolsConfig, executor: MockExecutor, child: ChildSession) {
  const stream = ConversationStream.empty();
  stream.startTurn("Please deploy.");
  const coordinator = new ToolCoordinator({
    stream,
    tools,
    executors: new MockExecutorSource({ deploy: executor }),
    prompts: child.backend,
  });
  const shown: string[] = [];
  coordinator.on("prompt-shown", ({ request }) => shown.push(request.kind));
  const { responses } = await coordinator.run([{ id: "call_1", name: "deploy", arguments: {} }], {
    turn: new TurnState(),
  });
  return { responses, shown, inquiries: inquiryEvents(stream.events) };
}

function inquiryEvents(events: readonly StreamEvent[]) {
  return events
    .filter((e) => e.type === "inquiry_request" || e.type === "inquiry_response")
    .map(({ timestamp: _timestamp, ...rest }) => rest);
}

describe("ToolCoordinator with the RPC backend", { timeout: STARTUP_MS + 10_000 }, () => {
  it("asks a rich client for permission and an answer, and records the answered pair", async () => {
    session = await spawnClient(FIXTURE_CLIENT, ["rich"]);
    const { responses, shown, inquiries } = await runOneCall(
      { deploy: { run: "ask" } },
      asking({ type: "boolean" }),
      session,
    );
    expect(shown).toEqual(["permission", "question"]);
    expect(responses.map((r) => [r.content, r.is_error])).toEqual([["answered: true", false]]);
    expect(inquiries).toEqual([
      {
        type: "inquiry_request",
        id: "call_1.q.1",
        source: { source: "tool", name: "deploy" },
        question: expect.objectContaining({ text: "Deploy to production?" }),
      },
      { type: "inquiry_response", outcome: "answered", id: "call_1.q.1", answer: true },
    ]);
  });

  it("asks a simple client through client/ask_user, a select answered by its choice", async () => {
    session = await spawnClient(FIXTURE_CLIENT, [
      "simple",
      JSON.stringify({ "Deploy to production?": "canary" }),
    ]);
    const { responses, inquiries } = await runOneCall(
      { deploy: { run: "unattended" } },
      asking({ type: "select", options: ["full", "canary"] }),
      session,
    );
    expect(responses.map((r) => r.content)).toEqual(['answered: "canary"']);
    expect(inquiries.at(-1)).toEqual({
      type: "inquiry_response",
      outcome: "answered",
      id: "call_1.q.1",
      answer: "canary",
    });
  });
});
