import type { JsonValue } from "@jp/conversation";
import { err } from "neverthrow";
import { describe, expect, it } from "vitest";
import { type QuestionPromptRequest, type QuestionReply, TurnState } from "../../src/index.js";
import {
  MockExecutor,
  MockExecutorSource,
  MockInquiryBackend,
  MockPromptBackend,
  waitForAbort,
} from "../../src/testing/index.js";
import { coordinatorFor, inquiryTrail } from "../helpers.js";
import {
  asking,
  booleanQuestion,
  call,
  deferred,
  inquiryEvents,
  macrotasks,
  recordEmitted,
  selectQuestion,
  textQuestion,
  toolResponses,
  UNATTENDED,
  unpaired,
} from "../support.js";

/** A tool that waits a tick before each question, so that concurrent tools interleave. */
function politeAsker(questions: Parameters<typeof asking>[0]) {
  const inner = asking(questions);
  return new MockExecutor(async (input) => {
    await macrotasks(1);
    return inner.execute(input);
  });
}

describe("concurrent tool calls", () => {
  it("three tools asking questions: one prompt at a time, each tool gets its own answers, results in call order", async () => {
    const answers: Record<string, Record<string, JsonValue>> = {
      alpha: { confirm: true, pick: "red" },
      beta: { name: "Beta's name" },
      gamma: { pick: "blue", confirm: false },
    };
    // One reply function for every prompt: it answers by who asked, after letting the event loop
    // run, so that an overlapping prompt would be caught open at the same time.
    const reply = async (request: QuestionPromptRequest): Promise<QuestionReply> => {
      await macrotasks(3);
      const value = answers[request.tool_name]?.[request.question.id];
      if (value === undefined) throw new Error(`unexpected prompt ${request.inquiry_id}`);
      return { type: "answer", value };
    };
    const human = new MockPromptBackend({ questions: Array.from({ length: 5 }, () => reply) });
    const { stream, coordinator } = coordinatorFor({
      tools: UNATTENDED,
      executors: new MockExecutorSource({
        alpha: politeAsker([booleanQuestion(), selectQuestion()]),
        beta: politeAsker([textQuestion()]),
        gamma: politeAsker([selectQuestion(), booleanQuestion()]),
      }),
      prompts: human,
    });
    const emitted = recordEmitted(coordinator);

    const { responses } = await coordinator.run(
      [call("call_a", "alpha"), call("call_b", "beta"), call("call_c", "gamma")],
      { turn: new TurnState() },
    );

    expect(human.maxConcurrentPrompts).toBe(1);
    expect(human.unscripted).toEqual([]);
    // The coordinator's own view: every prompt is answered before the next is shown.
    const promptEvents = emitted.flatMap((e) =>
      e.name === "prompt-shown" || e.name === "prompt-answered" ? [e.name] : [],
    );
    expect(promptEvents).toEqual(
      Array.from({ length: 5 }, () => ["prompt-shown", "prompt-answered"]).flat(),
    );
    // The tools really ran concurrently: the first three prompts come from three different tools.
    expect(new Set(human.questions.slice(0, 3).map((q) => q.tool_name))).toEqual(
      new Set(["alpha", "beta", "gamma"]),
    );
    expect(responses.map((r) => [r.id, r.content, r.is_error])).toEqual([
      ["call_a", 'answers: {"confirm":true,"pick":"red"}', false],
      ["call_b", `answers: {"name":"Beta's name"}`, false],
      ["call_c", 'answers: {"pick":"blue","confirm":false}', false],
    ]);
    // The stream has each call's response once, appended as that call finished (call_b had the
    // shortest walk); the run's result keeps the order of the calls.
    expect(toolResponses(stream).map((r) => r.id)).toEqual(["call_b", "call_a", "call_c"]);
    // Every recorded request has exactly one response with the same id, and its own answer.
    expect(unpaired(stream.events, "inquiry")).toEqual({ requests: [], responses: [] });
    const ids = inquiryEvents(stream).map((e) => e.id);
    expect(ids.filter((id, i) => ids.indexOf(id) === i).sort()).toEqual(
      [
        "call_a.confirm.1",
        "call_a.pick.1",
        "call_b.name.1",
        "call_c.confirm.1",
        "call_c.pick.1",
      ].sort(),
    );
    for (const id of new Set(ids)) expect(ids.filter((x) => x === id)).toHaveLength(2);
    const answered = Object.fromEntries(
      inquiryTrail(stream.events).flatMap((e) =>
        "answered" in e ? [[e.response, e.answered]] : [],
      ),
    );
    expect(answered).toEqual({
      "call_a.confirm.1": true,
      "call_a.pick.1": "red",
      "call_b.name.1": "Beta's name",
      "call_c.pick.1": "blue",
      "call_c.confirm.1": false,
    });
  });

  it("a slow LLM inquiry for one tool does not block another tool's human prompt", async () => {
    const log: string[] = [];
    const promptShown = deferred();
    const llm = new MockInquiryBackend(async () => {
      log.push("inquiry started");
      // Waits for the human prompt of the other tool; if that prompt were held behind this
      // inquiry, the fallback ends the wait and the log shows the wrong order.
      await Promise.race([promptShown.promise, macrotasks(50)]);
      log.push("inquiry answered");
      return true;
    });
    const human = new MockPromptBackend({
      questions: [
        () => {
          log.push("human prompted");
          promptShown.resolve();
          return { type: "answer", value: "Ada" };
        },
      ],
    });
    const { coordinator } = coordinatorFor({
      tools: { ...UNATTENDED, slow: { questions: { confirm: { target: "assistant" } } } },
      executors: new MockExecutorSource({
        slow: asking([booleanQuestion()]),
        fast: politeAsker([textQuestion()]),
      }),
      prompts: human,
      inquiries: llm,
    });

    const { responses } = await coordinator.run([call("call_1", "slow"), call("call_2", "fast")], {
      turn: new TurnState(),
    });

    expect(log).toEqual(["inquiry started", "human prompted", "inquiry answered"]);
    expect(responses.map((r) => r.content)).toEqual([
      'answers: {"confirm":true}',
      'answers: {"name":"Ada"}',
    ]);
  });

  it("LLM inquiries of different tools run in parallel (they are not serialized like prompts)", async () => {
    let active = 0;
    let maxActive = 0;
    const bothStarted = deferred();
    const llm = new MockInquiryBackend(async () => {
      active++;
      maxActive = Math.max(maxActive, active);
      if (active === 2) bothStarted.resolve();
      await Promise.race([bothStarted.promise, macrotasks(50)]);
      active--;
      return true;
    });
    const { coordinator } = coordinatorFor({
      tools: {
        ...UNATTENDED,
        one: { questions: { confirm: { target: "assistant" } } },
        two: { questions: { confirm: { target: "assistant" } } },
      },
      executors: new MockExecutorSource({
        one: asking([booleanQuestion()]),
        two: asking([booleanQuestion()]),
      }),
      inquiries: llm,
    });

    const { responses } = await coordinator.run([call("call_1", "one"), call("call_2", "two")], {
      turn: new TurnState(),
    });

    expect(maxActive).toBe(2);
    expect(responses.map((r) => r.content)).toEqual([
      'answers: {"confirm":true}',
      'answers: {"confirm":true}',
    ]);
  });
});

