// A turn suspended at many prompts at once: answering them one by one in any order, two calls
// that share an id, and the order the resumed prompts keep.
import type { ConversationStream, JsonValue } from "@jp/conversation";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  answerPendingPrompt,
  listPendingPrompts,
  PENDING_METADATA_KEY,
  ToolCoordinator,
  type ToolsConfig,
  TurnState,
} from "../../src/index.js";
import { MockExecutorSource, MockPromptBackend } from "../../src/testing/index.js";
import { call } from "../support.js";
import {
  form,
  perCall,
  q,
  runLive,
  runSuspended,
  type Scenario,
  started,
  tempDir,
} from "./support.js";

const UNATTENDED: ToolsConfig = { "*": { run: "unattended" } };
const N = 40;

// N calls of a form asking `questions`, suspended at their first questions.
async function suspendedAtMany(questions = [q("a")], tools = UNATTENDED) {
  const stream = started();
  const coordinatorFor = (prompts?: MockPromptBackend) =>
    new ToolCoordinator({
      stream,
      tools,
      executors: new MockExecutorSource({ asker: form(questions) }),
      ...(prompts === undefined ? {} : { prompts }),
    });
  const calls = Array.from({ length: N }, (_, i) => call(`call_${i}`, "asker"));
  const result = await coordinatorFor().run(calls, { turn: new TurnState(), suspend: true });
  return { stream, coordinatorFor, result };
}

// Every index below n once, in an order far from the natural one.
const scrambled = (n: number) => Array.from({ length: n }, (_, i) => (i * 17 + 5) % n);

const contentOf = (stream: ConversationStream, id: string) =>
  (stream.toJSON() as { type: string; id?: string; content?: string }[]).find(
    (e) => e.type === "tool_call_response" && e.id === id,
  )?.content;

describe("answering many pending prompts of one turn", () => {
  it("takes them one by one in any order, each on its own prompt, and the resumed turn applies each", async () => {
    const { stream, coordinatorFor, result } = await suspendedAtMany();
    expect(result.pending).toHaveLength(N);
    const order = scrambled(N);
    const answered = new Set<string>();
    for (const [k, i] of order.entries()) {
      const promptId = `call_${i}.a.1`;
      const taken = answerPendingPrompt(stream, promptId, { type: "answer", value: i % 3 === 0 });
      expect(taken._unsafeUnwrap()).toMatchObject({ prompt_id: promptId, answered: true });
      answered.add(promptId);
      if (k % 10 === 9) {
        expect(
          listPendingPrompts(stream)
            .filter((p) => p.answered)
            .map((p) => p.prompt_id)
            .sort(),
        ).toEqual([...answered].sort());
      }
    }
    // Each prompt takes one answer only, whichever order they came in.
    for (const i of order.slice(0, 5)) {
      const again = answerPendingPrompt(stream, `call_${i}.a.1`, { type: "answer", value: true });
      expect(again._unsafeUnwrapErr().kind).toBe("already_answered");
    }
    expect(answerPendingPrompt(stream, "call_x.a.1", { type: "answer", value: true }).isErr()).toBe(
      true,
    );

    const resumed = await coordinatorFor().resume();
    expect(resumed.pending).toEqual([]);
    for (let i = 0; i < N; i++) {
      expect(contentOf(stream, `call_${i}`)).toBe(JSON.stringify({ a: i % 3 === 0 }));
    }
  });

  it("finds each prompt as the turn is now: after a resume re-marks the calls, a marker removed, a claim written, a new turn", async () => {
    const { stream, coordinatorFor } = await suspendedAtMany([q("a"), q("b")]);
    for (const i of [3, 1, 0, 2]) {
      answerPendingPrompt(stream, `call_${i}.a.1`, { type: "answer", value: true })._unsafeUnwrap();
    }
    // Resumed with nobody to ask: calls 0–3 move on to their second question, the rest are
    // marked again where they were.
    const second = await coordinatorFor().resume({ suspend: true });
    expect(second.pending).toHaveLength(N);
    expect(second.pending.map((p) => p.prompt_id).sort()).toEqual(
      Array.from({ length: N }, (_, i) => `call_${i}.${i < 4 ? "b" : "a"}.1`).sort(),
    );
    expect(
      answerPendingPrompt(stream, "call_1.a.1", { type: "answer", value: true })._unsafeUnwrapErr()
        .kind,
    ).toBe("unknown_prompt");
    answerPendingPrompt(stream, "call_2.b.1", { type: "answer", value: false })._unsafeUnwrap();
    answerPendingPrompt(stream, "call_9.a.1", { type: "answer", value: true })._unsafeUnwrap();

    const indexOf = (id: string) =>
      stream.events.findIndex((e) => e.type === "tool_call_request" && e.id === id);
    // A marker taken off the call by other code: the prompt is no longer pending.
    stream.setMetadata(indexOf("call_5"), PENDING_METADATA_KEY, undefined)._unsafeUnwrap();
    expect(
      answerPendingPrompt(stream, "call_5.a.1", { type: "answer", value: true })._unsafeUnwrapErr()
        .kind,
    ).toBe("unknown_prompt");
    // A claim written by a worker resuming the turn: answers wait.
    const at = indexOf("call_6");
    const marker = (stream.events[at] as { metadata: Record<string, Record<string, JsonValue>> })
      .metadata[PENDING_METADATA_KEY];
    const until = new Date(Date.now() + 60_000).toISOString();
    stream
      .setMetadata(at, PENDING_METADATA_KEY, { ...marker, claim: { owner: "w", until } })
      ._unsafeUnwrap();
    expect(
      answerPendingPrompt(stream, "call_6.a.1", { type: "answer", value: true })._unsafeUnwrapErr()
        .kind,
    ).toBe("claimed");
    expect(answerPendingPrompt(stream, "call_7.a.1", { type: "answer", value: true }).isOk()).toBe(
      true,
    );
    // A new turn: the prompts of the last one are gone with it.
    stream.startTurn("Something else.");
    expect(
      answerPendingPrompt(stream, "call_8.a.1", { type: "answer", value: true })._unsafeUnwrapErr()
        .kind,
    ).toBe("unknown_prompt");
  });

  it("two calls that share an id both suspend, each marked on its own request", async () => {
    for (const recordedByHost of [false, true]) {
      const stream = started();
      const calls = [call("dup", "asker", { n: 0 }), call("dup", "asker", { n: 1 })];
      if (recordedByHost) {
        for (const c of calls) stream.append({ type: "tool_call_request", ...c } as never);
      }
      const given = recordedByHost
        ? stream.events.filter((e) => e.type === "tool_call_request")
        : calls;
      const coordinator = new ToolCoordinator({
        stream,
        tools: { asker: { run: "ask" } },
        executors: new MockExecutorSource({ asker: form([q("a")]) }),
      });
      const result = await coordinator.run(given as never, {
        turn: new TurnState(),
        suspend: true,
      });
      expect(result.pending.map((p) => p.prompt_id)).toEqual(["dup#permission", "dup#permission"]);
      const marked = stream.events.filter(
        (e) =>
          e.type === "tool_call_request" &&
          (e as { metadata?: Record<string, unknown> }).metadata?.[PENDING_METADATA_KEY] !==
            undefined,
      );
      expect(marked.map((e) => (e as { arguments: unknown }).arguments)).toEqual([
        { n: 0 },
        { n: 1 },
      ]);
      expect(listPendingPrompts(stream)).toHaveLength(2);
    }
  });
});

