import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { trace } from "@opentelemetry/api";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { afterEach, describe, expect, it } from "vitest";
import {
  type QuestionReply,
  type QuestionRoute,
  type ToolsConfig,
  TRACE_NAMES,
  TurnState,
  traceCoordinator,
} from "../../src/index.js";
import {
  MockExecutor,
  MockExecutorSource,
  MockInquiryBackend,
  MockPromptBackend,
  waitForAbort,
} from "../../src/testing/index.js";
import { coordinatorFor } from "../helpers.js";
import {
  asking,
  booleanQuestion,
  call,
  secretQuestion,
  selectQuestion,
  textQuestion,
  UNATTENDED,
} from "../support.js";

/** The real OpenTelemetry SDK, exporting every ended span to memory. */
function sdk() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { exporter, provider, tracer: provider.getTracer("test") };
}

const byName = (spans: readonly ReadableSpan[], name: string) =>
  spans.filter((span) => span.name === name);
const questionSpans = (spans: readonly ReadableSpan[]) => byName(spans, TRACE_NAMES.questionSpan);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

afterEach(() => {
  trace.disable();
});

describe("traceCoordinator: a span per tool call", () => {
  it("spans a call from queued to completed, as OpenTelemetry's execute_tool, with its states", async () => {
    const { exporter, tracer } = sdk();
    const { coordinator } = coordinatorFor({
      tools: UNATTENDED,
      executors: new MockExecutorSource({ deploy: asking([booleanQuestion()]) }),
      prompts: new MockPromptBackend({ questions: [{ type: "answer", value: true }] }),
    });
    const stop = traceCoordinator(coordinator, { tracer });

    await coordinator.run([call("call_1", "deploy")], { turn: new TurnState() });
    stop();

    const [span, ...others] = byName(exporter.getFinishedSpans(), "execute_tool deploy");
    expect(others).toEqual([]);
    expect(span?.attributes).toEqual({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "deploy",
      "gen_ai.tool.call.id": "call_1",
      "jp.tool_call.final_state": "completed",
    });
    expect(span?.events.map((e) => e.attributes?.["jp.tool_call.state"])).toEqual([
      "queued",
      "awaiting_permission",
      "running",
      "awaiting_input",
      "running",
      "awaiting_delivery",
      "completed",
    ]);
  });

  it("a call whose response is an error ends with an error status, the error's text not copied", async () => {
    const { exporter, tracer } = sdk();
    const { coordinator } = coordinatorFor({
      tools: UNATTENDED,
      executors: new MockExecutorSource({
        fine: asking([]),
        broken: new MockExecutor(() => {
          throw new Error("disk full at /srv/data");
        }),
      }),
    });
    const stop = traceCoordinator(coordinator, { tracer });
    await coordinator.run([call("call_1", "fine"), call("call_2", "broken")], {
      turn: new TurnState(),
    });
    stop();

    const spans = exporter.getFinishedSpans();
    const [fine] = byName(spans, "execute_tool fine");
    const [broken] = byName(spans, "execute_tool broken");
    expect(fine?.status.code).not.toBe(2);
    expect(fine?.attributes["error.type"]).toBeUndefined();
    expect(broken?.status).toEqual({ code: 2, message: "the tool call's response is an error" });
    expect(broken?.attributes["error.type"]).toBe("tool_error");
    expect(JSON.stringify(spans.map((s) => [s.attributes, s.events, s.status]))).not.toContain(
      "disk full",
    );
  });

  it("gives each of several concurrent calls its own span, each question under its own call", async () => {
    const { exporter, tracer } = sdk();
    const { coordinator } = coordinatorFor({
      tools: UNATTENDED,
      executors: new MockExecutorSource({
        one: asking([booleanQuestion()]),
        two: asking([textQuestion()]),
      }),
      prompts: new MockPromptBackend({
        questions: [
          { type: "answer", value: true },
          { type: "answer", value: "x" },
        ],
      }),
    });
    traceCoordinator(coordinator, { tracer });

    await coordinator.run([call("call_1", "one"), call("call_2", "two")], {
      turn: new TurnState(),
    });

    const spans = exporter.getFinishedSpans();
    const calls = new Map(
      spans
        .filter((s) => s.name.startsWith("execute_tool "))
        .map((s) => [s.attributes["gen_ai.tool.call.id"], s.spanContext().spanId]),
    );
    expect([...calls.keys()].sort()).toEqual(["call_1", "call_2"]);
    const questions = questionSpans(spans);
    expect(questions).toHaveLength(2);
    for (const question of questions) {
      const owner = question.attributes["gen_ai.tool.call.id"];
      expect(question.parentSpanContext?.spanId).toBe(calls.get(owner));
      expect(question.spanContext().traceId).toBe(
        spans.find((s) => s.spanContext().spanId === calls.get(owner))?.spanContext().traceId,
      );
    }
  });

  it("puts the permission prompt on the call's span: its outcome and how long the person took", async () => {
    const { exporter, tracer } = sdk();
    const { coordinator } = coordinatorFor({
      tools: { deploy: { run: "ask" } },
      executors: new MockExecutorSource({
        deploy: new MockExecutor(() => ({ type: "success", content: "deployed" })),
      }),
      prompts: new MockPromptBackend({
        permissions: [
          async () => {
            await sleep(40);
            return { type: "run" };
          },
        ],
      }),
    });
    traceCoordinator(coordinator, { tracer });

    await coordinator.run([call("call_1", "deploy")], { turn: new TurnState() });

    const [span] = byName(exporter.getFinishedSpans(), "execute_tool deploy");
    const answered = span?.events.find((e) => e.name === TRACE_NAMES.promptAnsweredEvent);
    expect(answered?.attributes).toMatchObject({
      "jp.prompt.kind": "permission",
      "jp.prompt.outcome": "run",
    });
    expect(answered?.attributes?.["jp.prompt.answer_ms"]).toBeGreaterThanOrEqual(35);
    expect(span?.events.some((e) => e.name === TRACE_NAMES.promptShownEvent)).toBe(true);
  });

  it("marks a permission prompt refused for want of a person, with no answer time", async () => {
    const { exporter, tracer } = sdk();
    const { coordinator } = coordinatorFor({
      tools: { deploy: { run: "ask" } },
      executors: new MockExecutorSource({
        deploy: new MockExecutor(() => ({ type: "success", content: "deployed" })),
      }),
    });
    traceCoordinator(coordinator, { tracer });

    await coordinator.run([call("call_1", "deploy")], { turn: new TurnState() });

    const [span] = byName(exporter.getFinishedSpans(), "execute_tool deploy");
    const refused = span?.events.find((e) => e.name === TRACE_NAMES.promptRefusedEvent);
    expect(refused?.attributes).toEqual({
      "jp.prompt.kind": "permission",
      "jp.prompt.refusal_reason": "no_prompt_backend",
    });
  });
});

