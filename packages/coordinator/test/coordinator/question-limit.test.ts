import { describe, expect, it } from "vitest";
import type { BuiltinTool, PromptBackend, QuestionReply } from "../../src/index.js";
import { builtinExecutorSource, TurnState } from "../../src/index.js";
import { coordinatorFor } from "../helpers.js";
import { booleanQuestion, toolResponses, UNATTENDED } from "../support.js";

// `maxQuestionsPerCall` stops a tool stuck asking again. A form's questions count once each, up
// to the form's size: a long form is no tool stuck. Asking again still counts every time.

/** A form tool of `total` boolean questions, asked in order, reporting form progress. */
function form(total: number): BuiltinTool {
  return {
    execute({ answers }) {
      for (let i = 0; i < total; i++) {
        if (!Object.hasOwn(answers, `q${i}`)) {
          return {
            type: "needs_input",
            question: booleanQuestion(`q${i}`),
            form: { index: i + 1, total },
          };
        }
      }
      return { type: "success", content: `${Object.keys(answers).length} answers` };
    },
  };
}

/** A person who answers true, or presses Back on the prompts `backs` names (1-based). */
function person(backs: (prompt: number) => boolean = () => false): PromptBackend {
  let prompts = 0;
  return {
    isHumanReachable: () => true,
    ask: async (request) => {
      prompts++;
      const back = request.kind === "question" && request.controls.back && backs(prompts);
      const reply: QuestionReply = back ? { type: "back" } : { type: "answer", value: true };
      return reply as never;
    },
  };
}

async function runTool(tool: BuiltinTool, prompts: PromptBackend, maxQuestionsPerCall?: number) {
  const { stream, coordinator } = coordinatorFor({
    tools: UNATTENDED,
    executors: builtinExecutorSource({ tool }),
    prompts,
    ...(maxQuestionsPerCall === undefined ? {} : { maxQuestionsPerCall }),
  });
  await coordinator.run([{ id: "call_1", name: "tool", arguments: {} }], {
    turn: new TurnState(),
  });
  return toolResponses(stream);
}

const TOO_MANY = (limit: number) => ({
  id: "call_1",
  content: `Tool 'tool' failed: asked more than ${limit} questions`,
  is_error: true,
});

describe("the questions-per-call limit", () => {
  it("lets a form larger than the limit be answered in full", async () => {
    const responses = await runTool(form(300), person());
    expect(responses).toEqual([{ id: "call_1", content: "300 answers", is_error: false }]);
  });

  it("counts every question of a tool that is not a form", async () => {
    let next = 0;
    const tool: BuiltinTool = {
      execute: () => ({ type: "needs_input", question: booleanQuestion(`q${next++}`) }),
    };
    expect(await runTool(tool, person(), 5)).toEqual([TOO_MANY(5)]);
    expect(next).toBe(6);
  });

  it("stops a form tool that asks the same question again and again", async () => {
    let passes = 0;
    const stuck: BuiltinTool = {
      execute: () => {
        passes++;
        return {
          type: "needs_input",
          question: booleanQuestion("q0"),
          form: { index: 1, total: 3 },
        };
      },
    };
    expect(await runTool(stuck, person(), 4)).toEqual([TOO_MANY(4)]);
    // The one answer held counts once; the four questions beyond it count.
    expect(passes).toBe(6);
  });

  it("counts the questions asked again after Back", async () => {
    // Back on every second prompt: the form never gets past its second question.
    const responses = await runTool(
      form(3),
      person((prompt) => prompt % 2 === 0),
      6,
    );
    expect(responses).toEqual([TOO_MANY(6)]);
  });

  it("keeps counting a form's questions at the form's size", async () => {
    let next = 0;
    const runaway: BuiltinTool = {
      execute: () => ({
        type: "needs_input",
        question: booleanQuestion(`q${next++}`),
        form: { index: Math.min(next, 3), total: 3 },
      }),
    };
    expect(await runTool(runaway, person(), 4)).toEqual([TOO_MANY(4)]);
    // Three questions within the form's size, then four counted, then the fifth stops it.
    expect(next).toBe(8);
  });
});
