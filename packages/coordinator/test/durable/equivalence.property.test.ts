import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type CallSpec,
  comparable,
  perCall,
  runLive,
  runSuspended,
  type Scenario,
  tempDir,
} from "./support.js";

const questions = fc.array(fc.constantFrom("boolean", "select", "text" as const), {
  minLength: 1,
  maxLength: 4,
});
const mode = fc.constantFrom("ask", "unattended" as const);

const callSpec: fc.Arbitrary<CallSpec> = fc.record(
  {
    questions,
    run: mode,
    result: mode,
    tool: fc.constantFrom("alpha", "beta" as const),
    // A sub-agent whose questions, permission and delivery prompts are escalated to the parent.
    agent: fc.record({ questions, run: mode, result: mode }),
  },
  { requiredKeys: ["questions", "run", "result", "tool"] },
);

// The choices whose replies depend on the order prompts are answered in (see `replyFor`): End
// Turn (1, 24, 47), Reply (2, 31), answers remembered for the turn (3, 8, 13) and permissions
// remembered for it (2, 7, 12, 22), drawn often, so that a resume that asks in another order
// than the live run shows.
const orderSensitive = fc.constantFrom(1, 24, 47, 2, 31, 3, 8, 13, 7, 12, 22);
const choice = fc.oneof(orderSensitive, fc.nat({ max: 1000 }));

const scenario: fc.Arbitrary<Scenario> = fc.record({
  calls: fc.array(callSpec, { minLength: 1, maxLength: 3 }),
  choices: fc.array(choice, { minLength: 1, maxLength: 30 }),
});

describe("suspend → save → load → answer → resume gives the live run's stream", () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  beforeAll(async () => {
    dir = await tempDir();
  });
  afterAll(async () => {
    await dir.remove();
  });

  it("for forms with Back, Reply and End Turn, permission and delivery prompts, remembered answers, concurrent calls and sub-agents' escalated prompts, suspended at every prompt", async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const live = await runLive(s);
        const root = `${dir.path}/${n++}`;
        const { stream } = await runSuspended(s, root);
        // Each call's history is the live one, event for event; with one call, so is the stream.
        expect(perCall(stream)).toEqual(perCall(live));
        if (s.calls.length === 1) expect(comparable(stream)).toEqual(comparable(live));
      }),
      {
        numRuns: 60,
        examples: [
          // Two calls of one tool ask the same question; the second call's answer is remembered
          // for the turn. Resumed, the second call's prompt must not overtake the first's.
          [
            {
              calls: [
                { questions: ["boolean"], run: "ask", result: "ask", tool: "alpha" },
                { questions: ["boolean"], run: "ask", result: "ask", tool: "alpha" },
              ],
              choices: [0, 0, 2, 0, 0, 943, 0],
            },
          ],
          // A call's permission is decided by an answer remembered since it was suspended, and its
          // sub-agent then asks for permission under the same prompt id. Resumed, the sub-agent's
          // prompt must not take the call's old place in line and overtake an End Turn behind it.
          [
            {
              calls: [
                { questions: ["boolean"], run: "ask", result: "ask", tool: "alpha" },
                {
                  questions: ["boolean"],
                  run: "ask",
                  result: "ask",
                  tool: "beta",
                  agent: { questions: ["boolean"], run: "ask", result: "ask" },
                },
                {
                  questions: ["boolean"],
                  run: "ask",
                  result: "ask",
                  tool: "alpha",
                  agent: { questions: ["boolean"], run: "ask", result: "ask" },
                },
              ],
              choices: [16, 1, 0, 0, 0, 0, 977, 0, 0],
            },
          ],
        ],
      },
    );
  }, 120_000);
});