describe("traceCoordinator: a span per question, with its route", () => {
  it("a person's answer: route human, how long the prompt was shown and how long they took", async () => {
    const { exporter, tracer } = sdk();
    const { coordinator } = coordinatorFor({
      tools: UNATTENDED,
      executors: new MockExecutorSource({ deploy: asking([selectQuestion()]) }),
      prompts: new MockPromptBackend({
        questions: [
          async () => {
            await sleep(60);
            return { type: "answer", value: "green" };
          },
        ],
      }),
    });
    traceCoordinator(coordinator, { tracer });

    await coordinator.run([call("call_1", "deploy")], { turn: new TurnState() });

    const [question, ...more] = questionSpans(exporter.getFinishedSpans());
    expect(more).toEqual([]);
    expect(question?.attributes).toMatchObject({
      "jp.inquiry.id": "call_1.pick.1",
      "jp.question.id": "pick",
      "jp.question.answer_type": "select",
      "gen_ai.tool.name": "deploy",
      "gen_ai.tool.call.id": "call_1",
      "jp.question.route": "human",
      "jp.question.detached": false,
      "jp.question.outcome": "answered",
    });
    const answerMs = question?.attributes["jp.question.answer_ms"] as number;
    expect(answerMs).toBeGreaterThanOrEqual(55);
    expect(question?.attributes["jp.question.shown_ms"]).toBe(answerMs);
    expect(question?.status.code).toBe(0); // UNSET: an answer is no error
  });

  it.each<[string, ToolsConfig, () => object, QuestionRoute, boolean, Record<string, unknown>]>([
    [
      "a configured answer",
      { deploy: { run: "unattended", questions: { pick: { answer: "red" } } } },
      () => ({}),
      "static",
      false,
      { "jp.question.outcome": "answered" },
    ],
    [
      "the question's default, nobody there and detached = defaults",
      { deploy: { run: "unattended", detached: "defaults" } },
      () => ({}),
      "default",
      true,
      { "jp.question.outcome": "answered" },
    ],
    [
      "the assistant, as configured",
      { deploy: { run: "unattended", questions: { pick: { target: "assistant" } } } },
      () => ({ inquiries: new MockInquiryBackend({ "call_1.pick.1": "blue" }) }),
      "assistant",
      false,
      { "jp.question.outcome": "answered" },
    ],
    [
      "the assistant, nobody there and detached = auto",
      { deploy: { run: "unattended", detached: "auto" } },
      () => ({ inquiries: new MockInquiryBackend({ "call_1.pick.1": "blue" }) }),
      "assistant",
      true,
      { "jp.question.outcome": "answered" },
    ],
    [
      "nobody, refused by the detached policy",
      UNATTENDED,
      () => ({}),
      "refused",
      true,
      {
        "jp.question.outcome": "cancelled",
        "jp.question.cancel_reason": "no_prompt_backend",
        "jp.question.refusal_reason": "no_prompt_backend",
      },
    ],
  ])("%s", async (_, tools, backends, route, detached, more) => {
    const { exporter, tracer } = sdk();
    const { coordinator } = coordinatorFor({
      tools,
      executors: new MockExecutorSource({
        deploy: asking([selectQuestion("pick", { default: "red" })]),
      }),
      ...backends(),
    });
    traceCoordinator(coordinator, { tracer });

    await coordinator.run([call("call_1", "deploy")], { turn: new TurnState() });

    const [question] = questionSpans(exporter.getFinishedSpans());
    expect(question?.attributes).toMatchObject({
      "jp.question.route": route,
      "jp.question.detached": detached,
      ...more,
    });
    // Nobody was shown a prompt: no prompt time, and no answer time.
    expect(question?.attributes["jp.question.shown_ms"]).toBeUndefined();
    expect(question?.attributes["jp.question.answer_ms"]).toBeUndefined();
  });

  it("an answer remembered for the turn: the second call's question is routed remembered", async () => {
    const { exporter, tracer } = sdk();
    const remembered = booleanQuestion("confirm", { persistence: "turn" } as never);
    const { coordinator } = coordinatorFor({
      tools: UNATTENDED,
      executors: new MockExecutorSource({ deploy: asking([remembered]) }),
      prompts: new MockPromptBackend({
        questions: [{ type: "answer", value: true, remember: true }],
      }),
    });
    traceCoordinator(coordinator, { tracer });
    const turn = new TurnState();

    await coordinator.run([call("call_1", "deploy")], { turn });
    await coordinator.run([call("call_2", "deploy")], { turn });

    const routes = questionSpans(exporter.getFinishedSpans()).map((s) => [
      s.attributes["gen_ai.tool.call.id"],
      s.attributes["jp.question.route"],
    ]);
    expect(routes).toEqual([
      ["call_1", "human"],
      ["call_2", "remembered"],
    ]);
  });

  it("a prompt nobody answered in time: cancelled as timeout, shown for the limit, no answer time", async () => {
    const { exporter, tracer } = sdk();
    const { coordinator } = coordinatorFor({
      tools: UNATTENDED,
      executors: new MockExecutorSource({ deploy: asking([booleanQuestion()]) }),
      prompts: new MockPromptBackend({ questions: [waitForAbort<QuestionReply>()] }),
    });
    traceCoordinator(coordinator, { tracer });

    await coordinator.run([call("call_1", "deploy")], {
      turn: new TurnState(),
      promptTimeoutMs: 50,
    });

    const [question] = questionSpans(exporter.getFinishedSpans());
    expect(question?.attributes).toMatchObject({
      "jp.question.route": "human",
      "jp.question.outcome": "cancelled",
      "jp.question.cancel_reason": "timeout",
    });
    expect(question?.attributes["jp.question.shown_ms"]).toBeGreaterThanOrEqual(45);
    expect(question?.attributes["jp.question.answer_ms"]).toBeUndefined();
  });

  it("a person who cancels: their cancel has an answer time", async () => {
    const { exporter, tracer } = sdk();
    const { coordinator } = coordinatorFor({
      tools: UNATTENDED,
      executors: new MockExecutorSource({ deploy: asking([booleanQuestion()]) }),
      prompts: new MockPromptBackend({ questions: [{ type: "cancelled" }] }),
    });
    traceCoordinator(coordinator, { tracer });

    await coordinator.run([call("call_1", "deploy")], { turn: new TurnState() });

    const [question] = questionSpans(exporter.getFinishedSpans());
    expect(question?.attributes).toMatchObject({
      "jp.question.outcome": "cancelled",
      "jp.question.cancel_reason": "user",
    });
    expect(question?.attributes["jp.question.answer_ms"]).toBeTypeOf("number");
  });

  it("a failing prompt backend: the question's span has an error status", async () => {
    const { exporter, tracer } = sdk();
    const { coordinator } = coordinatorFor({
      tools: UNATTENDED,
      executors: new MockExecutorSource({ deploy: asking([booleanQuestion()]) }),
      prompts: new MockPromptBackend({
        questions: [
          () => {
            throw new Error("the terminal went away");
          },
        ],
      }),
    });
    traceCoordinator(coordinator, { tracer });

    await coordinator.run([call("call_1", "deploy")], { turn: new TurnState() });

    const [question] = questionSpans(exporter.getFinishedSpans());
    expect(question?.attributes["jp.question.cancel_reason"]).toBe("backend_error");
    expect(question?.status).toEqual({ code: 2, message: "backend_error" });
    expect(question?.attributes["jp.question.answer_ms"]).toBeUndefined();
  });

  it("a suspended turn: the question is pending, the call's span ends as suspended", async () => {
    const { exporter, tracer } = sdk();
    const { coordinator } = coordinatorFor({
      tools: UNATTENDED,
      executors: new MockExecutorSource({ deploy: asking([booleanQuestion()]) }),
    });
    traceCoordinator(coordinator, { tracer });

    const { pending } = await coordinator.run([call("call_1", "deploy")], {
      turn: new TurnState(),
      suspend: true,
    });

    expect(pending).toHaveLength(1);
    const spans = exporter.getFinishedSpans();
    expect(questionSpans(spans)[0]?.attributes).toMatchObject({
      "jp.question.route": "human",
      "jp.question.outcome": "pending",
    });
    expect(byName(spans, "execute_tool deploy")[0]?.attributes["jp.tool_call.final_state"]).toBe(
      "suspended",
    );
  });
});

