// Cases found reviewing suspend and resume as a careful user and an attacker would: each test
// states the behaviour a user relies on.
import {
  type ConversationStream,
  createEvent,
  FileConversationStore,
  type JsonValue,
  SUSPENDED_CALL_METADATA_KEY,
} from "@jp/conversation";
import { describe, expect, it } from "vitest";
import {
  answerPendingPrompt,
  type Executor,
  listPendingPrompts,
  type RunResult,
  resumeInStore,
  ToolCoordinator,
  type ToolsConfig,
  TurnState,
} from "../../src/index.js";
import { MockExecutor, MockExecutorSource } from "../../src/testing/index.js";
import { call, inquiryEvents, toolResponses, unpaired } from "../support.js";
import { form, q, started, tempDir } from "./support.js";

function coordinatorOn(
  stream: ConversationStream,
  tools: ToolsConfig,
  executors: Record<string, Executor>,
): ToolCoordinator {
  return new ToolCoordinator({ stream, tools, executors: new MockExecutorSource(executors) });
}

const UNATTENDED: ToolsConfig = { "*": { run: "unattended" } };
const ran = () => new MockExecutor(() => ({ type: "success", content: "ran" }));

async function suspendedAtOneQuestion(): Promise<ConversationStream> {
  const stream = started();
  await coordinatorOn(stream, UNATTENDED, { asker: form([q("a")]) }).run(
    [call("call_1", "asker")],
    { turn: new TurnState(), suspend: true },
  );
  return stream;
}

