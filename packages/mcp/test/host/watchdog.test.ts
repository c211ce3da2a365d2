import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Watchdog } from "../../src/host/watchdog.js";

describe("Watchdog: the server's working-time limit of a connection line", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("expires its limit after the time is up, once", () => {
    const dog = new Watchdog(400);
    const expired = vi.fn();
    dog.arm(expired);
    vi.advanceTimersByTime(399);
    expect(expired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(expired).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(5000);
    expect(expired).toHaveBeenCalledTimes(1);
  });

  it("a shorter limit armed after a longer one expires at its own time", () => {
    const dog = new Watchdog(400);
    const long = vi.fn();
    const short = vi.fn();
    dog.arm(long, 10_000); // after a page was opened
    vi.advanceTimersByTime(20);
    dog.disarm(long);
    dog.arm(short); // the server answered: its own 400 ms again
    vi.advanceTimersByTime(399);
    expect(short).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(short).toHaveBeenCalledTimes(1);
    expect(long).not.toHaveBeenCalled();
  });

  it("arming again restarts the count: the limit is from the last arming", () => {
    const dog = new Watchdog(400);
    const expired = vi.fn();
    dog.arm(expired);
    vi.advanceTimersByTime(300);
    dog.arm(expired);
    vi.advanceTimersByTime(399);
    expect(expired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(expired).toHaveBeenCalledTimes(1);
  });

  it("time while disarmed does not count; arming after it gives the full limit again", () => {
    const dog = new Watchdog(400);
    const expired = vi.fn();
    dog.arm(expired);
    vi.advanceTimersByTime(100);
    dog.disarm(expired);
    vi.advanceTimersByTime(1000);
    expect(expired).not.toHaveBeenCalled();
    dog.arm(expired);
    vi.advanceTimersByTime(399);
    expect(expired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(expired).toHaveBeenCalledTimes(1);
  });

  it("an earlier call's disarm leaves the next call's limit counting", () => {
    const dog = new Watchdog(400);
    const first = vi.fn();
    const next = vi.fn();
    dog.arm(first);
    dog.arm(next);
    dog.disarm(first);
    vi.advanceTimersByTime(400);
    expect(first).not.toHaveBeenCalled();
    expect(next).toHaveBeenCalledTimes(1);
  });

  it("a stopped watchdog never expires", () => {
    const dog = new Watchdog(400);
    const expired = vi.fn();
    dog.arm(expired);
    dog.stop();
    vi.advanceTimersByTime(5000);
    expect(expired).not.toHaveBeenCalled();
  });
});