describe("resuming a turn suspended at many prompts", () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  beforeEach(async () => {
    dir = await tempDir();
  });
  afterEach(async () => {
    await dir.remove();
  });

  it("shows the resumed prompts in the order they were left, those answered since applied in their places, and new prompts after", async () => {
    const { stream, coordinatorFor } = await suspendedAtMany([q("a"), q("b")]);
    const stored = new Set([0, 4, 5, 17, 39]);
    for (const i of [...stored].reverse()) {
      answerPendingPrompt(stream, `call_${i}.a.1`, { type: "answer", value: true })._unsafeUnwrap();
    }
    const human = new MockPromptBackend({
      questions: Array.from({ length: 2 * N }, () => ({ type: "answer" as const, value: false })),
    });
    const done = await coordinatorFor(human).resume();
    expect(done.pending).toEqual([]);
    const shown = human.questions.map((r) => r.inquiry_id);
    const resumed = Array.from({ length: N }, (_, i) => i)
      .filter((i) => !stored.has(i))
      .map((i) => `call_${i}.a.1`);
    // Every prompt left pending comes first, in its place; each call's next question after.
    expect(shown.slice(0, resumed.length)).toEqual(resumed);
    expect(shown.slice(resumed.length).sort()).toEqual(
      Array.from({ length: N }, (_, i) => `call_${i}.b.1`).sort(),
    );
  });

  it("many calls, some hosting sub-agents, answered one prompt at a time through the store, end as when answered live", async () => {
    const kinds = ["boolean", "select", "text"] as const;
    const scenario: Scenario = {
      calls: Array.from({ length: 10 }, (_, i) => ({
        questions: [kinds[i % 3] as (typeof kinds)[number], "boolean"],
        run: i % 2 === 0 ? ("ask" as const) : ("unattended" as const),
        result: "unattended" as const,
        tool: i % 2 === 0 ? ("alpha" as const) : ("beta" as const),
        ...(i % 4 === 1
          ? { agent: { questions: ["boolean"], run: "ask", result: "unattended" } as const }
          : {}),
      })),
      choices: [4, 7, 12, 3, 9, 2, 16, 18],
    };
    const live = await runLive(scenario);
    const { stream } = await runSuspended(scenario, dir.path);
    expect(perCall(stream)).toEqual(perCall(live));
  });
});
