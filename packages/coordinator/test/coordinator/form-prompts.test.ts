import type { JsonValue } from "@jp/conversation";
import type { Question } from "@jp/tool";
import { describe, expect, it } from "vitest";
import { type QuestionReply, type ToolsConfig, TurnState } from "../../src/index.js";
import {
  MockExecutor,
  MockExecutorSource,
  MockInquiryBackend,
  MockPromptBackend,
} from "../../src/testing/index.js";
import { coordinatorFor, inquiryTrail } from "../helpers.js";
import { booleanQuestion, call, selectQuestion, UNATTENDED } from "../support.js";

const answer = (value: JsonValue): QuestionReply => ({ type: "answer", value });

/** A tool that asks `questions` in order; as a form (with progress) unless `asForm` is false. */
function tool(questions: readonly Question[], asForm = true): MockExecutor {
  return new MockExecutor((input) => {
    const index = questions.findIndex((q) => !Object.hasOwn(input.answers, q.id));
    const next = questions[index];
    if (next === undefined) return { type: "success", content: JSON.stringify(input.answers) };
    return asForm
      ? { type: "needs_input", question: next, form: { index: index + 1, total: questions.length } }
      : { type: "needs_input", question: next };
  });
}

async function run(
  questions: readonly Question[],
  replies: readonly QuestionReply[],
  options: { asForm?: boolean; tools?: ToolsConfig } = {},
) {
  const human = new MockPromptBackend({ questions: replies });
  const { stream, coordinator } = coordinatorFor({
    tools: options.tools ?? UNATTENDED,
    executors: new MockExecutorSource({ deploy: tool(questions, options.asForm) }),
    prompts: human,
  });
  const result = await coordinator.run([call("call_1", "deploy")], { turn: new TurnState() });
  return { result, human, trail: inquiryTrail(stream.events) };
}

const two = [selectQuestion(), booleanQuestion()];

describe("the controls a question's prompt offers", () => {
  it("a tool that is no form gets no Back, Reply or End Turn, even after a person's answer", async () => {
    const { human } = await run(
      [selectQuestion(), booleanQuestion()],
      [answer("red"), answer(true)],
      {
        asForm: false,
      },
    );
    expect(human.questions.map((q) => q.controls)).toEqual([
      { remember: false, back: false, reply: false, end_turn: false },
      { remember: true, back: false, reply: false, end_turn: false },
    ]);
  });

  it("a form offers Reply and End Turn, and Back once a person answered an earlier question", async () => {
    const { human } = await run(two, [answer("green"), answer(true)]);
    expect(human.questions.map((q) => q.controls)).toEqual([
      { remember: false, back: false, reply: true, end_turn: true },
      { remember: true, back: true, reply: true, end_turn: true },
    ]);
  });

  it("a configured answer before a question is no answer Back can go back to", async () => {
    const { human } = await run(two, [answer(true)], {
      tools: { deploy: { run: "unattended", questions: { pick: { answer: "red" } } } },
    });
    expect(human.questions).toHaveLength(1);
    expect(human.questions[0]?.controls.back).toBe(false);
  });

  it("an answer the assistant gave is no answer Back can go back to", async () => {
    const human = new MockPromptBackend({ questions: [answer(true)] });
    const { coordinator } = coordinatorFor({
      tools: { deploy: { run: "unattended", questions: { pick: { target: "assistant" } } } },
      executors: new MockExecutorSource({ deploy: tool(two) }),
      prompts: human,
      inquiries: new MockInquiryBackend({ "call_1.pick.1": "blue" }),
    });
    const { responses } = await coordinator.run([call("call_1", "deploy")], {
      turn: new TurnState(),
    });
    expect(responses[0]?.content).toBe('{"pick":"blue","confirm":true}');
    expect(human.questions.map((q) => [q.inquiry_id, q.controls.back])).toEqual([
      ["call_1.confirm.1", false],
    ]);
  });

  it("a question settled by an answer another call remembered meanwhile is no answer Back can go back to", async () => {
    const human = new MockPromptBackend({
      questions: [{ type: "answer", value: true, remember: true }, answer(false), answer(false)],
    });
    const { coordinator } = coordinatorFor({
      tools: UNATTENDED,
      executors: new MockExecutorSource({
        deploy: tool([booleanQuestion(), booleanQuestion("next")]),
      }),
      prompts: human,
    });
    await coordinator.run([call("call_1", "deploy"), call("call_2", "deploy")], {
      turn: new TurnState(),
    });
    expect(
      human.questions
        .map((q): [string, boolean] => [q.inquiry_id, q.controls.back])
        .sort(([a], [b]) => a.localeCompare(b)),
    ).toEqual([
      ["call_1.confirm.1", false],
      ["call_1.next.1", true],
      ["call_2.next.1", false],
    ]);
  });

  it.each([
    ["back", { type: "back" } as const],
    ["reply", { type: "reply", message: "later" } as const],
    ["end_turn", { type: "end_turn" } as const],
  ])("a %s reply to a prompt that did not offer it is the person's cancel", async (_, reply) => {
    const { result, trail } = await run([booleanQuestion()], [reply], { asForm: false });
    expect(result.responses.map((r) => [r.content, r.is_error])).toEqual([
      ["Tool input cancelled by user.", false],
    ]);
    expect(result.endTurn).toBe(false);
    expect(trail).toEqual([
      { request: "call_1.confirm.1", source: { source: "tool", name: "deploy" } },
      { response: "call_1.confirm.1", cancelled: "user" },
    ]);
  });
});