describe("review of suspend and resume", () => {
  it("a secret given to resume({answers}) for a prompt still behind a pending one is never written into its marker", async () => {
    const stream = started();
    const executors = () => ({
      one: form([q("a")]),
      login: form([q("token", { answer_type: { type: "secret" } })]),
    });
    const first = await coordinatorOn(stream, UNATTENDED, executors()).run(
      [call("call_1", "one"), call("call_2", "login")],
      { turn: new TurnState(), suspend: true },
    );
    expect(first.pending.map((p) => p.prompt_id)).toEqual(["call_1.a.1", "call_2.token.1"]);
    // The host has the secret in memory now; call_1's question is still unanswered.
    const resumed = await coordinatorOn(stream, UNATTENDED, executors()).resume({
      answers: { "call_2.token.1": "hunter2-secret" },
    });
    expect(resumed.pending.map((p) => p.prompt_id)).toContain("call_2.token.1");
    // What the host saves next must not hold the secret.
    expect(JSON.stringify(stream.toJSON())).not.toContain("hunter2");
  });

  it("resume({answers}) keyed by a permission prompt id is refused, never recorded as 'skipped by user'", async () => {
    const stream = started();
    const tools: ToolsConfig = { worker: { run: "ask" } };
    await coordinatorOn(stream, tools, { worker: ran() }).run([call("call_1", "worker")], {
      turn: new TurnState(),
      suspend: true,
    });
    const resumed = await coordinatorOn(stream, tools, { worker: ran() })
      .resume({ answers: { "call_1#permission": true } })
      .catch((error: unknown) => error);
    // Either refused as a bad host input, or anything but the person's decline.
    if (resumed instanceof Error) return;
    expect(toolResponses(stream).map((r) => r.content)).not.toContain("Tool skipped by user.");
  });

  it("a prompt that stays pending through a resume keeps its deadline and expires on time", async () => {
    const stream = started();
    const executors = () => ({ one: form([q("a")]), two: form([q("b")]) });
    const first = await coordinatorOn(stream, UNATTENDED, executors()).run(
      [call("call_1", "one"), call("call_2", "two")],
      { turn: new TurnState(), suspend: { deadlineMs: 60_000 } },
    );
    const deadline = first.pending.find((p) => p.prompt_id === "call_2.b.1")?.deadline;
    expect(deadline).toBeDefined();
    answerPendingPrompt(stream, "call_1.a.1", { type: "answer", value: true })._unsafeUnwrap();
    const resumed = await coordinatorOn(stream, UNATTENDED, executors()).resume();
    expect(resumed.pending.map((p) => [p.prompt_id, p.deadline])).toEqual([
      ["call_2.b.1", deadline],
    ]);
    expect(listPendingPrompts(stream, new Date(Date.now() + 120_000))[0]?.expired).toBe(true);
  });

  it("a bad deadlineMs (NaN, 1e300) rejects before anything is recorded; Infinity means no deadline", async () => {
    for (const deadlineMs of [Number.NaN, Number.POSITIVE_INFINITY, 1e300]) {
      const stream = started();
      const before = stream.events.length;
      const outcome = await coordinatorOn(stream, UNATTENDED, { asker: form([q("a")]) })
        .run([call("call_1", "asker")], { turn: new TurnState(), suspend: { deadlineMs } })
        .then(
          (result: RunResult) => result,
          (error: unknown) => error as Error,
        );
      if (outcome instanceof Error) {
        // A bad option rejects before anything is recorded, as promptTimeoutMs does.
        expect({ deadlineMs, events: stream.events.length }).toEqual({
          deadlineMs,
          events: before,
        });
      } else {
        expect(outcome.pending).toHaveLength(1);
        expect(listPendingPrompts(stream)).toHaveLength(1);
      }
    }
  });

  it("a suspended call that JP (or an older SDK) repaired as interrupted is no longer pending, and resume() does not answer it twice", async () => {
    const stream = await suspendedAtOneQuestion();
    // JP's repair, which keeps metadata it does not know: the call and its question are closed.
    stream.append(
      createEvent("inquiry_response", {
        id: "call_1.a.1",
        outcome: "cancelled",
        reason: "interrupted",
      }),
      createEvent("tool_call_response", {
        id: "call_1",
        content: "Tool call was interrupted.",
        is_error: true,
      }),
    );
    expect(listPendingPrompts(stream)).toEqual([]);
    const resumed = await coordinatorOn(stream, UNATTENDED, { asker: form([q("a")]) }).resume();
    expect(resumed.responses).toEqual([]);
    expect(unpaired(stream.events, "tool_call")).toEqual({ requests: [], responses: [] });
  });

  it("a marker this version cannot read (v: 2, or damaged) makes resume() say so instead of doing nothing", async () => {
    const stream = await suspendedAtOneQuestion();
    const index = stream.events.findIndex((e) => e.type === "tool_call_request");
    const { metadata } = stream.events[index] as { metadata: Record<string, JsonValue> };
    const marker = metadata[SUSPENDED_CALL_METADATA_KEY] as Record<string, JsonValue>;
    stream.setMetadata(index, SUSPENDED_CALL_METADATA_KEY, { ...marker, v: 2 })._unsafeUnwrap();

    const outcome = await coordinatorOn(stream, UNATTENDED, { asker: form([q("a")]) })
      .resume()
      .then(
        (result: RunResult) => result,
        (error: unknown) => error as Error,
      );
    stream.sanitize();
    // Acceptable: a clear error naming the unreadable marker, listing it, or repairing the call.
    const told = outcome instanceof Error || outcome.pending.length > 0;
    const repaired = unpaired(stream.events, "tool_call").requests.length === 0;
    expect({ told, repaired }).not.toEqual({ told: false, repaired: false });
  });

  it("a call whose tool was disabled while suspended finishes, and its pending question is closed as a backend failure", async () => {
    const stream = await suspendedAtOneQuestion();
    answerPendingPrompt(stream, "call_1.a.1", { type: "answer", value: true })._unsafeUnwrap();
    const disabled: ToolsConfig = {
      "*": { run: "unattended" },
      asker: { enable: { state: false } },
    };
    const resumed = await coordinatorOn(stream, disabled, { asker: form([q("a")]) }).resume();
    expect(resumed.responses.map((r) => r.is_error)).toEqual([true]);
    expect(unpaired(stream.events, "inquiry")).toEqual({ requests: [], responses: [] });
    // Closed, and not as the person's own cancel or answer to a tool that never saw it.
    expect(inquiryEvents(stream).at(-1)).toMatchObject({ id: "call_1.a.1", outcome: "cancelled" });
  });

  it("the turn state is kept once per suspension, so N pending prompts write O(N) bytes", async () => {
    const bytesPerPrompt = async (n: number) => {
      const stream = started();
      const calls = Array.from({ length: n }, (_, i) => call(`call_${i}`, "asker"));
      const { pending } = await coordinatorOn(stream, UNATTENDED, { asker: form([q("a")]) }).run(
        calls,
        { turn: new TurnState(), suspend: true },
      );
      expect(pending).toHaveLength(n);
      return JSON.stringify(stream.toJSON()).length / n;
    };
    const small = await bytesPerPrompt(20);
    const large = await bytesPerPrompt(200);
    expect(large / small).toBeLessThan(1.5);
  });

  it("resume({answers}) for a prompt id that is not pending (a typo) is a typed error", async () => {
    const stream = await suspendedAtOneQuestion();
    const before = JSON.stringify(stream.toJSON());
    await expect(
      coordinatorOn(stream, UNATTENDED, { asker: form([q("a")]) }).resume({
        answers: { "call_1.a.7": true },
      }),
    ).rejects.toThrow(/call_1\.a\.7/);
    // Refused before anything changed.
    expect(JSON.stringify(stream.toJSON())).toBe(before);
  });

  it("two workers resuming the same answered turn through resumeInStore: the tool runs once, the other worker is told the turn is claimed", async () => {
    const dir = await tempDir();
    try {
      let deployments = 0;
      const deploy = () =>
        new MockExecutor((input) => {
          if (!Object.hasOwn(input.answers, "go"))
            return { type: "needs_input", question: q("go") };
          deployments++;
          return { type: "success", content: "deployed" };
        });
      const store = new FileConversationStore(dir.path);
      const conversation = store.create();
      conversation.stream.startTurn("Deploy.");
      await coordinatorOn(conversation.stream, UNATTENDED, { deploy: deploy() }).run(
        [call("call_1", "deploy")],
        { turn: new TurnState(), suspend: true },
      );
      answerPendingPrompt(conversation.stream, "call_1.go.1", { type: "answer", value: true });
      (await store.save(conversation))._unsafeUnwrap();
      // Two workers (or two HTTP requests) pick the turn up at once: resumeInStore claims the
      // turn first, so exactly one resumes it and the other is told it is claimed.
      const resume = (c: { stream: ConversationStream }) =>
        coordinatorOn(c.stream, UNATTENDED, { deploy: deploy() }).resume();
      const [a, b] = await Promise.all([
        resumeInStore(store, conversation.name, resume, { owner: "worker a" }),
        resumeInStore(store, conversation.name, resume, { owner: "worker b" }),
      ]);
      expect([a, b].filter((r) => r.isOk())).toHaveLength(1);
      expect([a, b].find((r) => r.isErr())?._unsafeUnwrapErr().kind).toBe("claimed");
      expect(deployments).toBe(1);
    } finally {
      await dir.remove();
    }
  });
});
