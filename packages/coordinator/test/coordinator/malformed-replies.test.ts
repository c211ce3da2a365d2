import type { JsonObject } from "@jp/conversation";
import { describe, expect, it } from "vitest";
import { HumanUnreachableError, type ToolsConfig, TurnState } from "../../src/index.js";
import {
  MockExecutor,
  MockExecutorSource,
  MockPromptBackend,
  type PromptScript,
} from "../../src/testing/index.js";
import { coordinatorFor, inquiryTrail } from "../helpers.js";
import { asking, booleanQuestion, call, recordEmitted, UNATTENDED } from "../support.js";

// A prompt backend with a bug: what it resolves with is no reply the prompt takes. That is a
// failure of the backend, never the person's cancel, skip or decision.

/** A tool that reports the arguments it ran with. */
const echo = () =>
  new MockExecutor((input) => ({
    type: "success",
    content: `ran with ${JSON.stringify(input.call.arguments)}`,
  }));

function setup(tools: ToolsConfig, script: PromptScript, executor = echo()) {
  const human = new MockPromptBackend(script);
  const { stream, coordinator } = coordinatorFor({
    tools,
    executors: new MockExecutorSource({ shell: executor }),
    prompts: human,
  });
  const emitted = recordEmitted(coordinator);
  const outcomes = () =>
    emitted.flatMap((e) => (e.name === "prompt-answered" ? [e.payload.outcome] : []));
  return { human, stream, coordinator, executor, outcomes };
}

const ARGS: JsonObject = { cmd: "ls" };
// Replies typed as the backend's own: the point is that they break its contract.
const broken = (reply: unknown) => reply as never;

describe("a prompt backend that replies with something the prompt does not take", () => {
  it.each<[string, unknown]>([
    ["an unknown reply type", { type: "skipped" }],
    ["a permission prompt's reply", { type: "run" }],
    ["no object at all", null],
  ])(
    "a question, %s: recorded as a backend failure, not the person's cancel",
    async (_name, reply) => {
      const { stream, coordinator, outcomes } = setup(
        UNATTENDED,
        { questions: [broken(reply)] },
        asking([booleanQuestion()]),
      );
      const { responses } = await coordinator.run([call("call_1", "shell")], {
        turn: new TurnState(),
      });
      expect(responses.map((r) => [r.content, r.is_error])).toEqual([
        ["Tool input prompt failed.", true],
      ]);
      expect(inquiryTrail(stream.events).filter((e) => "response" in e)).toEqual([
        { response: "call_1.confirm.1", cancelled: "backend_error" },
      ]);
      expect(outcomes()).toEqual(["failed"]);
    },
  );

  it.each<[string, unknown, string]>([
    [
      "an unknown reply type",
      { type: "yes" },
      'the prompt backend replied with type "yes", which a permission prompt does not take',
    ],
    [
      "a question's reply",
      { type: "answer", value: true },
      'the prompt backend replied with type "answer", which a permission prompt does not take',
    ],
    [
      "an edit without arguments",
      { type: "edit" },
      'the prompt backend gave a permission prompt an "edit" reply whose "arguments" is not a JSON object',
    ],
  ])(
    "a permission prompt, %s: the tool does not run, and the model is not told the user skipped it",
    async (_name, reply, why) => {
      const { executor, coordinator, outcomes } = setup(
        { shell: { run: "ask" } },
        { permissions: [broken(reply)] },
      );
      const { responses } = await coordinator.run([call("call_1", "shell", ARGS)], {
        turn: new TurnState(),
      });
      expect(executor.executions).toHaveLength(0);
      expect(responses.map((r) => [r.content, r.is_error])).toEqual([
        [`Permission prompt failed: ${why}`, true],
      ]);
      expect(outcomes()).toEqual(["failed"]);
    },
  );

  it.each<[string, unknown, string]>([
    [
      "an unknown reply type",
      { type: "ok" },
      'the prompt backend replied with type "ok", which a deliver prompt does not take',
    ],
    [
      "an edit whose content is no text",
      { type: "edit", content: 42 },
      'the prompt backend gave a deliver prompt an "edit" reply whose "content" is not a string',
    ],
  ])(
    "a delivery prompt, %s: the result is not delivered, and the model is not told the user skipped it",
    async (_name, reply, why) => {
      const { coordinator, outcomes } = setup(
        { shell: { run: "unattended", result: "ask" } },
        { deliveries: [broken(reply)] },
      );
      const { responses } = await coordinator.run([call("call_1", "shell", ARGS)], {
        turn: new TurnState(),
      });
      expect(responses.map((r) => [r.content, r.is_error])).toEqual([
        [
          `The tool ran, but its result was not delivered: the delivery prompt failed (${why}). The user did not decline.`,
          true,
        ],
      ]);
      expect(outcomes()).toEqual(["failed"]);
    },
  );
});

describe('a result to edit (`result = "edit"`) whose prompt cannot reach the person', () => {
  it('is not delivered, and the model is not told "Result edit cancelled."', async () => {
    const { coordinator } = setup(
      { shell: { run: "unattended", result: "edit" } },
      {
        deliveries: [
          () => {
            throw new HumanUnreachableError("the client disconnected");
          },
        ],
      },
    );
    const { responses } = await coordinator.run([call("call_1", "shell", ARGS)], {
      turn: new TurnState(),
    });
    expect(responses.map((r) => [r.content, r.is_error])).toEqual([
      [
        "The tool ran, but its result was not delivered: the delivery prompt failed (the client disconnected). The user did not decline.",
        true,
      ],
    ]);
  });
});