describe("what a form's controls do", () => {
  it("Back is recorded as back and asks the earlier question again, pre-filled", async () => {
    const { result, human, trail } = await run(two, [
      answer("green"),
      { type: "back" },
      answer("blue"),
      answer(false),
    ]);
    expect(trail.filter((e) => "response" in e)).toEqual([
      { response: "call_1.pick.1", answered: "green" },
      { response: "call_1.confirm.1", cancelled: "back" },
      { response: "call_1.pick.2", answered: "blue" },
      { response: "call_1.confirm.2", answered: false },
    ]);
    expect(human.questions.map((q) => [q.inquiry_id, q.initial])).toEqual([
      ["call_1.pick.1", undefined],
      ["call_1.confirm.1", undefined],
      ["call_1.pick.2", "green"],
      ["call_1.confirm.2", undefined],
    ]);
    expect(result.responses[0]?.content).toBe('{"pick":"blue","confirm":false}');
  });

  it("Reply is recorded as reply; the model gets the answers so far and the message, not as an error", async () => {
    const { result, trail } = await run(two, [answer("green"), { type: "reply", message: "why?" }]);
    expect(trail.at(-1)).toEqual({ response: "call_1.confirm.1", cancelled: "reply" });
    expect(result.responses.map((r) => [r.content, r.is_error])).toEqual([
      [JSON.stringify({ cancelled: true, answered: { pick: "green" }, message: "why?" }), false],
    ]);
  });

  it("Reply with an empty message gives the model no message", async () => {
    const { result } = await run(two, [answer("green"), { type: "reply", message: "" }]);
    expect(JSON.parse(result.responses[0]?.content ?? "")).toStrictEqual({
      cancelled: true,
      answered: { pick: "green" },
    });
  });

  it("End Turn is recorded as end_turn; the tool's result says so and the turn ends", async () => {
    const { result, trail } = await run(two, [answer("green"), { type: "end_turn" }]);
    expect(trail.at(-1)).toEqual({ response: "call_1.confirm.1", cancelled: "end_turn" });
    expect(result.responses.map((r) => [r.content, r.is_error])).toEqual([
      ["The user ended the turn.", false],
    ]);
    expect(result.endTurn).toBe(true);
  });
});

describe("what a question's prompt shows", () => {
  it("the configured prompt label", async () => {
    const { human } = await run([booleanQuestion()], [answer(true)], {
      tools: { deploy: { run: "unattended", questions: { confirm: { prompt_label: "Ops" } } } },
    });
    expect(human.questions[0]?.prompt_label).toBe("Ops");
  });

  it("no prompt label when none is configured", async () => {
    const { human } = await run([booleanQuestion()], [answer(true)]);
    expect(human.questions[0] && "prompt_label" in human.questions[0]).toBe(false);
  });

  it("progress for a form of two questions", async () => {
    const { human } = await run(two, [answer("green"), answer(true)]);
    expect(human.questions.map((q) => q.progress)).toEqual([
      { index: 1, total: 2 },
      { index: 2, total: 2 },
    ]);
  });

  it("no progress for a form of one question", async () => {
    const { human } = await run([booleanQuestion()], [answer(true)]);
    expect(human.questions[0]?.controls.reply).toBe(true);
    expect(human.questions[0]?.progress).toBeUndefined();
  });
});
