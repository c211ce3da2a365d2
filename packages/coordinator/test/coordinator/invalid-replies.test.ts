import type { JsonValue } from "@jp/conversation";
import { type Question, validateAnswer } from "@jp/tool";
import { describe, expect, it } from "vitest";
import {
  MAX_PROMPTS_PER_QUESTION,
  MAX_REPEATED_INVALID_REPLIES,
  TurnState,
} from "../../src/index.js";
import { MockExecutor, MockExecutorSource, MockPromptBackend } from "../../src/testing/index.js";
import { coordinatorFor, inquiryTrail } from "../helpers.js";
import { booleanQuestion, call, selectQuestion, UNATTENDED } from "../support.js";

const answer = (value: JsonValue) => ({ type: "answer" as const, value });

/** A two-question form: `pick` (select), then `confirm` (boolean). */
function form(): MockExecutor {
  return new MockExecutor((input) => {
    if (input.answers.pick === undefined) {
      return { type: "needs_input", question: selectQuestion(), form: { index: 1, total: 2 } };
    }
    if (input.answers.confirm === undefined) {
      return { type: "needs_input", question: booleanQuestion(), form: { index: 2, total: 2 } };
    }
    return { type: "success", content: `done: ${JSON.stringify(input.answers)}` };
  });
}

function errorFor(question: Question, value: JsonValue): string {
  const checked = validateAnswer(question.answer_type, value);
  if (checked.isOk()) throw new Error(`${JSON.stringify(value)} is valid`);
  return checked.error.message;
}

/** Runs the form: `green` for `pick`, then `replies` for `confirm`. */
async function runForm(replies: readonly JsonValue[]) {
  const human = new MockPromptBackend({ questions: [answer("green"), ...replies.map(answer)] });
  const { stream, coordinator } = coordinatorFor({
    tools: UNATTENDED,
    executors: new MockExecutorSource({ ask_user: form() }),
    prompts: human,
  });
  const result = await coordinator.run([call("call_1", "ask_user")], { turn: new TurnState() });
  const confirmPrompts = human.questions.filter((q) => q.question.id === "confirm");
  const confirmResponses = inquiryTrail(stream.events).filter(
    (e) => "response" in e && e.response.startsWith("call_1.confirm."),
  );
  return { result, human, confirmPrompts, confirmResponses };
}

/** The result of a question that kept failing validation, as the model reads it. */
function keptFailing(lastError: string): string {
  return JSON.stringify({
    cancelled: true,
    answered: { pick: "green" },
    error: `the answer to question "confirm" kept failing validation (${lastError}); it was not answered`,
  });
}

