import { err, ok } from "neverthrow";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  type DeliverReply,
  type PermissionReply,
  PromptTimedOutError,
  type QuestionReply,
  type RunOptions,
  type ToolsConfig,
  TurnState,
} from "../../src/index.js";
import {
  MockExecutor,
  MockExecutorSource,
  MockInquiryBackend,
  MockPromptBackend,
  type PromptScript,
  waitForAbort,
} from "../../src/testing/index.js";
import { coordinatorFor, inquiryTrail } from "../helpers.js";
import {
  asking,
  booleanQuestion,
  call,
  deferred,
  macrotasks,
  textQuestion,
  toolResponses,
  UNATTENDED,
  unpaired,
} from "../support.js";

// What the model reads for each way a question can end without the person's answer.
const CANCELLED_BY_USER = "Tool input cancelled by user.";
const TIMED_OUT = (within: string) =>
  `Tool input timed out: no answer ${within}. The user did not decline; continue without the answer or ask again later.`;
const INTERRUPTED =
  "Tool input interrupted: the run was stopped before the user answered. The user did not decline.";
const TURN_ENDED = "The user ended the turn.";

/** How a host stops a run, as the `AbortSignal` carries it. */
type Stop = (controller: AbortController) => void;

const STOPS = {
  "a bare abort() (the person's Ctrl+C)": (c: AbortController) => c.abort(),
  "an AbortError reason": (c: AbortController) => c.abort(new DOMException("stop", "AbortError")),
  "a TimeoutError reason (AbortSignal.timeout)": (c: AbortController) =>
    c.abort(new DOMException("The operation timed out.", "TimeoutError")),
  "a shutdown Error reason": (c: AbortController) => c.abort(new Error("SIGTERM: shutting down")),
  "a string reason": (c: AbortController) => c.abort("host shutdown"),
} satisfies Record<string, Stop>;

/** Runs one call whose prompt waits until the run is stopped by `stop` once the prompt shows. */
async function stoppedAtPrompt(tools: ToolsConfig, script: PromptScript, stop: Stop) {
  const controller = new AbortController();
  const tool = asking([booleanQuestion()]);
  const { stream, coordinator } = coordinatorFor({
    tools,
    executors: new MockExecutorSource({ deploy: tool }),
    prompts: new MockPromptBackend(script),
  });
  coordinator.once("prompt-shown", () => void macrotasks(1).then(() => stop(controller)));
  const result = await coordinator.run([call("call_1", "deploy")], {
    turn: new TurnState(),
    signal: controller.signal,
  });
  expect(unpaired(stream.events, "inquiry")).toEqual({ requests: [], responses: [] });
  expect(unpaired(stream.events, "tool_call")).toEqual({ requests: [], responses: [] });
  return { stream, result, tool };
}

