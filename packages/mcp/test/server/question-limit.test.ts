import { type BuiltinTool, builtinExecutor, type PromptBackend, TurnState } from "@jp/coordinator";
import { describe, expect, it } from "vitest";
import { createMcpToolServer } from "../../src/index.js";
import { attachedCoordinator, servedInProcess } from "../support.js";

// Asks q1, q2 and q3 in turn, then finishes.
const threeQuestions: BuiltinTool = {
  execute({ answers }) {
    for (const id of ["q1", "q2", "q3"]) {
      if (answers[id] === undefined) {
        return {
          type: "needs_input",
          question: { id, text: `${id}?`, answer_type: { type: "text" } },
        };
      }
    }
    return { type: "success", content: "all answered" };
  },
};

async function served(era: "2025-11-25" | "2026-07-28", maxQuestionsPerCall: number) {
  const asked: string[] = [];
  const person: PromptBackend = {
    isHumanReachable: () => true,
    ask: async (request) => {
      if (request.kind !== "question") return { type: "approve" } as never;
      const gate = request.question.answer_type.type === "select";
      // Each question opens with accept or decline, under the question's text.
      if (gate) asked.push(request.question.text);
      return { type: "answer", value: gate ? "accept" : "x" } as never;
    },
  };
  const factory = createMcpToolServer({
    name: "s",
    version: "1",
    maxQuestionsPerCall,
    tools: { t: { description: "asks three", executor: builtinExecutor("t", threeQuestions) } },
  });
  const { connection, close } = await servedInProcess(era, factory);
  try {
    const { coordinator } = attachedCoordinator(connection, { prompts: person });
    const { responses } = await coordinator.run([{ id: "c1", name: "t", arguments: {} }], {
      turn: new TurnState(),
    });
    return { asked, content: responses[0]?.content };
  } finally {
    await close();
  }
}

describe.each(["2025-11-25", "2026-07-28"] as const)("on %s", (era) => {
  it("a call over the limit fails without sending the question past it", async () => {
    const { asked, content } = await served(era, 2);
    expect(asked).toEqual(["q1?", "q2?"]);
    expect(content).toBe("Tool 't' asked more than 2 questions.");
  });

  it("a call that asks exactly the limit finishes", async () => {
    const { asked, content } = await served(era, 3);
    expect(asked).toEqual(["q1?", "q2?", "q3?"]);
    expect(content).toBe("all answered");
  });
});
