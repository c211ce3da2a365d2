import { describe, expect, it } from "vitest";
import {
  type QuestionRouted,
  type ToolCoordinator,
  type ToolsConfig,
  TurnState,
} from "../../src/index.js";
import {
  MockExecutor,
  MockExecutorSource,
  MockInquiryBackend,
  MockPromptBackend,
} from "../../src/testing/index.js";
import { coordinatorFor } from "../helpers.js";
import { asking, booleanQuestion, call } from "../support.js";

function routedEvents(coordinator: ToolCoordinator): QuestionRouted[] {
  const seen: QuestionRouted[] = [];
  coordinator.on("question-routed", (event) => seen.push(event));
  return seen;
}

const base = {
  tool_call_id: "call_1",
  tool_name: "deploy",
  inquiry_id: "call_1.confirm.1",
  question_id: "confirm",
  answer_type: "boolean",
};

async function routeOf(
  tools: ToolsConfig,
  options: { reachable?: boolean; question?: ReturnType<typeof booleanQuestion> } = {},
) {
  const { coordinator } = coordinatorFor({
    tools,
    executors: new MockExecutorSource({ deploy: asking([options.question ?? booleanQuestion()]) }),
    prompts: new MockPromptBackend(
      { questions: [{ type: "answer", value: true }] },
      { reachable: options.reachable ?? true },
    ),
    inquiries: new MockInquiryBackend({ "call_1.confirm.1": true }),
  });
  const seen = routedEvents(coordinator);
  await coordinator.run([call("call_1", "deploy")], { turn: new TurnState() });
  return seen;
}

describe("the question-routed event names who answers", () => {
  it("a configured answer: static", async () => {
    expect(
      await routeOf({ deploy: { run: "unattended", questions: { confirm: { answer: true } } } }),
    ).toStrictEqual([{ ...base, route: "static", detached: false }]);
  });

  it("the assistant: assistant", async () => {
    expect(
      await routeOf({
        deploy: { run: "unattended", questions: { confirm: { target: "assistant" } } },
      }),
    ).toStrictEqual([{ ...base, route: "assistant", detached: false }]);
  });

  it("the question's default, nobody being reachable: default, detached", async () => {
    expect(
      await routeOf(
        { deploy: { run: "unattended", detached: "defaults" } },
        { reachable: false, question: booleanQuestion("confirm", { default: false }) },
      ),
    ).toStrictEqual([{ ...base, route: "default", detached: true }]);
  });

  it("a refusal for want of a person: refused with its reason, detached", async () => {
    expect(
      await routeOf({ deploy: { run: "unattended", detached: "deny" } }, { reachable: false }),
    ).toStrictEqual([{ ...base, route: "refused", detached: true, reason: "no_prompt_backend" }]);
  });

  it("a misfit configured answer while nobody is reachable: refused, but not by the detached policy", async () => {
    expect(
      await routeOf(
        { deploy: { run: "unattended", questions: { confirm: { answer: "maybe" } } } },
        { reachable: false },
      ),
    ).toStrictEqual([
      { ...base, route: "refused", detached: false, reason: "invalid_static_answer" },
    ]);
  });

  it("an answer remembered for the turn: remembered", async () => {
    const { coordinator } = coordinatorFor({
      tools: { deploy: { run: "unattended" } },
      executors: new MockExecutorSource({ deploy: asking([booleanQuestion()]) }),
      prompts: new MockPromptBackend({
        questions: [{ type: "answer", value: true, remember: true }],
      }),
    });
    const seen = routedEvents(coordinator);
    const turn = new TurnState();
    await coordinator.run([call("call_1", "deploy")], { turn });
    await coordinator.run([call("call_2", "deploy")], { turn });
    expect(seen).toStrictEqual([
      { ...base, route: "human", detached: false },
      {
        ...base,
        tool_call_id: "call_2",
        inquiry_id: "call_2.confirm.1",
        route: "remembered",
        detached: false,
      },
    ]);
  });

  it("a queued prompt settled by an answer remembered meanwhile: human, then remembered, never detached", async () => {
    const asks = new MockExecutor((input) =>
      input.answers.confirm === undefined
        ? { type: "needs_input", question: booleanQuestion() }
        : { type: "success", content: `confirm=${String(input.answers.confirm)}` },
    );
    const { coordinator } = coordinatorFor({
      tools: { deploy: { run: "unattended" } },
      executors: new MockExecutorSource({ deploy: asks }),
      prompts: new MockPromptBackend({
        questions: [{ type: "answer", value: true, remember: true }],
      }),
    });
    const seen = routedEvents(coordinator);
    await coordinator.run([call("call_1", "deploy"), call("call_2", "deploy")], {
      turn: new TurnState(),
    });
    const second = { ...base, tool_call_id: "call_2", inquiry_id: "call_2.confirm.1" };
    expect(seen).toStrictEqual([
      { ...base, route: "human", detached: false },
      { ...second, route: "human", detached: false },
      { ...second, route: "remembered", detached: false },
    ]);
  });
});