describe("the abort reason decides what a stopped question records", () => {
  it("only the person's own stop reads as theirs; a deadline and a shutdown say what happened", async () => {
    const rows: [keyof typeof STOPS, string, string][] = [
      ["a bare abort() (the person's Ctrl+C)", "user", CANCELLED_BY_USER],
      ["an AbortError reason", "user", CANCELLED_BY_USER],
      [
        "a TimeoutError reason (AbortSignal.timeout)",
        "timeout",
        TIMED_OUT("before the time limit"),
      ],
      ["a shutdown Error reason", "interrupted", INTERRUPTED],
      ["a string reason", "interrupted", INTERRUPTED],
    ];
    for (const [stop, reason, content] of rows) {
      const { stream, result, tool } = await stoppedAtPrompt(
        UNATTENDED,
        { questions: [waitForAbort<QuestionReply>()] },
        STOPS[stop],
      );
      expect(
        inquiryTrail(stream.events).filter((e) => "response" in e),
        stop,
      ).toEqual([{ response: "call_1.confirm.1", cancelled: reason }]);
      expect(
        result.responses.map((r) => [r.content, r.is_error]),
        stop,
      ).toEqual([[content, false]]);
      expect(tool.executions, stop).toHaveLength(1);
    }
  });

  it("a real AbortSignal.timeout() is recorded as `timeout`", async () => {
    const tool = asking([textQuestion()]);
    const { stream, coordinator } = coordinatorFor({
      tools: UNATTENDED,
      executors: new MockExecutorSource({ deploy: tool }),
      prompts: new MockPromptBackend({ questions: [waitForAbort<QuestionReply>()] }),
    });
    const { responses } = await coordinator.run([call("call_1", "deploy")], {
      turn: new TurnState(),
      signal: AbortSignal.timeout(20),
    });
    expect(inquiryTrail(stream.events).filter((e) => "response" in e)).toEqual([
      { response: "call_1.name.1", cancelled: "timeout" },
    ]);
    expect(responses[0]?.content).toBe(TIMED_OUT("before the time limit"));
  });

  it.each<[keyof typeof STOPS, string]>([
    [
      "a TimeoutError reason (AbortSignal.timeout)",
      "Tool not run: no permission decision before the time limit. The user did not decline.",
    ],
    [
      "a shutdown Error reason",
      "Tool not run: the run was stopped before the user decided. The user did not decline.",
    ],
  ])(
    "a permission prompt stopped by %s does not say the user skipped the tool",
    async (stop, content) => {
      const { result, tool } = await stoppedAtPrompt(
        { deploy: { run: "ask" } },
        { permissions: [waitForAbort<PermissionReply>()] },
        STOPS[stop],
      );
      expect(result.responses.map((r) => [r.content, r.is_error])).toEqual([[content, false]]);
      expect(tool.executions).toEqual([]);
    },
  );

  it.each<[keyof typeof STOPS, string]>([
    ["a TimeoutError reason (AbortSignal.timeout)", "nobody decided in time"],
    ["a shutdown Error reason", "the run was stopped before the user decided"],
  ])(
    "a delivery prompt stopped by %s does not say the user skipped the result",
    async (stop, why) => {
      const controller = new AbortController();
      const { coordinator } = coordinatorFor({
        tools: { build: { run: "unattended", result: "ask" } },
        executors: new MockExecutorSource({
          build: new MockExecutor([{ type: "success", content: "built" }]),
        }),
        prompts: new MockPromptBackend({ deliveries: [waitForAbort<DeliverReply>()] }),
      });
      coordinator.once(
        "prompt-shown",
        () => void macrotasks(1).then(() => STOPS[stop](controller)),
      );
      const { responses } = await coordinator.run([call("call_1", "build")], {
        turn: new TurnState(),
        signal: controller.signal,
      });
      expect(responses.map((r) => [r.content, r.is_error])).toEqual([
        [
          `The tool ran, but its result was not delivered: ${why}. The user did not decline.`,
          false,
        ],
      ]);
    },
  );

  it("a question waiting in line behind another prompt is recorded with the same reason", async () => {
    const controller = new AbortController();
    const { stream, coordinator } = coordinatorFor({
      tools: UNATTENDED,
      executors: new MockExecutorSource({
        first: asking([booleanQuestion()]),
        second: asking([textQuestion()]),
      }),
      prompts: new MockPromptBackend({ questions: [waitForAbort<QuestionReply>()] }),
    });
    coordinator.once(
      "prompt-shown",
      () => void macrotasks(5).then(() => controller.abort(new Error("shutting down"))),
    );
    const { responses } = await coordinator.run(
      [call("call_1", "first"), call("call_2", "second")],
      {
        turn: new TurnState(),
        signal: controller.signal,
      },
    );
    expect(inquiryTrail(stream.events).filter((e) => "response" in e)).toEqual(
      expect.arrayContaining([
        { response: "call_1.confirm.1", cancelled: "interrupted" },
        { response: "call_2.name.1", cancelled: "interrupted" },
      ]),
    );
    expect(responses.map((r) => r.content)).toEqual([INTERRUPTED, INTERRUPTED]);
  });
});

