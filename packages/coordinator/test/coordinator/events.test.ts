import { describe, expect, it } from "vitest";
import { type ToolCallState, TurnState } from "../../src/index.js";
import { MockExecutorSource, MockPromptBackend } from "../../src/testing/index.js";
import { coordinatorFor } from "../helpers.js";
import {
  asking,
  booleanQuestion,
  call,
  recordEmitted,
  secretQuestion,
  textQuestion,
  UNATTENDED,
} from "../support.js";

describe("coordinator events", () => {
  it("a tool that asks one question moves through the named states in order", async () => {
    const human = new MockPromptBackend({ questions: [{ type: "answer", value: true }] });
    const { coordinator } = coordinatorFor({
      tools: UNATTENDED,
      executors: new MockExecutorSource({ deploy: asking([booleanQuestion()]) }),
      prompts: human,
    });
    const emitted = recordEmitted(coordinator);

    await coordinator.run([call("call_1", "deploy")], { turn: new TurnState() });

    const states = emitted.flatMap((e) =>
      e.name === "tool-state"
        ? [[e.payload.tool_call_id, e.payload.tool_name, e.payload.state]]
        : [],
    );
    expect(states).toEqual(
      (
        [
          "queued",
          "awaiting_permission",
          "running",
          "awaiting_input",
          "running",
          "awaiting_delivery",
          "completed",
        ] satisfies ToolCallState[]
      ).map((state) => ["call_1", "deploy", state]),
    );
    // The prompt is shown while the tool is awaiting input, and answered before it runs again.
    const order = emitted.map((e) => (e.name === "tool-state" ? e.payload.state : e.name));
    expect(order).toEqual([
      "queued",
      "awaiting_permission",
      "running",
      "awaiting_input",
      "inquiry-recorded",
      "prompt-shown",
      "prompt-answered",
      "inquiry-recorded",
      "running",
      "awaiting_delivery",
      "completed",
    ]);
  });

  it("every concurrent call starts queued and ends completed exactly once", async () => {
    const human = new MockPromptBackend({
      questions: [
        { type: "answer", value: true },
        { type: "answer", value: "x" },
      ],
    });
    const { coordinator } = coordinatorFor({
      tools: UNATTENDED,
      executors: new MockExecutorSource({
        one: asking([booleanQuestion()]),
        two: asking([textQuestion()]),
      }),
      prompts: human,
    });
    const emitted = recordEmitted(coordinator);

    await coordinator.run([call("call_1", "one"), call("call_2", "two"), call("call_3", "gone")], {
      turn: new TurnState(),
    });

    for (const id of ["call_1", "call_2", "call_3"]) {
      const states = emitted.flatMap((e) =>
        e.name === "tool-state" && e.payload.tool_call_id === id ? [e.payload.state] : [],
      );
      expect(states[0]).toBe("queued");
      expect(states.at(-1)).toBe("completed");
      expect(states.filter((s) => s === "completed")).toHaveLength(1);
    }
  });

  it("prompt-answered reports the outcome and never carries a secret", async () => {
    const secret = "evt-s3cret-4242";
    const human = new MockPromptBackend({
      questions: [{ type: "answer", value: secret, remember: true }],
    });
    const { coordinator } = coordinatorFor({
      tools: UNATTENDED,
      executors: new MockExecutorSource({ login: asking([secretQuestion()], () => "ok") }),
      prompts: human,
    });
    const emitted = recordEmitted(coordinator);

    await coordinator.run([call("call_1", "login")], { turn: new TurnState() });

    const answered = emitted.flatMap((e) => (e.name === "prompt-answered" ? [e.payload] : []));
    expect(answered.map((p) => [p.request.kind, p.outcome])).toEqual([["question", "answer"]]);
    for (const event of emitted) expect(JSON.stringify(event.payload)).not.toContain(secret);
  });
});
