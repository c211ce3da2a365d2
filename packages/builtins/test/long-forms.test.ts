import { ConversationStream, type JsonObject, type JsonValue } from "@jp/conversation";
import {
  type BuiltinOutcome,
  type BuiltinTool,
  builtinExecutorSource,
  type PromptBackend,
  type QuestionReply,
  ToolCoordinator,
  TurnState,
} from "@jp/coordinator";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { askUser, builtinToolConfigs } from "../src/index.js";

// ask_user keeps each call's checked arguments and the place its form walk stood, so a pass
// costs the same at the thousandth question as at the first. What it returns must not change:
// every pass is compared with a walk from scratch over fresh arguments and plain answers.

interface FormSpec {
  readonly questions: readonly { kind: "boolean" | "select"; gate: number | undefined }[];
  /** The person's choices, one per prompt: Back, or an answer picked by the number. */
  readonly replies: readonly number[];
}

const spec: fc.Arbitrary<FormSpec> = fc.record({
  questions: fc
    .array(
      fc.record({
        kind: fc.constantFrom("boolean" as const, "select" as const),
        gate: fc.option(fc.nat(), { nil: undefined }),
      }),
      { minLength: 1, maxLength: 12 },
    )
    .map((questions) =>
      // A gate refers to an earlier question, or there is none.
      questions.map((q, i) => ({
        ...q,
        gate: i === 0 || q.gate === undefined ? undefined : q.gate % i,
      })),
    ),
  replies: fc.array(fc.nat(9), { maxLength: 40 }),
});

function argumentsOf({ questions }: FormSpec): JsonObject {
  return {
    questions: questions.map(({ kind, gate }, i) => ({
      id: `q${i}`,
      text: `Question ${i}?`,
      answer_type: kind,
      ...(kind === "select" ? { options: ["a", "b", "c"] } : {}),
      ...(gate === undefined
        ? {}
        : {
            when: {
              question_id: `q${gate}`,
              equals: questions[gate]?.kind === "boolean" ? true : "a",
            },
          }),
    })),
  };
}

function person(replies: readonly number[]): PromptBackend {
  let prompt = 0;
  return {
    isHumanReachable: () => true,
    ask: async (request) => {
      const choice = replies[prompt++] ?? 1;
      if (request.kind !== "question") return { type: "cancelled" } as never;
      const reply: QuestionReply =
        choice === 0 && request.controls.back
          ? { type: "back" }
          : {
              type: "answer",
              value:
                request.question.answer_type.type === "boolean"
                  ? choice % 2 === 1
                  : (["a", "b", "c"][choice % 3] as string),
            };
      return reply as never;
    },
  };
}

async function run(tool: BuiltinTool, args: JsonObject, prompts: PromptBackend) {
  const stream = ConversationStream.empty();
  stream.startTurn("Hi");
  const coordinator = new ToolCoordinator({
    stream,
    tools: builtinToolConfigs(),
    executors: builtinExecutorSource({ ask_user: tool }),
    prompts,
  });
  const { responses } = await coordinator.run(
    [{ id: "call_1", name: "ask_user", arguments: args }],
    { turn: new TurnState() },
  );
  return responses[0];
}

describe("ask_user on long forms", () => {
  it("answers on every pass as a walk from scratch would, through Back and gates", async () => {
    await fc.assert(
      fc.asyncProperty(spec, async (form) => {
        const passes: [BuiltinOutcome, BuiltinOutcome][] = [];
        const compared: BuiltinTool = {
          inquirySource: () => ({ source: "assistant" }),
          async execute(input) {
            const kept = await askUser.execute(input);
            // Fresh arguments and a plain copy of the answers: nothing of earlier passes is used.
            const fresh = await askUser.execute({
              ...input,
              arguments: JSON.parse(JSON.stringify(input.arguments)) as JsonObject,
              answers: { ...input.answers },
            });
            passes.push([kept, fresh]);
            return kept;
          },
        };
        const response = await run(compared, argumentsOf(form), person(form.replies));
        expect(response?.is_error).toBe(false);
        for (const [kept, fresh] of passes) expect(kept).toStrictEqual(fresh);
      }),
      { numRuns: 150 },
    );
  });

  it("walks a form of 1,000 questions to the end under the default question limit", async () => {
    const questions = Array.from({ length: 1000 }, (_, i) => ({
      id: `q${i}`,
      text: `Question ${i}?`,
      answer_type: "boolean",
    }));
    const response = await run(askUser, { questions }, person([]));
    expect(response?.is_error).toBe(false);
    const answers = JSON.parse(response?.content ?? "{}") as Record<string, JsonValue>;
    expect(Object.keys(answers)).toHaveLength(1000);
    expect(Object.values(answers).every((answer) => answer === true)).toBe(true);
  });
});
