import { MockPromptBackend } from "@jp/coordinator/testing";
import { describe, expect, it } from "vitest";
import { runAskUser } from "./helpers.js";

describe("ask_user through the coordinator", () => {
  it("asks one question and returns the typed body", async () => {
    const human = new MockPromptBackend({ questions: [{ type: "answer", value: "backup" }] });
    const { response, trail } = await runAskUser(
      { question: "Apply how?", answer_type: "select", options: ["backup", "overwrite"] },
      { prompts: human },
    );
    expect(JSON.parse(response.content)).toEqual({ answer_type: "select", answer: "backup" });
    expect(human.questions[0]?.prompt_label).toBe("Assistant");
    expect(trail).toEqual([
      ["request", "call_1.answer.1"],
      ["answered", "call_1.answer.1", '"backup"'],
    ]);
  });

  it("walks a branching form with Back", async () => {
    const human = new MockPromptBackend({
      questions: [
        { type: "answer", value: true },
        { type: "back" },
        { type: "answer", value: false },
      ],
    });
    const { response, trail } = await runAskUser(
      {
        questions: [
          { id: "apply", text: "Apply?", answer_type: "boolean" },
          {
            id: "env",
            text: "Env?",
            answer_type: "select",
            options: ["staging", "prod"],
            when: { question_id: "apply", equals: true },
          },
        ],
      },
      { prompts: human },
    );
    expect(JSON.parse(response.content)).toEqual({ apply: false, env: null });
    expect(
      human.questions.map((q) => [q.question.id, q.progress, q.initial, q.controls.back]),
    ).toEqual([
      ["apply", { index: 1, total: 2 }, undefined, false],
      ["env", { index: 2, total: 2 }, undefined, true],
      ["apply", { index: 1, total: 2 }, true, false],
    ]);
    expect(trail).toEqual([
      ["request", "call_1.apply.1"],
      ["answered", "call_1.apply.1", "true"],
      ["request", "call_1.env.1"],
      ["cancelled", "call_1.env.1", "back"],
      ["request", "call_1.apply.2"],
      ["answered", "call_1.apply.2", "false"],
    ]);
  });
});
