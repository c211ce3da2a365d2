import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { TurnState } from "../../src/index.js";
import { MockExecutor, MockExecutorSource } from "../../src/testing/index.js";
import { coordinatorFor } from "../helpers.js";
import { call, deferred, macrotasks, UNATTENDED, unpaired } from "../support.js";

let warnings: Error[] = [];
const collect = (warning: Error) => warnings.push(warning);

beforeEach(() => {
  warnings = [];
  process.on("warning", collect);
});
afterEach(() => {
  process.off("warning", collect);
});

/**
 * `count` calls that all run at once, each listening to its signal as a real tool (a child
 * process, a fetch) does, and finishing only once every one of them is listening.
 */
async function concurrentCalls(count: number, hostSignal?: AbortSignal) {
  const allListening = deferred();
  let listening = 0;
  const tool = new MockExecutor(async (input) => {
    const onAbort = () => undefined;
    input.signal.addEventListener("abort", onAbort);
    listening++;
    if (listening === count) allListening.resolve();
    await allListening.promise;
    input.signal.removeEventListener("abort", onAbort);
    return { type: "success", content: `ok ${input.call.id}` };
  });
  const { stream, coordinator } = coordinatorFor({
    tools: UNATTENDED,
    executors: new MockExecutorSource({ work: tool }),
  });
  const calls = Array.from({ length: count }, (_, i) => call(`call_${i + 1}`, "work"));
  const { responses } = await coordinator.run(calls, {
    turn: new TurnState(),
    ...(hostSignal === undefined ? {} : { signal: hostSignal }),
  });
  // Node reports the warning on a later tick.
  await macrotasks(3);
  expect(responses.map((r) => r.content)).toEqual(calls.map((c) => `ok ${c.id}`));
  expect(unpaired(stream.events, "tool_call")).toEqual({ requests: [], responses: [] });
}

const leakWarnings = () => warnings.filter((w) => w.name === "MaxListenersExceededWarning");

describe("many concurrent calls on one run signal", () => {
  it.each([11, 50])("%i calls: no MaxListenersExceededWarning", async (count) => {
    await concurrentCalls(count);
    expect(leakWarnings().map((w) => w.message)).toEqual([]);
  });

  it("11 calls with the host's own signal: no warning either", async () => {
    await concurrentCalls(11, new AbortController().signal);
    expect(leakWarnings().map((w) => w.message)).toEqual([]);
  });

  it("the check itself sees the warning Node prints for an ordinary signal", async () => {
    const { signal } = new AbortController();
    for (let i = 0; i < 11; i++) signal.addEventListener("abort", () => undefined);
    await macrotasks(3);
    expect(leakWarnings()).toHaveLength(1);
  });
});