describe("the abort reason decides what a stopped tool execution reads", () => {
  it.each<[keyof typeof STOPS, string]>([
    [
      "a TimeoutError reason (AbortSignal.timeout)",
      "Tool execution timed out: the run's time limit passed before the tool finished. The user did not decline.",
    ],
    [
      "a shutdown Error reason",
      "Tool execution interrupted: the run was stopped before the tool finished. The user did not decline.",
    ],
  ])(
    "a tool running when the run is stopped by %s: no question was asked, so none is mentioned",
    async (stop, content) => {
      const controller = new AbortController();
      const started = deferred();
      const tool = new MockExecutor(
        (input) =>
          new Promise((_resolve, reject) => {
            started.resolve();
            input.signal.addEventListener("abort", () => reject(new Error("killed")), {
              once: true,
            });
          }),
      );
      const { stream, coordinator } = coordinatorFor({
        tools: UNATTENDED,
        executors: new MockExecutorSource({ build: tool }),
      });
      void started.promise.then(() => STOPS[stop](controller));
      const { responses } = await coordinator.run([call("call_1", "build")], {
        turn: new TurnState(),
        signal: controller.signal,
      });
      expect(responses.map((r) => [r.content, r.is_error])).toEqual([[content, false]]);
      expect(toolResponses(stream)).toEqual([{ id: "call_1", content, is_error: false }]);
    },
  );
});

