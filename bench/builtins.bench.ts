import { askUser, builtinToolConfigs } from "@jp/builtins";
import { ConversationStream } from "@jp/conversation";
import {
  builtinExecutorSource,
  type PromptBackend,
  type QuestionReply,
  ToolCoordinator,
  TurnState,
} from "@jp/coordinator";
import { medianAsyncMs, ms } from "./stats.js";

const QUESTIONS = 50;
const BACKS = 10;

const form = {
  questions: Array.from({ length: QUESTIONS }, (_, i) => ({
    id: `q${i}`,
    text: `Question ${i}?`,
    answer_type: i % 2 === 0 ? "boolean" : "select",
    ...(i % 2 === 0 ? {} : { options: ["a", "b", "c"] }),
    // Every fifth question depends on the one before it, so Back re-gates real predicates.
    ...(i % 5 === 4 ? { when: { question_id: `q${i - 1}`, equals: "a" } } : {}),
  })),
};

// A human who answers at once and presses Back on every fifth prompt until BACKS are used.
function human(): PromptBackend {
  let prompts = 0;
  let backs = 0;
  return {
    isHumanReachable: () => true,
    ask: async (request) => {
      prompts++;
      let reply: QuestionReply;
      if (
        request.kind === "question" &&
        request.controls.back &&
        backs < BACKS &&
        prompts % 5 === 0
      ) {
        backs++;
        reply = { type: "back" };
      } else if (request.kind === "question") {
        const type = request.question.answer_type.type;
        reply = { type: "answer", value: type === "boolean" ? true : "a" };
      } else reply = { type: "cancelled" };
      return reply as never;
    },
  };
}

async function walk(): Promise<number> {
  const stream = ConversationStream.empty();
  stream.startTurn("bench");
  const prompts = human();
  let shown = 0;
  const coordinator = new ToolCoordinator({
    stream,
    tools: builtinToolConfigs(),
    executors: builtinExecutorSource({ ask_user: askUser }),
    prompts,
  });
  coordinator.on("prompt-shown", () => shown++);
  await coordinator.run([{ id: "call_1", name: "ask_user", arguments: form }], {
    turn: new TurnState(),
  });
  return shown;
}

/** A 50-question form with 10 Backs walked through the coordinator with an instant mock human. */
export async function builtinsBench(): Promise<string[]> {
  const prompts = await walk();
  const median = await medianAsyncMs(async () => {
    await walk();
  });
  return [
    "## @jp/builtins",
    `ask_user form: ${QUESTIONS} questions, ${BACKS} Backs, ${prompts} prompts shown per walk`,
    `  median walk ${ms(median)}  ->  ${(median / QUESTIONS).toFixed(3)} ms per question, ${(median / prompts).toFixed(3)} ms per prompt (target <= 1 ms per question)`,
  ];
}
