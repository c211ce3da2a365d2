import { describe, expect, it } from "vitest";
import { type ExecutorSource, TurnState } from "../../src/index.js";
import { MockExecutor, MockExecutorSource, MockPromptBackend } from "../../src/testing/index.js";
import { coordinatorFor } from "../helpers.js";

const pairs = (events: readonly { type: string; id?: unknown }[]) => ({
  requests: events.filter((e) => e.type === "tool_call_request").length,
  responses: events.filter((e) => e.type === "tool_call_response").length,
});

describe("the coordinator never leaves a call without a response", () => {
  it("two calls that share an id each get a request and a response", async () => {
    const echo = new MockExecutor((input) => ({
      type: "success",
      content: `n=${String(input.call.arguments.n)}`,
    }));
    const { stream, coordinator } = coordinatorFor({
      tools: { echo: { run: "unattended" } },
      executors: new MockExecutorSource({ echo }),
    });
    const { responses } = await coordinator.run(
      [
        { id: "dup", name: "echo", arguments: { n: 1 } },
        { id: "dup", name: "echo", arguments: { n: 2 } },
      ],
      { turn: new TurnState() },
    );
    expect(responses.map((r) => r.content)).toEqual(["n=1", "n=2"]);
    expect(pairs(stream.events)).toEqual({ requests: 2, responses: 2 });
  });

  it("an executor source that throws becomes the call's error result", async () => {
    const broken: ExecutorSource = {
      executorFor() {
        throw new Error("registry unavailable");
      },
    };
    const { stream, coordinator } = coordinatorFor({
      tools: { t: { run: "unattended" } },
      executors: broken,
    });
    const { responses } = await coordinator.run([{ id: "c1", name: "t", arguments: {} }], {
      turn: new TurnState(),
    });
    expect(responses[0]).toMatchObject({
      content: "Tool 't' failed: registry unavailable",
      is_error: true,
    });
    expect(pairs(stream.events)).toEqual({ requests: 1, responses: 1 });
  });
});

describe("a remembered answer is used only if it fits the question asked now", () => {
  it("a boolean remembered for q is not given to a select asked as q", async () => {
    const human = new MockPromptBackend({
      questions: [
        { type: "answer", value: true, remember: true },
        { type: "answer", value: "b" },
      ],
    });
    const asks = (answer_type: object) =>
      new MockExecutor((input) =>
        input.answers.q === undefined
          ? { type: "needs_input", question: { id: "q", text: "Which?", answer_type } as never }
          : { type: "success", content: JSON.stringify(input.answers.q) },
      );
    const first = asks({ type: "boolean" });
    const second = asks({ type: "select", options: ["a", "b"] });
    let calls = 0;
    const { coordinator } = coordinatorFor({
      tools: { t: { run: "unattended" } },
      executors: { executorFor: () => (calls++ === 0 ? first : second) },
      prompts: human,
    });
    const turn = new TurnState();
    await coordinator.run([{ id: "c1", name: "t", arguments: {} }], { turn });
    const { responses } = await coordinator.run([{ id: "c2", name: "t", arguments: {} }], { turn });
    expect(responses[0]?.content).toBe('"b"');
    expect(human.questions).toHaveLength(2);
  });
});

describe("an answer remembered while a prompt waits in line", () => {
  it("settles the same question of another call queued behind it, which is never shown", async () => {
    const human = new MockPromptBackend({
      questions: [{ type: "answer", value: true, remember: true }],
    });
    const asks = new MockExecutor((input) =>
      input.answers.q === undefined
        ? {
            type: "needs_input",
            question: { id: "q", text: "Go on?", answer_type: { type: "boolean" } },
          }
        : { type: "success", content: `q=${String(input.answers.q)}` },
    );
    const { stream, coordinator } = coordinatorFor({
      tools: { t: { run: "unattended" } },
      executors: new MockExecutorSource({ t: asks }),
      prompts: human,
    });
    const routes: string[] = [];
    coordinator.on("question-routed", (e) => routes.push(`${e.tool_call_id}:${e.route}`));
    const { responses } = await coordinator.run(
      [
        { id: "c1", name: "t", arguments: {} },
        { id: "c2", name: "t", arguments: {} },
      ],
      { turn: new TurnState() },
    );
    expect(responses.map((r) => r.content)).toEqual(["q=true", "q=true"]);
    // The person was asked once; the second call's prompt gave way to the remembered answer.
    expect(human.questions.map((q) => q.tool_call_id)).toEqual(["c1"]);
    expect(routes).toEqual(["c1:human", "c2:human", "c2:remembered"]);
    expect(
      stream.events.flatMap((e) => (e.type === "inquiry_response" ? [[e.id, e.outcome]] : [])),
    ).toEqual([
      ["c1.q.1", "answered"],
      ["c2.q.1", "answered"],
    ]);
  });

  it("does not settle a queued prompt whose question the remembered answer does not fit", async () => {
    const human = new MockPromptBackend({
      questions: [
        { type: "answer", value: true, remember: true },
        { type: "answer", value: "red" },
      ],
    });
    // The same question id, a yes/no question in c1 and a choice of colours in c2.
    const asks = new MockExecutor((input) =>
      input.answers.q === undefined
        ? {
            type: "needs_input",
            question:
              input.call.id === "c1"
                ? { id: "q", text: "Go on?", answer_type: { type: "boolean" } }
                : { id: "q", text: "Colour?", answer_type: { type: "select", options: ["red"] } },
          }
        : { type: "success", content: `q=${String(input.answers.q)}` },
    );
    const { coordinator } = coordinatorFor({
      tools: { t: { run: "unattended" } },
      executors: new MockExecutorSource({ t: asks }),
      prompts: human,
    });
    const { responses } = await coordinator.run(
      [
        { id: "c1", name: "t", arguments: {} },
        { id: "c2", name: "t", arguments: {} },
      ],
      { turn: new TurnState() },
    );
    expect(responses.map((r) => r.content)).toEqual(["q=true", "q=red"]);
    expect(human.questions.map((q) => q.tool_call_id)).toEqual(["c1", "c2"]);
  });
});
