import { describe, expect, it } from "vitest";
import {
  HumanUnreachableError,
  PromptUnsupportedError,
  type QuestionPromptRequest,
  TurnState,
} from "../../src/index.js";
import { MockExecutorSource, MockPromptBackend } from "../../src/testing/index.js";
import { coordinatorFor, inquiryTrail } from "../helpers.js";
import {
  asking,
  booleanQuestion,
  call,
  recordEmitted,
  textQuestion,
  UNATTENDED,
} from "../support.js";

const unreachable = (detail: string) =>
  `Tool input prompt failed: the user could not be reached (${detail}). The user did not decline; do not retry this tool call in this turn.`;

describe("a prompt backend that cannot reach the person", () => {
  it("a disconnect mid-question: the open prompt and the one queued behind it are backend failures, not the user's cancel", async () => {
    const disconnected = () => {
      throw new HumanUnreachableError("the client disconnected");
    };
    const human = new MockPromptBackend({ questions: [disconnected, disconnected] });
    const { stream, coordinator } = coordinatorFor({
      tools: UNATTENDED,
      executors: new MockExecutorSource({
        first: asking([booleanQuestion()]),
        second: asking([textQuestion()]),
      }),
      prompts: human,
    });
    const emitted = recordEmitted(coordinator);

    const { responses, endTurn } = await coordinator.run(
      [call("call_1", "first"), call("call_2", "second")],
      { turn: new TurnState() },
    );

    expect(endTurn).toBe(false);
    expect(responses.map((r) => [r.content, r.is_error])).toEqual([
      [unreachable("the client disconnected"), true],
      [unreachable("the client disconnected"), true],
    ]);
    expect(inquiryTrail(stream.events).filter((e) => "response" in e)).toEqual([
      { response: "call_1.confirm.1", cancelled: "backend_error" },
      { response: "call_2.name.1", cancelled: "backend_error" },
    ]);
    // Hosts see a failed prompt, never a cancelled one.
    expect(
      emitted.flatMap((e) => (e.name === "prompt-answered" ? [e.payload.outcome] : [])),
    ).toEqual(["failed", "failed"]);
  });

  it("a backend that cannot show this kind of question: the model learns what the person can answer", async () => {
    const multi: QuestionPromptRequest["question"] = {
      id: "pick",
      text: "Which ones?",
      answer_type: { type: "multi_select", options: ["a", "b", "c"] },
    };
    const human = new MockPromptBackend({
      questions: [
        () => {
          throw new PromptUnsupportedError(
            "this person can only answer boolean, select and text questions",
          );
        },
      ],
    });
    const { stream, coordinator } = coordinatorFor({
      tools: UNATTENDED,
      executors: new MockExecutorSource({ chooser: asking([multi]) }),
      prompts: human,
    });

    const { responses } = await coordinator.run([call("call_1", "chooser")], {
      turn: new TurnState(),
    });

    expect(responses.map((r) => [r.content, r.is_error])).toEqual([
      [
        "Tool input prompt failed: this person can only answer boolean, select and text questions",
        true,
      ],
    ]);
    expect(inquiryTrail(stream.events).filter((e) => "response" in e)).toEqual([
      { response: "call_1.pick.1", cancelled: "backend_error" },
    ]);
  });
});
