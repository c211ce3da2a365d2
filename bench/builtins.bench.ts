import { askUser, builtinToolConfigs } from "@jp/builtins";
import { ConversationStream } from "@jp/conversation";
import {
  builtinExecutorSource,
  type PromptBackend,
  type QuestionReply,
  ToolCoordinator,
  TurnState,
} from "@jp/coordinator";
import { atMost, num, type Row, scaling } from "./report.js";
import { medianAsyncMs, perItemMs, sizes } from "./stats.js";

const SUITE = "@jp/builtins";
const executors = builtinExecutorSource({ ask_user: askUser });

/** A form of `n` questions, booleans and selects; every fifth is gated on the one before it. */
function formOf(n: number) {
  return {
    questions: Array.from({ length: n }, (_, i) => ({
      id: `q${i}`,
      text: `Question ${i}?`,
      answer_type: i % 2 === 0 ? "boolean" : "select",
      ...(i % 2 === 0 ? {} : { options: ["a", "b", "c"] }),
      // Gated on the answer the human gives, so the gate opens and Back re-gates a real predicate.
      ...(i % 5 === 4
        ? { when: { question_id: `q${i - 1}`, equals: (i - 1) % 2 === 0 ? true : "a" } }
        : {}),
    })),
  };
}

// A human who answers at once and presses Back on every fifth prompt until `backs` are used.
function human(backs: number): PromptBackend {
  let prompts = 0;
  let used = 0;
  return {
    isHumanReachable: () => true,
    ask: async (request) => {
      prompts++;
      let reply: QuestionReply;
      if (request.kind !== "question") reply = { type: "cancelled" };
      else if (request.controls.back && used < backs && prompts % 5 === 0) {
        used++;
        reply = { type: "back" };
      } else {
        const boolean = request.question.answer_type.type === "boolean";
        reply = { type: "answer", value: boolean ? true : "a" };
      }
      return reply as never;
    },
  };
}

/** Walks `form` through a fresh coordinator; resolves to the number of prompts shown. */
async function walk(form: object, backs: number): Promise<number> {
  const stream = ConversationStream.empty();
  stream.startTurn("bench");
  let shown = 0;
  const coordinator = new ToolCoordinator({
    stream,
    tools: builtinToolConfigs(),
    executors,
    prompts: human(backs),
  });
  coordinator.on("prompt-shown", () => shown++);
  const { responses } = await coordinator.run(
    [{ id: "call_1", name: "ask_user", arguments: form as never }],
    { turn: new TurnState() },
  );
  if (responses[0]?.is_error !== false) {
    throw new Error(`the form walk failed: ${responses[0]?.content}`);
  }
  return shown;
}

/** ask_user forms walked through the coordinator with an instant mock human. */
export async function builtinsBench(): Promise<Row[]> {
  const fifty = formOf(50);
  const prompts = await walk(fifty, 10);
  // Timed once the walk's code is compiled (a few hundred walks): the goal is the steady cost
  // per question; what a first walk costs is start-up, measured by the startup suite.
  const median = await medianAsyncMs(
    async () => {
      await walk(fifty, 10);
    },
    15,
    300,
  );
  // A fresh arguments object per walk, as a model's every call brings its own.
  const points = await perItemMs(sizes(), (n) => walk(formOf(n), 0), {
    itemsPerSample: 10_000,
    rounds: 5,
  });
  const table = scaling(
    "ms per question",
    points.map((p) => ({ n: p.n, perItem: p.perItem })),
  );
  const worst = Math.max(...table.points.map((p) => p.perItem));
  return [
    {
      id: "builtins.form-50-backs",
      suite: SUITE,
      title: `ask_user form: 50 questions, 10 Backs, ${prompts} prompts shown per walk`,
      measured: `${num(median, 2)} ms per walk: ${num(median / 50, 3)} ms per question, ${num(median / prompts, 3)} ms per prompt`,
      values: { walkMs: median, perQuestionMs: median / 50, perPromptMs: median / prompts },
      goal: atMost(median / 50, 0.1, "≤ 0.1 ms per question"),
    },
    {
      id: "builtins.form-walk",
      suite: SUITE,
      title: "ask_user form walk, per question, n questions (a fresh form each walk)",
      measured: `${num(table.points.at(-1)?.perItem ?? 0, 3)} ms per question at ${num(table.points.at(-1)?.n ?? 0)} questions`,
      values: Object.fromEntries(table.points.map((p) => [`ms@${p.n}`, p.perItem])),
      scaling: table,
      goal: {
        text: "flat: largest vs smallest n ≤ 1.3×, and ≤ 0.1 ms per question",
        met: table.ratio <= 1.3 && worst <= 0.1,
      },
    },
  ];
}
