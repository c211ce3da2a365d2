import { ConversationStream } from "@jp/conversation";
import {
  type BuiltinTool,
  builtinExecutorSource,
  type PromptBackend,
  ToolCoordinator,
  TurnState,
} from "@jp/coordinator";
import { medianAsyncMs, ms } from "./stats.js";

const QUESTIONS_PER_CALL = 10;
const CALLS = 100;

// A built-in that asks QUESTIONS_PER_CALL boolean questions, one per pass, then succeeds.
const asker: BuiltinTool = {
  execute({ answers }) {
    const next = Object.keys(answers).length;
    if (next === QUESTIONS_PER_CALL) return { type: "success", content: "done" };
    return {
      type: "needs_input",
      question: { id: `q${next}`, text: `Question ${next}?`, answer_type: { type: "boolean" } },
    };
  },
};

// The cheapest possible human: answers every question at once.
const human: PromptBackend = {
  isHumanReachable: () => true,
  ask: async () => ({ type: "answer", value: true }) as never,
};

async function oneRun(): Promise<void> {
  const stream = ConversationStream.empty();
  stream.startTurn("bench");
  const coordinator = new ToolCoordinator({
    stream,
    tools: { asker: { run: "unattended" } },
    executors: builtinExecutorSource({ asker }),
    prompts: human,
  });
  const calls = Array.from({ length: CALLS }, (_, i) => ({
    id: `call_${i}`,
    name: "asker",
    arguments: {},
  }));
  await coordinator.run(calls, { turn: new TurnState() });
}

/** Question round-trips per second through the coordinator with an instant mock human. */
export async function coordinatorBench(): Promise<string[]> {
  const roundTrips = CALLS * QUESTIONS_PER_CALL;
  const median = await medianAsyncMs(oneRun);
  const perSecond = Math.round((roundTrips / median) * 1000);
  return [
    "## @jp/coordinator",
    `question round-trips: ${CALLS} concurrent calls x ${QUESTIONS_PER_CALL} questions = ${roundTrips} per run`,
    `  median run ${ms(median)}  ->  ${perSecond.toLocaleString("en-US")} round-trips/s (target >= 100,000/s)`,
  ];
}
