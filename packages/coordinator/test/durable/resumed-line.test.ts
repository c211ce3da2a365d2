// A prompt left pending when a turn is suspended keeps its place in line when the turn resumes:
// an answer remembered for the turn since then decides it only when its turn in line comes, as
// it would have in a live queue. Deciding it at once let its call go ahead of the prompts before
// it, and past an End Turn given at one of them.
import type { ConversationStream } from "@jp/conversation";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  answerPendingPrompt,
  ToolCoordinator,
  type ToolsConfig,
  TurnState,
} from "../../src/index.js";
import { MockExecutor, MockExecutorSource } from "../../src/testing/index.js";
import { perCall, runLive, runSuspended, type Scenario, started, tempDir } from "./support.js";

/** How the record ends the given call's question and the call itself. */
function endingOf(stream: ConversationStream, callId: string) {
  const events = stream.toJSON() as { type: string; id?: string; [key: string]: unknown }[];
  const question = events.find((e) => e.type === "inquiry_response" && e.id === `${callId}.q0.1`);
  const call = events.find((e) => e.type === "tool_call_response" && e.id === callId);
  return {
    question:
      question === undefined ? undefined : { outcome: question.outcome, reason: question.reason },
    result: call?.content,
  };
}

// Three calls (alpha, beta, alpha again) both run by `tool`, and a coordinator over `stream`
// made anew for each run, as a host does after a restart.
function alphaBetaAlpha(stream: ConversationStream, tool: MockExecutor, tools: ToolsConfig) {
  const coordinatorFor = () =>
    new ToolCoordinator({
      stream,
      tools,
      executors: new MockExecutorSource({ alpha: tool, beta: tool }),
    });
  const calls = [
    { id: "call_0", name: "alpha", arguments: {} },
    { id: "call_1", name: "beta", arguments: {} },
    { id: "call_2", name: "alpha", arguments: {} },
  ];
  return { coordinatorFor, calls };
}

