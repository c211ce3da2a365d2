import { EventEmitter } from "eventemitter3";
import { describe, expect, it } from "vitest";
import {
  type CoordinatorEvent,
  type CoordinatorEvents,
  coordinatorEvents,
  DEFAULT_MAX_BUFFERED_EVENTS,
  type EventsDropped,
  TurnState,
} from "../../src/index.js";
import { MockExecutorSource, MockPromptBackend } from "../../src/testing/index.js";
import { coordinatorFor } from "../helpers.js";
import {
  asking,
  booleanQuestion,
  call,
  recordEmitted,
  secretQuestion,
  UNATTENDED,
} from "../support.js";

type Item = CoordinatorEvent | EventsDropped;

/** An emitter of the coordinator's events, to emit them by hand. */
function emitter() {
  const events = new EventEmitter<CoordinatorEvents>();
  const state = (i: number) =>
    events.emit("tool-state", { tool_call_id: `call_${i}`, tool_name: "t", state: "queued" });
  return { events, state };
}

async function take(iterator: AsyncIterator<Item>, n: number): Promise<Item[]> {
  const items: Item[] = [];
  for (let i = 0; i < n; i++) {
    const next = await iterator.next();
    if (next.done === true) break;
    items.push(next.value);
  }
  return items;
}

const ids = (items: readonly Item[]) =>
  items.map((item) =>
    item.type === "events-dropped"
      ? `dropped ${item.count}`
      : item.type === "tool-state"
        ? item.tool_call_id
        : item.type,
  );

