import { describe, expect, it } from "vitest";
import { PromptQueue } from "../../src/coordinator/prompt-queue.js";

/** A stop that a test aborts by hand. */
function stop() {
  return { aborted: false, reason: undefined as unknown };
}

/** Enters the queue and records the turn once taken; resolves to whether it was taken. */
async function take(queue: PromptQueue, name: string, order: string[], s = stop()) {
  const entered = queue.enter(s);
  const taken = entered === true || (entered !== false && (await entered));
  if (taken) order.push(name);
  return taken;
}

describe("PromptQueue", () => {
  it("gives a free queue's turn at once, without waiting a tick", () => {
    const queue = new PromptQueue();
    expect(queue.enter(stop())).toBe(true);
  });

  it("refuses a prompt whose stop has aborted, and keeps the queue free for the next", () => {
    const queue = new PromptQueue();
    expect(queue.enter({ aborted: true, reason: undefined })).toBe(false);
    expect(queue.enter(stop())).toBe(true);
  });

  it("one prompt at a time, first come first served: each waits until the one before leaves", async () => {
    const queue = new PromptQueue();
    const order: string[] = [];
    const first = take(queue, "first", order);
    const second = take(queue, "second", order);
    const third = take(queue, "third", order);
    await first;
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(order).toEqual(["first"]);
    queue.leave();
    await second;
    expect(order).toEqual(["first", "second"]);
    queue.leave();
    await third;
    expect(order).toEqual(["first", "second", "third"]);
    queue.leave();
    // Everyone has left: the queue is free again.
    expect(queue.enter(stop())).toBe(true);
  });

  it("skips a prompt that stopped while it waited, and gives the turn to the one behind it", async () => {
    const queue = new PromptQueue();
    const order: string[] = [];
    expect(queue.enter(stop())).toBe(true);
    const stopped = stop();
    const skipped = take(queue, "stopped", order, stopped);
    const next = take(queue, "next", order);
    stopped.aborted = true;
    queue.leave();
    expect(await skipped).toBe(false);
    expect(await next).toBe(true);
    expect(order).toEqual(["next"]);
  });

  it("frees the queue when every waiting prompt has stopped", async () => {
    const queue = new PromptQueue();
    expect(queue.enter(stop())).toBe(true);
    const stopped = stop();
    const waiting = queue.enter(stopped);
    stopped.aborted = true;
    queue.leave();
    expect(await waiting).toBe(false);
    expect(queue.enter(stop())).toBe(true);
  });

  it("keeps the order of a long line, also while prompts keep joining it", async () => {
    const queue = new PromptQueue();
    const order: string[] = [];
    expect(queue.enter(stop())).toBe(true);
    const names = Array.from({ length: 300 }, (_, i) => `p${i}`);
    const turns = names.slice(0, 200).map((name) => take(queue, name, order));
    for (let i = 0; i < 300; i++) {
      queue.leave();
      // Half-way, more prompts join the back of the line.
      if (i === 100) turns.push(...names.slice(200).map((name) => take(queue, name, order)));
      await turns[i];
    }
    expect(order).toEqual(names);
    queue.leave();
    expect(queue.enter(stop())).toBe(true);
  });
});