describe("traceCoordinator: never an answer", () => {
  it("no span name, attribute, event or status holds an answer, a secret, a default or the arguments", async () => {
    const { exporter, tracer } = sdk();
    const secret = "otel-s3cret-7731";
    const answers = ["otel-answer-text-5519", "otel-option-blue-2208"] as const;
    const defaultValue = "otel-default-9034";
    const argument = "otel-argument-4410";
    const { coordinator } = coordinatorFor({
      tools: { "*": { run: "ask", result: "ask" } },
      executors: new MockExecutorSource({
        login: asking(
          [
            secretQuestion(),
            textQuestion("name", { default: defaultValue }),
            selectQuestion("pick", {
              answer_type: { type: "select", options: ["red", answers[1]] },
            }),
          ],
          // The tool echoes everything into its result, which is delivered.
          (got) => `done ${JSON.stringify(got)} ${argument}`,
        ),
      }),
      prompts: new MockPromptBackend({
        permissions: [{ type: "run", remember: true }],
        questions: [
          { type: "answer", value: secret },
          { type: "answer", value: answers[0] },
          { type: "answer", value: answers[1] },
        ],
        deliveries: [{ type: "deliver" }],
      }),
    });
    traceCoordinator(coordinator, { tracer });

    await coordinator.run([call("call_1", "login", { note: argument })], {
      turn: new TurnState(),
    });

    const spans = exporter.getFinishedSpans();
    expect(questionSpans(spans)).toHaveLength(3);
    const exported = JSON.stringify(
      spans.map((s) => ({
        name: s.name,
        attributes: s.attributes,
        events: s.events.map((e) => ({ name: e.name, attributes: e.attributes })),
        status: s.status,
        links: s.links,
      })),
    );
    // The run did what it should: the values were answered, so their absence means something.
    expect(exported).toContain("jp.question.answer_ms");
    for (const value of [secret, ...answers, defaultValue, argument]) {
      expect(exported).not.toContain(value);
    }
  });
});