describe("coordinatorEvents: a run's events for a UI", () => {
  it("gives every event of a run, in order, as the listeners see them; aborting after the run ends the loop after the last", async () => {
    const human = new MockPromptBackend({ questions: [{ type: "answer", value: "hunter2" }] });
    const { coordinator } = coordinatorFor({
      tools: UNATTENDED,
      executors: new MockExecutorSource({ login: asking([secretQuestion()]) }),
      prompts: human,
    });
    const emitted = recordEmitted(coordinator);
    const listening = coordinator.listenerCount("tool-state");
    const controller = new AbortController();
    const seen: Item[] = [];
    const ui = (async () => {
      for await (const event of coordinatorEvents(coordinator, { signal: controller.signal })) {
        seen.push(event);
        // A slow UI: the run is done long before it has rendered everything.
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
    })();

    await coordinator.run([call("call_1", "login")], { turn: new TurnState() });
    controller.abort();
    await ui;

    const shown = seen.filter((e) => e.type !== "question-routed");
    expect(shown.map((e) => e.type)).toEqual(emitted.map((e) => e.name));
    expect(shown.map(({ type, ...payload }) => payload)).toEqual(emitted.map((e) => e.payload));
    expect(seen.at(-1)).toMatchObject({ type: "tool-state", state: "completed" });
    expect(JSON.stringify(seen)).not.toContain("hunter2");
    // Nothing left listening once the loop has ended.
    expect(coordinator.listenerCount("tool-state")).toBe(listening);
  });

  it("listens from the call, not from the first next(): nothing emitted in between is missed", async () => {
    const { events, state } = emitter();
    const view = coordinatorEvents(events);
    state(1);
    state(2);
    expect(ids(await take(view, 2))).toEqual(["call_1", "call_2"]);
    await view.return?.();
  });

  it("a consumer waiting for the next event gets it as it is emitted", async () => {
    const { events, state } = emitter();
    const view = coordinatorEvents(events);
    const next = view.next();
    state(1);
    expect(await next).toMatchObject({ done: false, value: { tool_call_id: "call_1" } });
    await view.return?.();
  });

  it("only: gives just the events named", async () => {
    const { events, state } = emitter();
    const view = coordinatorEvents(events, { only: ["prompt-refused"] });
    state(1);
    const refusal = {
      tool_call_id: "call_1",
      tool_name: "t",
      kind: "permission" as const,
      reason: "no_prompt_backend",
      explanation: "x",
    };
    events.emit("prompt-refused", refusal);
    expect(await take(view, 1)).toEqual([{ type: "prompt-refused", ...refusal }]);
    expect(events.listenerCount("tool-state")).toBe(0);
    await view.return?.();
  });
});

describe("coordinatorEvents: how it ends", () => {
  it("break ends it at once and stops listening", async () => {
    const { events, state } = emitter();
    state(0);
    const view = coordinatorEvents(events);
    state(1);
    state(2);
    const seen: Item[] = [];
    for await (const event of view) {
      seen.push(event);
      break;
    }
    expect(ids(seen)).toEqual(["call_1"]);
    expect(events.listenerCount("tool-state")).toBe(0);
    expect(await view.next()).toEqual({ value: undefined, done: true });
  });

  it("an abort while the consumer waits ends the loop", async () => {
    const { events } = emitter();
    const controller = new AbortController();
    const view = coordinatorEvents(events, { signal: controller.signal });
    const next = view.next();
    controller.abort();
    expect(await next).toEqual({ value: undefined, done: true });
    expect(events.listenerCount("tool-state")).toBe(0);
  });

  it("an abort gives what was emitted before it, and nothing after", async () => {
    const { events, state } = emitter();
    const controller = new AbortController();
    const view = coordinatorEvents(events, { signal: controller.signal });
    state(1);
    controller.abort();
    state(2);
    expect(ids(await take(view, 10))).toEqual(["call_1"]);
  });

  it("an already aborted signal: nothing, and no listener", async () => {
    const { events, state } = emitter();
    const view = coordinatorEvents(events, { signal: AbortSignal.abort() });
    state(1);
    expect(await view.next()).toEqual({ value: undefined, done: true });
    expect(events.listenerCount("tool-state")).toBe(0);
  });
});

describe("coordinatorEvents: bounded memory for a slow consumer", () => {
  it("holds at most maxBuffered events: the oldest are dropped, and the consumer is told how many", async () => {
    const { events, state } = emitter();
    const view = coordinatorEvents(events, { maxBuffered: 3 });
    for (let i = 1; i <= 10; i++) state(i);
    expect(ids(await take(view, 4))).toEqual(["dropped 7", "call_8", "call_9", "call_10"]);
    // Caught up: later events come as they are, with no drop reported again.
    state(11);
    expect(ids(await take(view, 1))).toEqual(["call_11"]);
    await view.return?.();
  });

  it("exactly maxBuffered events held: none dropped", async () => {
    const { events, state } = emitter();
    const view = coordinatorEvents(events, { maxBuffered: 3 });
    for (let i = 1; i <= 3; i++) state(i);
    expect(ids(await take(view, 3))).toEqual(["call_1", "call_2", "call_3"]);
    await view.return?.();
  });

  it("maxBuffered 1 keeps the newest; the default holds 1,000", async () => {
    const one = emitter();
    const view = coordinatorEvents(one.events, { maxBuffered: 1 });
    one.state(1);
    one.state(2);
    expect(ids(await take(view, 2))).toEqual(["dropped 1", "call_2"]);
    await view.return?.();

    expect(DEFAULT_MAX_BUFFERED_EVENTS).toBe(1000);
    const many = emitter();
    const all = coordinatorEvents(many.events);
    for (let i = 1; i <= 100_000; i++) many.state(i);
    const items = await take(all, 1001);
    expect(ids(items.slice(0, 2))).toEqual(["dropped 99000", "call_99001"]);
    expect(ids(items).at(-1)).toBe("call_100000");
    await all.return?.();
  });

  it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])(
    "maxBuffered %s is a RangeError",
    (maxBuffered) => {
      const { events } = emitter();
      expect(() => coordinatorEvents(events, { maxBuffered })).toThrow(RangeError);
      expect(events.listenerCount("tool-state")).toBe(0);
    },
  );

  it("the events stay events: a question's routing carries no answer", async () => {
    const human = new MockPromptBackend({ questions: [{ type: "answer", value: true }] });
    const { coordinator } = coordinatorFor({
      tools: UNATTENDED,
      executors: new MockExecutorSource({ deploy: asking([booleanQuestion()]) }),
      prompts: human,
    });
    const view = coordinatorEvents(coordinator, { only: ["question-routed"] });
    await coordinator.run([call("call_1", "deploy")], { turn: new TurnState() });
    expect(await take(view, 1)).toEqual([
      {
        type: "question-routed",
        tool_call_id: "call_1",
        tool_name: "deploy",
        inquiry_id: "call_1.confirm.1",
        question_id: "confirm",
        answer_type: "boolean",
        route: "human",
        detached: false,
      },
    ]);
    await view.return?.();
  });
});