describe("aborting a run", () => {
  it("while a prompt is open: cancelled{user}, queued prompts never shown, every call gets a response", async () => {
    const controller = new AbortController();
    const human = new MockPromptBackend({
      questions: [waitForAbort<QuestionReply>(), waitForAbort<QuestionReply>()],
    });
    const workerStarted = deferred();
    const worker = new MockExecutor(
      (input) =>
        new Promise((_resolve, reject) => {
          workerStarted.resolve();
          input.signal.addEventListener("abort", () => reject(new Error("aborted")), {
            once: true,
          });
        }),
    );
    const thinker = new MockInquiryBackend(
      (_input, signal) =>
        new Promise((resolve) => {
          signal.addEventListener(
            "abort",
            () => resolve(err({ kind: "cancelled", message: "the inquiry was cancelled" })),
            { once: true },
          );
        }),
    );
    const { stream, coordinator } = coordinatorFor({
      tools: { ...UNATTENDED, thinker: { questions: { confirm: { target: "assistant" } } } },
      executors: new MockExecutorSource({
        asker: asking([booleanQuestion()]),
        queued: politeAsker([textQuestion()]),
        worker,
        thinker: asking([booleanQuestion()]),
      }),
      prompts: human,
      inquiries: thinker,
    });
    // Abort once the first prompt is open and the other tools have had time to get going.
    coordinator.once("prompt-shown", () => {
      void workerStarted.promise.then(() => macrotasks(5)).then(() => controller.abort());
    });

    const { responses, endTurn } = await coordinator.run(
      [
        call("call_1", "asker"),
        call("call_2", "queued"),
        call("call_3", "worker"),
        call("call_4", "thinker"),
      ],
      { turn: new TurnState(), signal: controller.signal },
    );

    expect(endTurn).toBe(false);
    expect(human.questions.map((q) => q.inquiry_id)).toEqual(["call_1.confirm.1"]);
    expect(responses.map((r) => [r.id, r.content, r.is_error])).toEqual([
      ["call_1", "Tool input cancelled by user.", false],
      ["call_2", "Tool input cancelled by user.", false],
      ["call_3", "Tool execution cancelled.", false],
      [
        "call_4",
        `The tool 'thinker' asked a follow-up question ("Go ahead?") that was routed to a secondary assistant for resolution, but the secondary assistant failed to provide a valid answer. Error: the inquiry was cancelled. You may retry the tool call or end the turn.`,
        true,
      ],
    ]);
    const cancelled = inquiryTrail(stream.events).filter((e) => "response" in e);
    expect(cancelled).toEqual(
      expect.arrayContaining([
        { response: "call_1.confirm.1", cancelled: "user" },
        { response: "call_2.name.1", cancelled: "user" },
        { response: "call_4.confirm.1", cancelled: "user" },
      ]),
    );
    expect(cancelled).toHaveLength(3);
    expect(unpaired(stream.events, "inquiry")).toEqual({ requests: [], responses: [] });
    expect(unpaired(stream.events, "tool_call")).toEqual({ requests: [], responses: [] });
  });

  it("the human ends the turn from a form: every open question and call is closed", async () => {
    const human = new MockPromptBackend({ questions: [{ type: "end_turn" }] });
    const form = new MockExecutor(() => ({
      type: "needs_input",
      question: booleanQuestion(),
      form: { index: 1, total: 2 },
    }));
    const { stream, coordinator } = coordinatorFor({
      tools: UNATTENDED,
      executors: new MockExecutorSource({
        ask_user: form,
        queued: politeAsker([textQuestion()]),
      }),
      prompts: human,
    });

    const { responses, endTurn } = await coordinator.run(
      [call("call_1", "ask_user"), call("call_2", "queued")],
      { turn: new TurnState() },
    );

    expect(endTurn).toBe(true);
    expect(human.questions.map((q) => q.controls.end_turn)).toEqual([true]);
    expect(responses.map((r) => r.id)).toEqual(["call_1", "call_2"]);
    // The queued call never showed its question: the record says the turn ended, not that the
    // person cancelled it.
    expect(responses[1]?.content).toBe("The user ended the turn.");
    expect(inquiryTrail(stream.events).filter((e) => "response" in e)).toEqual(
      expect.arrayContaining([
        { response: "call_1.confirm.1", cancelled: "end_turn" },
        { response: "call_2.name.1", cancelled: "turn_ended" },
      ]),
    );
    expect(unpaired(stream.events, "inquiry")).toEqual({ requests: [], responses: [] });
    expect(unpaired(stream.events, "tool_call")).toEqual({ requests: [], responses: [] });
  });

  it('while a tool executes: "Tool execution cancelled."', async () => {
    const controller = new AbortController();
    const started = deferred();
    const tool = new MockExecutor(
      (input) =>
        new Promise((_resolve, reject) => {
          started.resolve();
          input.signal.addEventListener("abort", () => reject(new Error("killed")), { once: true });
        }),
    );
    const { stream, coordinator } = coordinatorFor({
      tools: UNATTENDED,
      executors: new MockExecutorSource({ build: tool }),
    });
    void started.promise.then(() => controller.abort());

    const { responses } = await coordinator.run([call("call_1", "build")], {
      turn: new TurnState(),
      signal: controller.signal,
    });

    expect(responses.map((r) => [r.content, r.is_error])).toEqual([
      ["Tool execution cancelled.", false],
    ]);
    expect(toolResponses(stream)).toEqual([
      { id: "call_1", content: "Tool execution cancelled.", is_error: false },
    ]);
    expect(tool.executions).toHaveLength(1);
  });

  it("a run whose signal is already aborted runs no tool and still answers every call", async () => {
    const controller = new AbortController();
    controller.abort();
    const tool = asking([booleanQuestion()]);
    const { stream, coordinator } = coordinatorFor({
      tools: UNATTENDED,
      executors: new MockExecutorSource({ build: tool }),
    });

    const { responses } = await coordinator.run(
      [call("call_1", "build"), call("call_2", "build")],
      {
        turn: new TurnState(),
        signal: controller.signal,
      },
    );

    expect(tool.executions).toHaveLength(0);
    expect(responses.map((r) => [r.id, r.content])).toEqual([
      ["call_1", "Tool execution cancelled."],
      ["call_2", "Tool execution cancelled."],
    ]);
    expect(unpaired(stream.events, "tool_call")).toEqual({ requests: [], responses: [] });
  });
});