describe("traceCoordinator: turning it on and off", () => {
  it("stop() ends what is still open and starts nothing after", async () => {
    const { exporter, tracer } = sdk();
    let release: () => void = () => {};
    const { coordinator } = coordinatorFor({
      tools: UNATTENDED,
      executors: new MockExecutorSource({ deploy: asking([booleanQuestion()]) }),
      prompts: new MockPromptBackend({
        questions: [
          () =>
            new Promise((resolve) => {
              release = () => resolve({ type: "answer", value: true });
            }),
          { type: "answer", value: true },
        ],
      }),
    });
    const stop = traceCoordinator(coordinator, { tracer });
    const running = coordinator.run([call("call_1", "deploy")], { turn: new TurnState() });
    await sleep(20);
    expect(exporter.getFinishedSpans()).toEqual([]);

    stop();
    const ended = exporter.getFinishedSpans();
    expect(ended.map((s) => s.name).sort()).toEqual(["execute_tool deploy", "jp.question"]);
    expect(ended.every((s) => s.attributes["jp.trace.stopped"] === true)).toBe(true);
    release();
    await running;
    await coordinator.run([call("call_2", "deploy")], { turn: new TurnState() });
    expect(exporter.getFinishedSpans()).toHaveLength(2);
    expect(coordinator.listenerCount("tool-state")).toBe(0);
  });

  it("without a tracer, uses @opentelemetry/api's global tracer provider", async () => {
    const { exporter, provider } = sdk();
    trace.setGlobalTracerProvider(provider);
    const { coordinator } = coordinatorFor({
      tools: UNATTENDED,
      executors: new MockExecutorSource({
        deploy: new MockExecutor(() => ({ type: "success", content: "ok" })),
      }),
    });
    traceCoordinator(coordinator);

    await coordinator.run([call("call_1", "deploy")], { turn: new TurnState() });

    const [span] = exporter.getFinishedSpans();
    expect(span?.name).toBe("execute_tool deploy");
    expect(span?.instrumentationScope.name).toBe("@jp/coordinator");
  });

  it("importing @jp/coordinator does not load @opentelemetry/api; tracing does", () => {
    const loaded = (code: string) => {
      const script = `
        import { createRequire } from "node:module";
        ${code}
        const cached = Object.keys(createRequire(import.meta.url).cache);
        process.stdout.write(String(cached.some((p) => p.includes("/@opentelemetry/api/"))));
      `;
      const child = spawnSync(
        process.execPath,
        ["--conditions=@jp/source", "--import", "tsx", "--input-type=module", "-e", script],
        { cwd: join(import.meta.dirname, "../.."), encoding: "utf8" },
      );
      if (child.status !== 0) throw new Error(child.stderr);
      return child.stdout;
    };
    expect(loaded(`import "@jp/coordinator";`)).toBe("false");
    expect(
      loaded(`
        import { EventEmitter } from "eventemitter3";
        import { traceCoordinator } from "@jp/coordinator";
        traceCoordinator(new EventEmitter());
      `),
    ).toBe("true");
  }, 60_000);
});