describe("RunOptions.promptTimeoutMs: each prompt's own deadline", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  /** Runs with fake timers: the deadline passes `advanceMs` after each prompt is shown. */
  async function withFakeDeadline(
    tools: ToolsConfig,
    script: PromptScript,
    options: Pick<RunOptions, "promptTimeoutMs">,
    advanceMs: number,
  ) {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const { stream, coordinator } = coordinatorFor({
      tools,
      executors: new MockExecutorSource({
        deploy: new MockExecutor((input) =>
          input.answers.confirm === undefined
            ? { type: "needs_input", question: booleanQuestion() }
            : { type: "success", content: "deployed" },
        ),
      }),
      prompts: new MockPromptBackend(script),
    });
    coordinator.on("prompt-shown", () => void vi.advanceTimersByTimeAsync(advanceMs));
    const result = await coordinator.run([call("call_1", "deploy")], {
      turn: new TurnState(),
      ...options,
    });
    return { stream, result };
  }

  it("an unanswered question is recorded as `timeout`, with the deadline in the model's text", async () => {
    const { stream, result } = await withFakeDeadline(
      UNATTENDED,
      { questions: [waitForAbort<QuestionReply>()] },
      { promptTimeoutMs: 30_000 },
      30_000,
    );
    expect(inquiryTrail(stream.events).filter((e) => "response" in e)).toEqual([
      { response: "call_1.confirm.1", cancelled: "timeout" },
    ]);
    expect(result.responses.map((r) => [r.content, r.is_error])).toEqual([
      [TIMED_OUT("within 30 s"), false],
    ]);
  });

  it("a deadline of minutes reads in minutes", async () => {
    const { result } = await withFakeDeadline(
      UNATTENDED,
      { questions: [waitForAbort<QuestionReply>()] },
      { promptTimeoutMs: 300_000 },
      300_000,
    );
    expect(result.responses[0]?.content).toBe(TIMED_OUT("within 5 min"));
  });

  it("an answer 1 ms before the deadline counts; no answer by the deadline times out", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const { stream, coordinator } = coordinatorFor({
      tools: UNATTENDED,
      executors: new MockExecutorSource({
        first: asking([booleanQuestion()]),
        second: asking([booleanQuestion()]),
      }),
      prompts: new MockPromptBackend({
        questions: [
          async () => {
            await vi.advanceTimersByTimeAsync(29_999);
            return { type: "answer", value: true };
          },
          waitForAbort<QuestionReply>(),
        ],
      }),
    });
    coordinator.on("prompt-shown", ({ request }) => {
      if (request.tool_call_id === "call_2") void vi.advanceTimersByTimeAsync(30_000);
    });
    const { responses } = await coordinator.run(
      [call("call_1", "first"), call("call_2", "second")],
      {
        turn: new TurnState(),
        promptTimeoutMs: 30_000,
      },
    );
    expect(inquiryTrail(stream.events).filter((e) => "response" in e)).toEqual([
      { response: "call_1.confirm.1", answered: true },
      { response: "call_2.confirm.1", cancelled: "timeout" },
    ]);
    expect(responses.map((r) => r.content)).toEqual([
      'answers: {"confirm":true}',
      TIMED_OUT("within 30 s"),
    ]);
  });

  it("the permission prompt's deadline", async () => {
    const { result } = await withFakeDeadline(
      { deploy: { run: "ask" } },
      { permissions: [waitForAbort<PermissionReply>()] },
      { promptTimeoutMs: 1_500 },
      1_500,
    );
    expect(result.responses.map((r) => [r.content, r.is_error])).toEqual([
      ["Tool not run: no permission decision within 1.5 s. The user did not decline.", false],
    ]);
  });

  it("a tiny real deadline: the record says timeout, never the user", async () => {
    const { stream, coordinator } = coordinatorFor({
      tools: UNATTENDED,
      executors: new MockExecutorSource({ deploy: asking([booleanQuestion()]) }),
      prompts: new MockPromptBackend({ questions: [waitForAbort<QuestionReply>()] }),
    });
    const { responses } = await coordinator.run([call("call_1", "deploy")], {
      turn: new TurnState(),
      promptTimeoutMs: 5,
    });
    expect(inquiryTrail(stream.events).filter((e) => "response" in e)).toEqual([
      { response: "call_1.confirm.1", cancelled: "timeout" },
    ]);
    expect(responses[0]?.content).toMatch(/^Tool input timed out: no answer within 5 ms\./);
  });

  it("the deadline runs from when a prompt is shown, not while it waits in line", async () => {
    // Each answer takes 60 ms of a 100 ms deadline: the second prompt waits 60 ms in line
    // first, which must not count.
    const slow = async () => {
      await new Promise((r) => setTimeout(r, 60));
      return { type: "answer" as const, value: true };
    };
    const { stream, coordinator } = coordinatorFor({
      tools: UNATTENDED,
      executors: new MockExecutorSource({
        first: asking([booleanQuestion()]),
        second: asking([booleanQuestion()]),
        third: asking([booleanQuestion()]),
      }),
      prompts: new MockPromptBackend({ questions: [slow, slow, waitForAbort<QuestionReply>()] }),
    });
    const { responses } = await coordinator.run(
      [call("call_1", "first"), call("call_2", "second"), call("call_3", "third")],
      { turn: new TurnState(), promptTimeoutMs: 100 },
    );
    expect(inquiryTrail(stream.events).filter((e) => "response" in e)).toEqual(
      expect.arrayContaining([
        { response: "call_1.confirm.1", answered: true },
        { response: "call_2.confirm.1", answered: true },
        { response: "call_3.confirm.1", cancelled: "timeout" },
      ]),
    );
    expect(responses.map((r) => r.content)).toEqual([
      'answers: {"confirm":true}',
      'answers: {"confirm":true}',
      TIMED_OUT("within 100 ms"),
    ]);
  });
});

describe("an LLM answer that arrives after the run stopped", () => {
  it.each<[string, (c: AbortController) => void, string]>([
    ["a bare abort()", (c) => c.abort(), "user"],
    ["a shutdown", (c) => c.abort(new Error("shutting down")), "interrupted"],
    ["a deadline", (c) => c.abort(new DOMException("late", "TimeoutError")), "timeout"],
  ])("is not recorded as answered (%s)", async (_name, stop, reason) => {
    const controller = new AbortController();
    const asked = deferred();
    // The LLM ignores the signal and answers anyway, after the abort.
    const llm = new MockInquiryBackend(async (_input, signal) => {
      asked.resolve();
      await new Promise<void>((r) => signal.addEventListener("abort", () => r(), { once: true }));
      return ok(true);
    });
    const tool = asking([booleanQuestion()]);
    const { stream, coordinator } = coordinatorFor({
      tools: { deploy: { run: "unattended", questions: { confirm: { target: "assistant" } } } },
      executors: new MockExecutorSource({ deploy: tool }),
      inquiries: llm,
    });
    void asked.promise.then(() => stop(controller));

    const { responses } = await coordinator.run([call("call_1", "deploy")], {
      turn: new TurnState(),
      signal: controller.signal,
    });

    expect(inquiryTrail(stream.events).filter((e) => "response" in e)).toEqual([
      { response: "call_1.confirm.1", cancelled: reason },
    ]);
    // The tool never got the answer.
    expect(tool.executions).toHaveLength(1);
    expect(responses[0]?.content).not.toContain("answers:");
  });
});

