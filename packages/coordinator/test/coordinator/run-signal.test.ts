// The run's AbortSignal is made only when some code reads it (a tool, a prompt backend). These
// tests hold that a signal read late, or through a copy of the input or options, behaves as one
// made at the start of the run would.
import { describe, expect, it } from "vitest";
import {
  type AskOptions,
  type BuiltinTool,
  builtinExecutorSource,
  type PromptBackend,
  type PromptRequest,
  TurnState,
} from "../../src/index.js";
import { MockExecutor, MockExecutorSource } from "../../src/testing/index.js";
import { coordinatorFor } from "../helpers.js";
import { booleanQuestion, call, deferred, UNATTENDED } from "../support.js";

/**
 * Runs one call whose tool asks `questions` yes/no questions (answered at once), then waits, on a
 * spread copy of its input, for the host's abort. Resolves with the reasons the copy saw.
 */
async function reasonsSeenThroughCopy(questions: number): Promise<unknown[]> {
  const host = new AbortController();
  const waiting = deferred();
  const reasons: unknown[] = [];
  const tool = new MockExecutor(async (input) => {
    const next = Object.keys(input.answers).length;
    if (next < questions) return { type: "needs_input", question: booleanQuestion(`q${next}`) };
    const copy = { ...input };
    waiting.resolve();
    await new Promise<void>((resolve) =>
      copy.signal.addEventListener("abort", () => resolve(), { once: true }),
    );
    reasons.push(copy.signal.reason);
    return { type: "success", content: "stopped" };
  });
  const yes: PromptBackend = {
    isHumanReachable: () => true,
    ask: async () => ({ type: "answer", value: true }) as never,
  };
  const { coordinator } = coordinatorFor({
    tools: UNATTENDED,
    executors: new MockExecutorSource({ work: tool }),
    prompts: yes,
  });
  const running = coordinator.run([call("c1", "work")], {
    turn: new TurnState(),
    signal: host.signal,
  });
  await waiting.promise;
  host.abort("shutting down");
  await running;
  return reasons;
}

describe("the run's signal, made when read", () => {
  it("a tool that spreads its input still gets a signal that aborts with the host's reason", async () => {
    expect(await reasonsSeenThroughCopy(0)).toEqual(["shutting down"]);
  });

  it("after many rounds, when the run has made its signal, a spread input still carries it", async () => {
    // Twelve rounds: past the few a run defers its signal for.
    expect(await reasonsSeenThroughCopy(12)).toEqual(["shutting down"]);
  });

  it("a built-in reading `signal` after the host aborted gets an aborted signal", async () => {
    const host = new AbortController();
    const observed: { aborted: boolean; reason: unknown }[] = [];
    const late: BuiltinTool = {
      async execute(input) {
        host.abort(new Error("deadline"));
        // Read only now, after the abort: the signal made now must say so already.
        observed.push({ aborted: input.signal.aborted, reason: input.signal.reason });
        return { type: "success", content: "x" };
      },
    };
    const { coordinator } = coordinatorFor({
      tools: UNATTENDED,
      executors: builtinExecutorSource({ late }),
    });
    await coordinator.run([call("c1", "late")], { turn: new TurnState(), signal: host.signal });
    expect(observed).toEqual([{ aborted: true, reason: new Error("deadline") }]);
  });

  it("a tool reading `signal` only after the person ended the turn gets it aborted", async () => {
    const ended = deferred();
    const observed: boolean[] = [];
    // Never reads the options: the run's signal is not made by the prompt.
    const endsTurn: PromptBackend = {
      isHumanReachable: () => true,
      ask: async () => {
        queueMicrotask(() => ended.resolve());
        return { type: "end_turn" } as never;
      },
    };
    // A form's question: End Turn is offered there.
    const asker = new MockExecutor(() => ({
      type: "needs_input",
      question: booleanQuestion("go"),
      form: { index: 1, total: 2 },
    }));
    const waiter = new MockExecutor(async (input) => {
      await ended.promise;
      await new Promise((resolve) => setImmediate(resolve));
      observed.push(input.signal.aborted);
      return { type: "success", content: "waited" };
    });
    const { coordinator } = coordinatorFor({
      tools: UNATTENDED,
      executors: new MockExecutorSource({ asker, waiter }),
      prompts: endsTurn,
    });
    const result = await coordinator.run([call("c1", "asker"), call("c2", "waiter")], {
      turn: new TurnState(),
    });
    expect(result.endTurn).toBe(true);
    expect(observed).toEqual([true]);
  });

  it("a backend wrapper that spreads the ask options passes on a signal the host aborts", async () => {
    const host = new AbortController();
    const shown = deferred();
    // Holds the prompt open until its signal aborts, as a terminal waiting for a key does.
    const inner: PromptBackend = {
      isHumanReachable: () => true,
      ask: (_request: PromptRequest, options: AskOptions) =>
        new Promise((resolve) => {
          options.signal.addEventListener("abort", () => resolve({ type: "cancelled" } as never), {
            once: true,
          });
          shown.resolve();
        }),
    };
    const wrapper: PromptBackend = {
      isHumanReachable: () => inner.isHumanReachable(),
      ask: (request, options) => inner.ask(request, { ...options }),
    };
    const tool = new MockExecutor(async (input) =>
      input.answers.ok === undefined
        ? { type: "needs_input", question: booleanQuestion("ok") }
        : { type: "success", content: "answered" },
    );
    const { stream, coordinator } = coordinatorFor({
      tools: UNATTENDED,
      executors: new MockExecutorSource({ work: tool }),
      prompts: wrapper,
    });
    const running = coordinator.run([call("c1", "work")], {
      turn: new TurnState(),
      signal: host.signal,
    });
    await shown.promise;
    host.abort(new Error("shutting down"));
    const { responses } = await running;
    // Stopped by the host, and recorded as that: not as the person's cancel.
    expect(responses.map((r) => r.content)).toEqual([
      "Tool input interrupted: the run was stopped before the user answered. The user did not decline.",
    ]);
    const answer = stream.events.find((e) => e.type === "inquiry_response");
    expect(answer).toMatchObject({ outcome: "cancelled", reason: "interrupted" });
  });
});
