import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadedBy as loadedByIn } from "../../tool/test/support/loaded-by.js";

const PACKAGE = join(import.meta.dirname, "..");

const loadedBy = (code: string) => loadedByIn(PACKAGE, code);

describe("loading @jp/coordinator and @jp/builtins", () => {
  it("loads neither zod nor Ajv on import", () => {
    expect(loadedBy(`import "@jp/coordinator"; import "@jp/builtins";`)).toEqual({
      zod: false,
      ajv: false,
    });
  }, 60_000);

  it("loads neither to walk a well-formed ask_user form with the built-ins' configuration", () => {
    const loaded = loadedBy(`
      import { ConversationStream } from "@jp/conversation";
      import { builtinExecutorSource, ToolCoordinator, TurnState } from "@jp/coordinator";
      import { askUser, builtinToolConfigs } from "@jp/builtins";
      const stream = ConversationStream.empty();
      stream.startTurn("Hi");
      const coordinator = new ToolCoordinator({
        stream,
        tools: builtinToolConfigs(),
        executors: builtinExecutorSource({ ask_user: askUser }),
        prompts: {
          isHumanReachable: () => true,
          ask: async (request) => ({ type: "answer", value: request.question.answer_type.type === "boolean" ? true : "a" }),
        },
      });
      const questions = [
        { id: "ok", text: "OK?", answer_type: "boolean" },
        { id: "pick", text: "Which?", answer_type: "select", options: ["a", "b"], when: { question_id: "ok", equals: true } },
      ];
      const { responses } = await coordinator.run(
        [{ id: "c1", name: "ask_user", arguments: { questions } }],
        { turn: new TurnState() },
      );
      if (responses[0].is_error) throw new Error(responses[0].content);
    `);
    expect(loaded).toEqual({ zod: false, ajv: false });
  }, 60_000);
});