describe("an LLM inquiry that throws once the person stopped the run", () => {
  it("is recorded as the person's cancel, and the tool never gets an answer", async () => {
    const controller = new AbortController();
    const asked = deferred();
    const llm = new MockInquiryBackend(async (_input, signal) => {
      asked.resolve();
      await new Promise<void>((r) => signal.addEventListener("abort", () => r(), { once: true }));
      throw new Error("request aborted");
    });
    const tool = asking([booleanQuestion()]);
    const { stream, coordinator } = coordinatorFor({
      tools: { deploy: { run: "unattended", questions: { confirm: { target: "assistant" } } } },
      executors: new MockExecutorSource({ deploy: tool }),
      inquiries: llm,
    });
    void asked.promise.then(() => controller.abort());

    await coordinator.run([call("call_1", "deploy")], {
      turn: new TurnState(),
      signal: controller.signal,
    });

    expect(inquiryTrail(stream.events).filter((e) => "response" in e)).toEqual([
      { response: "call_1.confirm.1", cancelled: "user" },
    ]);
    expect(tool.executions).toHaveLength(1);
  });
});

describe("End Turn: what else was waiting is recorded as the turn having ended", () => {
  it("a queued question, a queued delivery, a running LLM inquiry and a running tool", async () => {
    const form = new MockExecutor(() => ({
      type: "needs_input",
      question: booleanQuestion(),
      form: { index: 1, total: 2 },
    }));
    // The person ends the turn only once everything else is waiting.
    const others = deferred();
    let waiting = 0;
    const oneWaiting = () => {
      waiting++;
      if (waiting === 3) others.resolve();
    };
    const queuedQuestion = new MockExecutor(async (input) => {
      await macrotasks(2);
      return input.answers.name === undefined
        ? { type: "needs_input", question: textQuestion() }
        : { type: "success", content: "named" };
    });
    const delivered = new MockExecutor(async () => {
      await macrotasks(2);
      return { type: "success", content: "built" };
    });
    const running = new MockExecutor(
      (input) =>
        new Promise((_resolve, reject) => {
          oneWaiting();
          input.signal.addEventListener("abort", () => reject(new Error("killed")), {
            once: true,
          });
        }),
    );
    const llm = new MockInquiryBackend(
      (_input, signal) =>
        new Promise((resolve) => {
          oneWaiting();
          signal.addEventListener(
            "abort",
            () => resolve(err({ kind: "cancelled", message: "the inquiry was cancelled" })),
            { once: true },
          );
        }),
    );
    const human = new MockPromptBackend({
      questions: [
        async () => {
          await others.promise;
          await macrotasks(10);
          return { type: "end_turn" };
        },
      ],
    });
    const { stream, coordinator } = coordinatorFor({
      tools: {
        ...UNATTENDED,
        builder: { run: "unattended", result: "ask" },
        thinker: { run: "unattended", questions: { confirm: { target: "assistant" } } },
      },
      executors: new MockExecutorSource({
        ask_user: form,
        namer: queuedQuestion,
        builder: delivered,
        thinker: asking([booleanQuestion()]),
        worker: running,
      }),
      prompts: human,
      inquiries: llm,
    });
    coordinator.on("prompt-shown", ({ request }) => {
      if (request.tool_call_id === "call_1") oneWaiting();
    });

    const { responses, endTurn } = await coordinator.run(
      [
        call("call_1", "ask_user"),
        call("call_2", "namer"),
        call("call_3", "builder"),
        call("call_4", "thinker"),
        call("call_5", "worker"),
      ],
      { turn: new TurnState() },
    );

    expect(endTurn).toBe(true);
    // Only the End Turn prompt was ever shown.
    expect(human.requests.map((r) => r.tool_call_id)).toEqual(["call_1"]);
    expect(responses.map((r) => [r.id, r.content, r.is_error])).toEqual([
      ["call_1", TURN_ENDED, false],
      ["call_2", TURN_ENDED, false],
      [
        "call_3",
        "The tool ran, but its result was not delivered: the user ended the turn at another prompt. The user did not decline.",
        false,
      ],
      ["call_4", TURN_ENDED, false],
      ["call_5", TURN_ENDED, false],
    ]);
    expect(inquiryTrail(stream.events).filter((e) => "response" in e)).toEqual(
      expect.arrayContaining([
        { response: "call_1.confirm.1", cancelled: "end_turn" },
        { response: "call_2.name.1", cancelled: "turn_ended" },
        { response: "call_4.confirm.1", cancelled: "turn_ended" },
      ]),
    );
    expect(toolResponses(stream)).toHaveLength(5);
    expect(unpaired(stream.events, "inquiry")).toEqual({ requests: [], responses: [] });
  });
});