describe("a person who replies with something that does not fit is asked again", () => {
  it("the limits are 3 identical misfits in a row and 20 prompts", () => {
    expect([MAX_REPEATED_INVALID_REPLIES, MAX_PROMPTS_PER_QUESTION]).toEqual([3, 20]);
  });

  it("four different misfits, then a fitting answer: answered, each re-prompt shows the error", async () => {
    const misfits = ["yes", "no", 1, "true"];
    const { result, confirmPrompts, confirmResponses } = await runForm([...misfits, true]);

    expect(result.responses.map((r) => [r.content, r.is_error])).toEqual([
      ['done: {"pick":"green","confirm":true}', false],
    ]);
    expect(confirmPrompts.map((q) => [q.inquiry_id, q.error])).toEqual([
      ["call_1.confirm.1", undefined],
      ...misfits.map((value, i) => [`call_1.confirm.${i + 2}`, errorFor(booleanQuestion(), value)]),
    ]);
    expect(confirmResponses).toEqual([
      ...misfits.map((_, i) => ({
        response: `call_1.confirm.${i + 1}`,
        cancelled: "invalid_answer",
      })),
      { response: "call_1.confirm.5", answered: true },
    ]);
  });

  it("two different misfits, the same misfit twice, then a fitting answer: answered", async () => {
    const { result, confirmPrompts } = await runForm(["no", "maybe", "yes", "yes", false]);
    expect(result.responses[0]?.content).toBe('done: {"pick":"green","confirm":false}');
    expect(confirmPrompts).toHaveLength(5);
  });

  it("runs of two identical misfits, broken by a different one, never count as three in a row", async () => {
    const { result, confirmPrompts } = await runForm([
      "yes",
      "yes",
      "no",
      "no",
      "yes",
      "yes",
      true,
    ]);
    expect(result.responses[0]?.content).toBe('done: {"pick":"green","confirm":true}');
    expect(confirmPrompts).toHaveLength(7);
  });

  it("the same misfit exactly 3 times in a row fails that question only, keeping the form's answers", async () => {
    const { result, human, confirmPrompts, confirmResponses } = await runForm([
      "yes",
      "yes",
      "yes",
      true,
    ]);

    expect(result.responses.map((r) => [r.content, r.is_error])).toEqual([
      [keptFailing(errorFor(booleanQuestion(), "yes")), true],
    ]);
    expect(result.endTurn).toBe(false);
    expect(confirmPrompts).toHaveLength(3);
    // The fitting fourth reply was never asked for.
    expect(() => human.assertScriptUsed()).toThrow(/1 scripted questions repl\(ies\) never used/);
    expect(confirmResponses).toEqual([
      { response: "call_1.confirm.1", cancelled: "invalid_answer" },
      { response: "call_1.confirm.2", cancelled: "invalid_answer" },
      { response: "call_1.confirm.3", cancelled: "invalid_answer" },
    ]);
  });

  it('identical misfits compare as JSON: the number 1 and the string "1" differ', async () => {
    const { result, confirmPrompts } = await runForm([1, "1", 1, "1", true]);
    expect(result.responses[0]?.content).toBe('done: {"pick":"green","confirm":true}');
    expect(confirmPrompts).toHaveLength(5);
  });

  it("19 different misfits, then a fitting answer at the 20th prompt: answered", async () => {
    const misfits = Array.from({ length: 19 }, (_, i) => `no-${i}`);
    const { result, confirmPrompts } = await runForm([...misfits, true]);
    expect(result.responses[0]?.content).toBe('done: {"pick":"green","confirm":true}');
    expect(confirmPrompts).toHaveLength(20);
  });

  it("20 different misfits: the question fails after its 20th prompt, never a 21st", async () => {
    const misfits = Array.from({ length: 20 }, (_, i) => `no-${i}`);
    const { result, confirmPrompts, confirmResponses } = await runForm([...misfits, true]);
    expect(result.responses.map((r) => [r.content, r.is_error])).toEqual([
      [keptFailing(errorFor(booleanQuestion(), "no-19")), true],
    ]);
    expect(confirmPrompts).toHaveLength(20);
    expect(confirmResponses).toHaveLength(20);
    expect(
      confirmResponses.every((e) => "cancelled" in e && e.cancelled === "invalid_answer"),
    ).toBe(true);
  });
});

describe("misfit replies that cannot be written as JSON", () => {
  it("two such replies refused for different reasons, alternating, are new tries: answered at the fourth prompt", async () => {
    const { result, confirmPrompts } = await runForm([
      10n as unknown as JsonValue,
      { a: 1n } as unknown as JsonValue,
      10n as unknown as JsonValue,
      true,
    ]);
    expect(result.responses[0]?.content).toBe('done: {"pick":"green","confirm":true}');
    expect(confirmPrompts).toHaveLength(4);
  });

  it("the same such reply 3 times in a row fails that question", async () => {
    const { result, confirmPrompts } = await runForm([
      10n as unknown as JsonValue,
      10n as unknown as JsonValue,
      10n as unknown as JsonValue,
      true,
    ]);
    expect(result.responses.map((r) => r.is_error)).toEqual([true]);
    expect(confirmPrompts).toHaveLength(3);
  });
});
