// The run's AbortSignal is made only when some code reads it (a tool, a prompt backend). These
// tests hold that a signal read late, or through a copy of the input or options, behaves as one
// made at the start of the run would.
import { describe, expect, it } from "vitest";
import {
  type AskOptions,
  type BuiltinTool,
  builtinExecutorSource,
  type ExecuteInput,
  type PromptBackend,
  type PromptRequest,
  type RunStop,
  runStopOf,
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

describe("a pass's stop, read without the signal", () => {
  /**
   * Runs `asker` (a form question, answered with End Turn) beside `watcher`, which waits on its
   * input's `stop` and reports what it saw. With `host`, the host aborts instead of the person.
   */
  async function watchStop(host?: AbortController): Promise<{
    seen: { aborted: boolean; reason: unknown; told: unknown[] };
    endTurn: boolean;
  }> {
    const started = deferred();
    const told: unknown[] = [];
    let seen = { aborted: false, reason: undefined as unknown, told };
    const asker = new MockExecutor(async () => {
      await started.promise;
      if (host !== undefined) host.abort("host gone");
      return { type: "needs_input", question: booleanQuestion("go"), form: { index: 1, total: 2 } };
    });
    const watcher = new MockExecutor(async (input) => {
      const stop = input.stop as RunStop;
      const forget = stop.onAbort((reason) => told.push(`removed: ${String(reason)}`));
      forget();
      await new Promise<void>((resolve) => {
        stop.onAbort((reason) => {
          told.push(reason);
          resolve();
        });
        started.resolve();
      });
      // Added after the stop: never called, as with an aborted signal's listeners.
      stop.onAbort(() => told.push("late"));
      seen = { aborted: stop.aborted, reason: stop.reason, told };
      return { type: "success", content: "stopped" };
    });
    const { coordinator } = coordinatorFor({
      tools: UNATTENDED,
      executors: new MockExecutorSource({ asker, watcher }),
      // Never reads its options: nothing but the watcher's stop listens to the run.
      prompts: {
        isHumanReachable: () => true,
        ask: async () => ({ type: "end_turn" }) as never,
      },
    });
    const result = await coordinator.run([call("c1", "asker"), call("c2", "watcher")], {
      turn: new TurnState(),
      ...(host === undefined ? {} : { signal: host.signal }),
    });
    await new Promise((resolve) => setImmediate(resolve));
    return { seen, endTurn: result.endTurn };
  }

  it("tells its listener once when the person ends the turn, with the turn's reason", async () => {
    const { seen, endTurn } = await watchStop();
    expect(endTurn).toBe(true);
    expect(seen.aborted).toBe(true);
    expect(seen.told).toHaveLength(1);
    expect(seen.told[0]).toBe(seen.reason);
    expect((seen.reason as Error).name).toBe("TurnEnded");
  });

  it("tells its listener when the host's signal aborts, with the host's reason", async () => {
    const { seen } = await watchStop(new AbortController());
    expect(seen).toEqual({ aborted: true, reason: "host gone", told: ["host gone"] });
  });

  it("is the same object on every pass of a run, and carried by a spread copy of the input", async () => {
    const stops: unknown[] = [];
    const tool = new MockExecutor(async (input) => {
      stops.push({ ...input }.stop);
      return Object.keys(input.answers).length < 2
        ? {
            type: "needs_input",
            question: booleanQuestion(`q${Object.keys(input.answers).length}`),
          }
        : { type: "success", content: "done" };
    });
    const { coordinator } = coordinatorFor({
      tools: UNATTENDED,
      executors: new MockExecutorSource({ work: tool }),
      prompts: {
        isHumanReachable: () => true,
        ask: async () => ({ type: "answer", value: true }) as never,
      },
    });
    await coordinator.run([call("c1", "work")], { turn: new TurnState() });
    expect(stops).toHaveLength(3);
    expect(new Set(stops).size).toBe(1);
    expect(stops[0]).not.toHaveProperty("abort");
  });

  it("a built-in gets the run's stop, directly and through an executor that wraps the input", async () => {
    const stops: unknown[] = [];
    const asks: BuiltinTool = {
      execute: ({ answers, stop }) => {
        stops.push(stop);
        return answers.ok === undefined
          ? { type: "needs_input", question: booleanQuestion("ok") }
          : { type: "success", content: "done" };
      },
    };
    const direct = builtinExecutorSource({ asks });
    // A host's wrapper that passes a copy of the input: the built-in still gets the stop.
    const wrapped = {
      executorFor: (c: Parameters<typeof direct.executorFor>[0], config: never) => {
        const inner = direct.executorFor(c, config);
        return inner && { execute: (input: ExecuteInput) => inner.execute({ ...input }) };
      },
    };
    const yes: PromptBackend = {
      isHumanReachable: () => true,
      ask: async () => ({ type: "answer", value: true }) as never,
    };
    for (const executors of [direct, wrapped]) {
      const { coordinator } = coordinatorFor({ tools: UNATTENDED, executors, prompts: yes });
      await coordinator.run([call("c1", "asks")], { turn: new TurnState() });
    }
    expect(stops).toHaveLength(4);
    expect(stops.every((stop) => (stop as RunStop | undefined)?.aborted === false)).toBe(true);
    expect(stops[0]).toBe(stops[1]);
    expect(stops[2]).toBe(stops[3]);
    expect(stops[0]).not.toBe(stops[2]);
  });

  it("runStopOf follows the signal of an input the coordinator did not make", () => {
    const controller = new AbortController();
    const stop = runStopOf({ signal: controller.signal });
    const told: unknown[] = [];
    stop.onAbort((reason) => told.push(reason));
    const forget = stop.onAbort(() => told.push("removed"));
    forget();
    expect([stop.aborted, stop.reason]).toEqual([false, undefined]);
    controller.abort("done");
    expect([stop.aborted, stop.reason, told]).toEqual([true, "done", ["done"]]);
    const own = { aborted: false, reason: undefined, onAbort: () => () => undefined };
    expect(runStopOf({ signal: controller.signal, stop: own })).toBe(own);
  });
});