describe("a prompt backend's own deadline (PromptTimedOutError)", () => {
  const late = () => Promise.reject(new PromptTimedOutError("no answer in time", { ms: 45_000 }));

  it("a question is recorded as `timeout` with the backend's deadline, never as a backend error", async () => {
    const { stream, coordinator } = coordinatorFor({
      tools: UNATTENDED,
      executors: new MockExecutorSource({ deploy: asking([booleanQuestion()]) }),
      prompts: new MockPromptBackend({ questions: [late] }),
    });
    const { responses } = await coordinator.run([call("call_1", "deploy")], {
      turn: new TurnState(),
    });
    expect(inquiryTrail(stream.events).filter((e) => "response" in e)).toEqual([
      { response: "call_1.confirm.1", cancelled: "timeout" },
    ]);
    expect(responses.map((r) => [r.content, r.is_error])).toEqual([
      [TIMED_OUT("within 45 s"), false],
    ]);
  });

  it("a permission prompt is not decided, and the person did not decline", async () => {
    const { coordinator } = coordinatorFor({
      tools: { deploy: { run: "ask" } },
      executors: new MockExecutorSource({ deploy: asking([]) }),
      prompts: new MockPromptBackend({ permissions: [late] }),
    });
    const { responses } = await coordinator.run([call("call_1", "deploy")], {
      turn: new TurnState(),
    });
    expect(responses.map((r) => [r.content, r.is_error])).toEqual([
      ["Tool not run: no permission decision within 45 s. The user did not decline.", false],
    ]);
  });

  it("listeners are told each prompt timed out, never that the person cancelled it", async () => {
    const { coordinator } = coordinatorFor({
      tools: { "*": { run: "ask", result: "ask" } },
      executors: new MockExecutorSource({
        deploy: asking([]),
        ask: asking([booleanQuestion()]),
      }),
      prompts: new MockPromptBackend({
        permissions: [late, { type: "run" }, { type: "run" }],
        questions: [late],
        deliveries: [late],
      }),
    });
    const outcomes: [string, string][] = [];
    coordinator.on("prompt-answered", ({ request, outcome }) =>
      outcomes.push([request.kind, outcome]),
    );
    await coordinator.run([call("call_1", "deploy")], { turn: new TurnState() });
    await coordinator.run([call("call_2", "ask")], { turn: new TurnState() });
    await coordinator.run([call("call_3", "deploy")], { turn: new TurnState() });
    expect(outcomes).toEqual([
      ["permission", "timeout"],
      ["permission", "run"],
      ["question", "timeout"],
      ["permission", "run"],
      ["deliver", "timeout"],
    ]);
  });
});
