import { ConversationStream } from "@jp/conversation";
import {
  type BuiltinTool,
  builtinExecutorSource,
  type PromptBackend,
  ToolCoordinator,
  TurnState,
} from "@jp/coordinator";
import { atLeast, atMost, num, type Row, scaling } from "./report.js";
import { median, perItemMs, sizes } from "./stats.js";

const SUITE = "@jp/coordinator";

// A built-in that asks `arguments.n` boolean questions, one per pass, then succeeds. It keeps its
// place per call (the arguments object is the same on every pass), so each pass costs the tool the
// same at question 10 as at question 10,000: what grows is the coordinator's own cost, if any.
const places = new WeakMap<object, number>();
const asker: BuiltinTool = {
  execute({ arguments: args, answers }) {
    let next = places.get(args) ?? 0;
    while (Object.hasOwn(answers, `q${next}`)) next++;
    places.set(args, next);
    if (next === args.n) return { type: "success", content: "done" };
    return {
      type: "needs_input",
      question: { id: `q${next}`, text: `Question ${next}?`, answer_type: { type: "boolean" } },
    };
  },
};
const executors = builtinExecutorSource({ asker });
const tools = { asker: { run: "unattended" as const } };

// The cheapest possible human: answers every question at once.
const human: PromptBackend = {
  isHumanReachable: () => true,
  ask: async () => ({ type: "answer", value: true }) as never,
};

/** `calls` concurrent calls of `questions` questions each, on a fresh stream and coordinator. */
async function run(calls: number, questions: number): Promise<void> {
  const stream = ConversationStream.empty();
  stream.startTurn("bench");
  const coordinator = new ToolCoordinator({
    stream,
    tools,
    executors,
    prompts: human,
    maxQuestionsPerCall: questions + 1,
  });
  const batch = Array.from({ length: calls }, (_, i) => ({
    id: `call_${i}`,
    name: "asker",
    arguments: { n: questions },
  }));
  await coordinator.run(batch, { turn: new TurnState() });
}

/**
 * `runs` one-call runs one after another in one turn, on one stream and coordinator, as an agent
 * loop does when the model calls a tool many times before it answers: what a run costs must not
 * grow with the turn recorded so far.
 */
async function runsInOneTurn(runs: number): Promise<void> {
  const stream = ConversationStream.empty();
  stream.startTurn("bench");
  const coordinator = new ToolCoordinator({ stream, tools, executors, prompts: human });
  for (let i = 0; i < runs; i++) {
    await coordinator.run([{ id: `call_${i}`, name: "asker", arguments: { n: 1 } }], {
      turn: new TurnState(),
    });
  }
}

// The machine's own speed at the same work without the coordinator: each call hands its question
// to an instant person and back, with the JSON round trip of recording it and one promise hop, as
// the "bare hand-off" measures. A shared machine's speed varies by 2× from hour to hour;
// the coordinator's rate over this one, taken in the same samples, does not.
async function handOff(calls: number, questions: number): Promise<void> {
  const person = async (question: { id: string }) => ({
    type: "answer",
    value: question.id !== "",
  });
  await Promise.all(
    Array.from({ length: calls }, async (_, call) => {
      const answers: Record<string, unknown> = {};
      for (let q = 0; q < questions; q++) {
        const question = { id: `q${q}`, text: `Question ${q}?`, answer_type: { type: "boolean" } };
        const recorded = JSON.parse(JSON.stringify({ id: `call_${call}.q${q}.1`, question }));
        const reply = await person(recorded.question);
        answers[question.id] = reply.value;
      }
    }),
  );
}

/**
 * Round trips per second of `run(calls, questions)` and of `handOff` for the same shape, as the
 * medians of 15 samples each, the two timed alternately.
 */
async function roundTripsPerSecond(
  calls: number,
  questions: number,
  perSample: number,
): Promise<{ coordinator: number; handOff: number }> {
  const repeat = Math.max(1, Math.round(perSample / (calls * questions)));
  const rates: [number[], number[]] = [[], []];
  for (let sample = -2; sample < 15; sample++) {
    for (const [side, work] of [run, handOff].entries()) {
      const start = performance.now();
      for (let i = 0; i < repeat; i++) await work(calls, questions);
      const elapsed = performance.now() - start;
      if (sample >= 0) rates[side]?.push((repeat * calls * questions * 1000) / elapsed);
    }
  }
  return { coordinator: median(rates[0]), handOff: median(rates[1]) };
}

function rateRow(
  id: string,
  title: string,
  rates: { coordinator: number; handOff: number },
  goal: number,
): Row {
  const perSecond = rates.coordinator;
  const share = perSecond / rates.handOff;
  return {
    id: `coordinator.${id}`,
    suite: SUITE,
    title,
    measured: `${num(perSecond)} round trips/s (${num(1e6 / perSecond, 2)} µs each); a bare hand-off of the same shape ${num(rates.handOff)}/s, the coordinator at ${share.toFixed(2)} of it`,
    values: { perSecond, handOffPerSecond: rates.handOff, ofHandOff: share },
    goal: atLeast(perSecond, goal, `≥ ${num(goal)}/s`),
    notes: [
      "bare hand-off: each call hands its questions one by one to an instant person, with a JSON round trip and one promise hop each, timed alternately with the coordinator",
    ],
  };
}

/** Question round trips through the coordinator with an instant mock human. */
export async function coordinatorBench(): Promise<Row[]> {
  const concurrent = await roundTripsPerSecond(100, 10, 10_000);
  const single = await roundTripsPerSecond(1, 1, 5_000);
  const points = await perItemMs(sizes(), (n) => run(1, n), {
    itemsPerSample: 10_000,
    rounds: 7,
  });
  const table = scaling(
    "µs per question",
    points.map((p) => ({ n: p.n, perItem: p.perItem * 1000 })),
  );
  const turnPoints = await perItemMs(sizes(), runsInOneTurn, { itemsPerSample: 10_000, rounds: 7 });
  const turnTable = scaling(
    "µs per run",
    turnPoints.map((p) => ({ n: p.n, perItem: p.perItem * 1000 })),
  );
  return [
    rateRow(
      "round-trips.100x10",
      "question round trips, 100 concurrent calls × 10 questions, fresh stream per batch",
      concurrent,
      200_000,
    ),
    rateRow(
      "round-trips.1x1",
      "one call asking one question on a fresh stream (a new stream and coordinator each time)",
      single,
      150_000,
    ),
    {
      id: "coordinator.per-question",
      suite: SUITE,
      title: "per question, as one call collects n answers",
      measured: `${num(table.points.at(-1)?.perItem ?? 0, 2)} µs per question at ${num(table.points.at(-1)?.n ?? 0)} questions`,
      values: Object.fromEntries(table.points.map((p) => [`us@${p.n}`, p.perItem])),
      scaling: table,
      goal: atMost(table.ratio, 1.3, "flat: largest vs smallest n ≤ 1.3×"),
    },
    {
      id: "coordinator.runs-in-one-turn",
      suite: SUITE,
      title: "per run, as n runs of one call asking one question follow each other in one turn",
      measured: `${num(turnTable.points.at(-1)?.perItem ?? 0, 2)} µs per run at ${num(turnTable.points.at(-1)?.n ?? 0)} runs`,
      values: Object.fromEntries(turnTable.points.map((p) => [`us@${p.n}`, p.perItem])),
      scaling: turnTable,
      goal: atMost(turnTable.ratio, 1.3, "flat: largest vs smallest n ≤ 1.3×"),
    },
  ];
}