describe("a prompt pending behind another when the turn was suspended", () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  beforeEach(async () => {
    dir = await tempDir();
  });
  afterEach(async () => {
    await dir.remove();
  });

  /**
   * Runs `scenario` live and suspended; checks that the live run ended `callId` as `expected`,
   * and that the resumed run ended every call as the live one did.
   */
  async function resumesAsLive(
    scenario: Scenario,
    callId: string,
    expected: ReturnType<typeof endingOf>["question"],
  ): Promise<void> {
    const live = await runLive(scenario);
    expect(endingOf(live, callId).question).toEqual(expected);
    const { stream } = await runSuspended(scenario, dir.path);
    expect(endingOf(stream, callId)).toEqual(endingOf(live, callId));
    expect(perCall(stream)).toEqual(perCall(live));
  }

  const TURN_ENDED = { outcome: "cancelled", reason: "turn_ended" };

  it("a question that an answer remembered since would answer waits for the prompts before it, and End Turn at one of them closes it", async () => {
    // call_0 and call_2 are calls of one tool and ask the same question; call_1, of another
    // tool, asks between them. Live: call_0's answer is remembered for the turn, the person ends
    // the turn at call_1's question, and call_2's question, still queued, is closed with it.
    const scenario: Scenario = {
      calls: [
        { questions: ["boolean"], run: "unattended", result: "unattended", tool: "alpha" },
        { questions: ["boolean"], run: "unattended", result: "unattended", tool: "beta" },
        { questions: ["boolean"], run: "unattended", result: "unattended", tool: "alpha" },
      ],
      choices: [1, 3],
    };
    // Resumed, call_2's question was answered from memory before the End Turn and its tool ran.
    await resumesAsLive(scenario, "call_2", TURN_ENDED);
  });

  it("a permission prompt that a decision remembered since would settle waits for the prompts before it", async () => {
    // call_0's permission is approved for the turn while call_1's permission prompt (another
    // tool) and call_2's (call_0's tool) wait behind it. Live, call_2 runs only once call_1's
    // prompt is answered, so call_1's question comes before call_2's, and End Turn there closes
    // call_2's question. Resumed, call_2 must not run ahead of call_1's permission prompt.
    const scenario: Scenario = {
      calls: [
        { questions: ["boolean"], run: "ask", result: "ask", tool: "alpha" },
        { questions: ["boolean"], run: "ask", result: "ask", tool: "beta" },
        { questions: ["boolean"], run: "ask", result: "ask", tool: "alpha" },
      ],
      choices: [0, 0, 412, 0, 1, 1, 0],
    };
    await resumesAsLive(scenario, "call_2", TURN_ENDED);
  });

  it("new prompts of two calls let go together keep the order in which they were asked, and End Turn at the first closes the second", async () => {
    // call_0 hosts a sub-agent whose question stands first in line; call_1 and call_2, one tool
    // approved for the turn at call_1's prompt, then each ask a new question behind it. Live,
    // call_1 asks first. Resumed, call_1's question waited for the sub-agent's question to
    // rejoin the line while call_2's, asked a moment later, found the line empty and went first.
    const scenario: Scenario = {
      calls: [
        {
          questions: ["boolean"],
          run: "unattended",
          result: "ask",
          tool: "beta",
          agent: { questions: ["boolean"], run: "ask", result: "ask" },
        },
        { questions: ["boolean"], run: "ask", result: "ask", tool: "alpha" },
        { questions: ["boolean"], run: "ask", result: "ask", tool: "alpha" },
      ],
      choices: [12, 1, 1],
    };
    await resumesAsLive(scenario, "call_2", TURN_ENDED);
  });

  it("with nobody to ask and no suspending, a decision remembered for the turn still decides a prompt held in line", async () => {
    const ran: string[] = [];
    const tool = new MockExecutor((input) => {
      ran.push(input.call.id);
      return { type: "success", content: "done" };
    });
    const tools: ToolsConfig = { alpha: { run: "ask" }, beta: { run: "ask" } };
    const stream = started();
    const { coordinatorFor, calls } = alphaBetaAlpha(stream, tool, tools);
    await coordinatorFor().run(calls, { turn: new TurnState(), suspend: true });
    // alpha is approved for the turn; call_2's prompt stays pending behind call_1's.
    answerPendingPrompt(stream, "call_0#permission", {
      type: "run",
      remember: true,
    })._unsafeUnwrap();
    const second = await coordinatorFor().resume();
    expect(second.pending.map((p) => p.prompt_id)).toEqual([
      "call_1#permission",
      "call_2#permission",
    ]);
    answerPendingPrompt(stream, "call_1#permission", { type: "skip" })._unsafeUnwrap();
    // Resumed where nobody can be asked, without suspending again: the person's decision for
    // alpha still runs call_2, rather than the detached policy refusing it.
    const third = await coordinatorFor().resume({ suspend: false });
    expect(third.pending).toEqual([]);
    expect(ran).toEqual(["call_0", "call_2"]);
    expect(third.refusals).toEqual([]);
  });
});

describe("a question held in line when nobody can be asked", () => {
  it("takes an answer remembered for the turn since, rather than the detached policy's refusal", async () => {
    const answers: Record<string, unknown> = {};
    const tool = new MockExecutor((input) => {
      if (input.answers.q === undefined) {
        return {
          type: "needs_input",
          question: { id: "q", text: "Go on?", answer_type: { type: "boolean" } },
        };
      }
      answers[input.call.id] = input.answers.q;
      return { type: "success", content: `q=${String(input.answers.q)}` };
    });
    const tools: ToolsConfig = { alpha: { run: "unattended" }, beta: { run: "unattended" } };
    const stream = started();
    const { coordinatorFor, calls } = alphaBetaAlpha(stream, tool, tools);
    await coordinatorFor().run(calls, { turn: new TurnState(), suspend: true });
    answerPendingPrompt(stream, "call_0.q.1", {
      type: "answer",
      value: true,
      remember: true,
    })._unsafeUnwrap();
    const second = await coordinatorFor().resume();
    expect(second.pending.map((p) => p.prompt_id)).toEqual(["call_1.q.1", "call_2.q.1"]);
    answerPendingPrompt(stream, "call_1.q.1", { type: "answer", value: false })._unsafeUnwrap();

    const third = await coordinatorFor().resume({ suspend: false });

    expect(third.pending).toEqual([]);
    expect(third.refusals).toEqual([]);
    expect(answers).toEqual({ call_0: true, call_1: false, call_2: true });
  });
});
