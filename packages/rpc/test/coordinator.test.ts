import { ConversationStream, type StreamEvent } from "@jp/conversation";
import {
  type QuestionPromptRequest,
  ToolCoordinator,
  type ToolsConfig,
  TurnState,
} from "@jp/coordinator";
import { MockExecutor, MockExecutorSource } from "@jp/coordinator/testing";
import { afterEach, describe, expect, it } from "vitest";
import {
  type ChildSession,
  FIXTURE_CLIENT,
  OPAL_CLIENT,
  STARTUP_MS,
  spawnClient,
} from "./child-client.js";

// End to end: a real ToolCoordinator, the RPC backend, and a UI client in a child process.

let session: ChildSession | undefined;
afterEach(() => session?.stop());

type AnswerType = QuestionPromptRequest["question"]["answer_type"];

/** A tool that asks one question and reports the answer. */
const asking = (answer_type: AnswerType, text = "Deploy to production?") =>
  new MockExecutor((input) =>
    input.answers.q === undefined
      ? { type: "needs_input", question: { id: "q", text, answer_type } }
      : { type: "success", content: `answered: ${JSON.stringify(input.answers.q)}` },
  );

async function runCalls(
  tools: ToolsConfig,
  executors: Record<string, MockExecutor>,
  calls: readonly { readonly id: string; readonly name: string }[],
  child: ChildSession,
) {
  const stream = ConversationStream.empty();
  stream.startTurn("Please deploy.");
  const coordinator = new ToolCoordinator({
    stream,
    tools,
    executors: new MockExecutorSource(executors),
    prompts: child.backend,
  });
  const shown: string[] = [];
  coordinator.on("prompt-shown", ({ request }) => shown.push(request.kind));
  const { responses } = await coordinator.run(
    calls.map((call) => ({ ...call, arguments: {} })),
    { turn: new TurnState() },
  );
  return { responses, shown, inquiries: inquiryEvents(stream.events) };
}

const runOneCall = (tools: ToolsConfig, executor: MockExecutor, child: ChildSession) =>
  runCalls(tools, { deploy: executor }, [{ id: "call_1", name: "deploy" }], child);

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

describe("a client that disconnects mid-question", { timeout: STARTUP_MS + 10_000 }, () => {
  it("records the open and the queued prompt as backend errors: the person could not be reached", async () => {
    session = await spawnClient(FIXTURE_CLIENT, ["rich"]);
    const child = session;
    // The fixture never answers a prompt of the tool "hang"; it is killed once one is shown.
    const killed = child.stderrIncludes("showing call_").then(() => child.child.kill("SIGKILL"));
    const { responses, inquiries } = await runCalls(
      { hang: { run: "unattended" } },
      { hang: asking({ type: "boolean" }) },
      [
        { id: "call_1", name: "hang" },
        { id: "call_2", name: "hang" },
      ],
      child,
    );
    await killed;
    expect(inquiries.filter((e) => e.type === "inquiry_response")).toEqual([
      { type: "inquiry_response", outcome: "cancelled", id: "call_1.q.1", reason: "backend_error" },
      { type: "inquiry_response", outcome: "cancelled", id: "call_2.q.1", reason: "backend_error" },
    ]);
    for (const response of responses) {
      expect(response.is_error).toBe(true);
      expect(response.content).toContain("could not be reached");
      expect(response.content).toContain("their client disconnected");
      expect(response.content).not.toContain("cancelled by user");
    }
    expect(await child.backend.isHumanReachable()).toBe(false);
  });
});

describe('a client that speaks Opal\'s protocol (protocol: "opal")', {
  timeout: STARTUP_MS + 10_000,
}, () => {
  it("answers boolean, select and text questions through client/ask_user, without initialize", async () => {
    const answers = { "Deploy?": "yes", "Where?": "canary", "Why?": "the fix is urgent" };
    session = await spawnClient(OPAL_CLIENT, [JSON.stringify(answers)], { protocol: "opal" });
    const { responses, inquiries } = await runCalls(
      {
        boolean: { run: "unattended" },
        select: { run: "unattended" },
        text: { run: "unattended" },
      },
      {
        boolean: asking({ type: "boolean" }, "Deploy?"),
        select: asking({ type: "select", options: ["full", "canary"] }, "Where?"),
        text: asking({ type: "text" }, "Why?"),
      },
      [
        { id: "call_1", name: "boolean" },
        { id: "call_2", name: "select" },
        { id: "call_3", name: "text" },
      ],
      session,
    );
    expect(responses.map((r) => r.content)).toEqual([
      "answered: true",
      'answered: "canary"',
      'answered: "the fix is urgent"',
    ]);
    expect(inquiries.filter((e) => e.type === "inquiry_response")).toEqual(
      ["call_1", "call_2", "call_3"].map((call) =>
        expect.objectContaining({ outcome: "answered", id: `${call}.q.1` }),
      ),
    );
    // Exactly Opal's params, `choices` always present; nothing else but ask_user was sent. The
    // client logs each request on its stderr, which may arrive after the answer it sent.
    const logged = () =>
      (session as NonNullable<typeof session>)
        .stderr()
        .split("\n")
        .filter((line) => line.startsWith("opal-client: "));
    await expect.poll(() => logged().length).toBeGreaterThanOrEqual(3);
    const received = logged().map((line) => JSON.parse(line.slice("opal-client: ".length)));
    expect(received.map((m) => [m.method, Object.keys(m.params).sort()])).toEqual([
      ["client/ask_user", ["choices", "question", "session_id"]],
      ["client/ask_user", ["choices", "question", "session_id"]],
      ["client/ask_user", ["choices", "question", "session_id"]],
    ]);
    expect(received.map((m) => m.params.choices)).toEqual([["yes", "no"], ["full", "canary"], []]);
    expect(session.backend.client).toBeUndefined();
  });

  // The model used to read only "Tool input prompt failed."; it now learns what to ask instead.
  it.each<[string, AnswerType]>([
    ["multi_select", { type: "multi_select", options: ["eu", "us"] }],
    ["schema", { type: "schema", schema: { type: "object" } }],
  ])(
    "refuses a %s question and tells the model which answer types this person can answer",
    async (_name, answer_type) => {
      session = await spawnClient(OPAL_CLIENT, [], { protocol: "opal" });
      const { responses, inquiries } = await runOneCall(
        { deploy: { run: "unattended" } },
        asking(answer_type),
        session,
      );
      expect(inquiries.at(-1)).toEqual({
        type: "inquiry_response",
        outcome: "cancelled",
        id: "call_1.q.1",
        reason: "backend_error",
      });
      expect(responses[0]?.content).toContain(
        "this person can only answer boolean, select and text questions",
      );
      expect(session.stderr()).not.toContain("opal-client:");
    },
  );
});
