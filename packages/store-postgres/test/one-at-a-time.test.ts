import { describe, expect, it } from "vitest";
import { oneAtATime } from "../src/internal/one-at-a-time.js";

/** A step that waits for the test to let it finish, counting runs and overlaps. */
function gatedStep() {
  const gates: (() => void)[] = [];
  let running = 0;
  let overlapped = false;
  let runs = 0;
  const step = async () => {
    runs++;
    running++;
    if (running > 1) overlapped = true;
    await new Promise<void>((resolve) => gates.push(resolve));
    running--;
  };
  const release = async () => {
    gates.shift()?.();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { step, release, runs: () => runs, overlapped: () => overlapped };
}

describe("oneAtATime: the inbox's looks for an answer", () => {
  it("calls while a look runs make exactly one more look after it, never two at once", async () => {
    const gated = gatedStep();
    const look = oneAtATime(gated.step, () => false);
    look();
    look();
    look();
    look();
    expect(gated.runs()).toBe(1);
    await gated.release();
    expect(gated.runs()).toBe(2);
    await gated.release();
    expect(gated.runs()).toBe(2);
    expect(gated.overlapped()).toBe(false);
  });

  it("looks no more once stopped, not even the one asked for meanwhile", async () => {
    const gated = gatedStep();
    let stopped = false;
    const look = oneAtATime(gated.step, () => stopped);
    look();
    look();
    stopped = true;
    await gated.release();
    look();
    expect(gated.runs()).toBe(1);
  });
});
