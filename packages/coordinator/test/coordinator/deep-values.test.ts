// Answers and arguments nested too deeply to be saved never get into the conversation: the
// person is asked again with the reason, the model is told to send the call again, and the
// conversation still saves and loads.
import { ConversationStream, type JsonValue } from "@jp/conversation";
import type { Question } from "@jp/tool";
import { describe, expect, it } from "vitest";
import { answerPendingPrompt, listPendingPrompts, TurnState } from "../../src/index.js";
import { MockExecutor, MockExecutorSource, MockPromptBackend } from "../../src/testing/index.js";
import { coordinatorFor } from "../helpers.js";
import {
  asking,
  call,
  selectQuestion,
  textQuestion,
  toolResponses,
  UNATTENDED,
} from "../support.js";

// `levels` arrays within one another around "x": `nest(2)` is [["x"]].
function nest(levels: number): JsonValue {
  let value: JsonValue = "x";
  for (let i = 0; i < levels; i++) value = [value];
  return value;
}

const answer = (value: JsonValue) => ({ type: "answer" as const, value });

const TOO_DEEP =
  "nested more than 100 levels deep (arrays and objects within one another); an answer may be nested at most 100 levels deep";

const anything: Question = {
  id: "data",
  text: "Data?",
  answer_type: { type: "schema", schema: {} },
};

// What a saved conversation is: its events written as JSON and read back.
function savedAndLoaded(stream: ConversationStream): ConversationStream {
  return ConversationStream.decode(JSON.parse(JSON.stringify(stream.toJSON())))._unsafeUnwrap();
}

describe("an answer nested too deeply", () => {
  it.each<[string, Question, JsonValue]>([
    ["schema", anything, { ok: true }],
    ["text", textQuestion(), "Ada"],
    ["select", selectQuestion(), "green"],
  ])(
    "to a %s question: the person is asked again with the reason, and the conversation saves",
    async (_type, question, fitting) => {
      const human = new MockPromptBackend({ questions: [answer(nest(200_000)), answer(fitting)] });
      const { stream, coordinator } = coordinatorFor({
        tools: UNATTENDED,
        executors: new MockExecutorSource({ t: asking([question]) }),
        prompts: human,
      });

      const result = await coordinator.run([call("c1", "t")], { turn: new TurnState() });

      expect(result.responses.map((r) => [r.content, r.is_error])).toEqual([
        [`answers: ${JSON.stringify({ [question.id]: fitting })}`, false],
      ]);
      expect(human.questions.map((q) => q.error)).toEqual([undefined, TOO_DEEP]);
      expect(savedAndLoaded(stream).events).toEqual(stream.events);
    },
  );

  it("an answer nested exactly 100 levels deep is taken and recorded", async () => {
    const human = new MockPromptBackend({ questions: [answer(nest(100))] });
    const { stream, coordinator } = coordinatorFor({
      tools: UNATTENDED,
      executors: new MockExecutorSource({ t: asking([anything], () => "got it") }),
      prompts: human,
    });

    const result = await coordinator.run([call("c1", "t")], { turn: new TurnState() });

    expect(result.responses.map((r) => r.content)).toEqual(["got it"]);
    expect(human.questions).toHaveLength(1);
    expect(savedAndLoaded(stream).events).toEqual(stream.events);
  });

  it("101 levels deep, sent three times, fails that question with the reason", async () => {
    const deep = nest(101);
    const human = new MockPromptBackend({ questions: [answer(deep), answer(deep), answer(deep)] });
    const { stream, coordinator } = coordinatorFor({
      tools: UNATTENDED,
      executors: new MockExecutorSource({ t: asking([anything]) }),
      prompts: human,
    });

    const result = await coordinator.run([call("c1", "t")], { turn: new TurnState() });

    expect(result.responses.map((r) => [r.content, r.is_error])).toEqual([
      [
        JSON.stringify({
          cancelled: true,
          answered: {},
          error: `the answer to question "data" kept failing validation (${TOO_DEEP}); it was not answered`,
        }),
        true,
      ],
    ]);
    expect(savedAndLoaded(stream).events).toEqual(stream.events);
  });
});

describe("a call whose arguments are nested too deeply", () => {
  const refusal =
    "The call was not run: its arguments are nested more than 128 levels deep (arrays and objects within one another), more than a conversation can record. Call t again with its arguments nested at most 128 levels deep.";

  it("is not run; the model is told why, and the request is recorded without them", async () => {
    let runs = 0;
    const tool = new MockExecutor(() => {
      runs++;
      return { type: "success", content: "ran" };
    });
    const { stream, coordinator } = coordinatorFor({
      tools: UNATTENDED,
      executors: new MockExecutorSource({ t: tool }),
    });

    const result = await coordinator.run(
      [call("c1", "t", { a: nest(200_000) }), call("c2", "t", { a: nest(128) })],
      { turn: new TurnState() },
    );

    expect(runs).toBe(0);
    expect(result.responses.map((r) => [r.id, r.content, r.is_error])).toEqual([
      ["c1", refusal, true],
      ["c2", refusal, true],
    ]);
    expect(toolResponses(stream).map((r) => r.id)).toEqual(["c1", "c2"]);
    const requests = stream.events.filter((e) => e.type === "tool_call_request");
    expect(requests.map((e) => (e as { arguments: unknown }).arguments)).toEqual([{}, {}]);
    expect(savedAndLoaded(stream).events).toEqual(stream.events);
  });

  it("nested exactly 128 levels deep (the arguments object the first), the call runs", async () => {
    const args = { a: nest(127) };
    const { stream, coordinator } = coordinatorFor({
      tools: UNATTENDED,
      executors: new MockExecutorSource({
        t: new MockExecutor((input) => ({
          type: "success",
          content:
            JSON.stringify(input.call.arguments) === JSON.stringify(args) ? "ran" : "changed",
        })),
      }),
    });

    const result = await coordinator.run([call("c1", "t", args)], { turn: new TurnState() });

    expect(result.responses.map((r) => [r.content, r.is_error])).toEqual([["ran", false]]);
    expect(savedAndLoaded(stream).events).toEqual(stream.events);
  });
});

describe("edited arguments nested too deeply", () => {
  const edit = (args: JsonValue) => ({ type: "edit" as const, arguments: args as never });
  const echo = () =>
    new MockExecutor((input) => ({
      type: "success",
      content: `ran with ${JSON.stringify(input.call.arguments).length} characters`,
    }));

  it("from a live permission prompt: the tool does not run and the prompt failed, saying why", async () => {
    const tool = echo();
    const { stream, coordinator } = coordinatorFor({
      tools: { t: { run: "ask" } },
      executors: new MockExecutorSource({ t: tool }),
      prompts: new MockPromptBackend({ permissions: [edit({ a: nest(128) })] }),
    });

    const result = await coordinator.run([call("c1", "t")], { turn: new TurnState() });

    expect(tool.executions).toHaveLength(0);
    expect(result.responses.map((r) => [r.content, r.is_error])).toEqual([
      [
        'Permission prompt failed: the prompt backend gave a permission prompt an "edit" reply whose "arguments" is not nested at most 128 levels deep',
        true,
      ],
    ]);
    expect(savedAndLoaded(stream).events).toEqual(stream.events);
  });

  it("from a live permission prompt, nested exactly 128 levels deep: the tool runs with them", async () => {
    const tool = echo();
    const { coordinator } = coordinatorFor({
      tools: { t: { run: "ask" } },
      executors: new MockExecutorSource({ t: tool }),
      prompts: new MockPromptBackend({ permissions: [edit({ a: nest(127) })] }),
    });

    const result = await coordinator.run([call("c1", "t")], { turn: new TurnState() });

    expect(tool.executions).toHaveLength(1);
    expect(result.responses.map((r) => r.is_error)).toEqual([false]);
  });

  it("given to answerPendingPrompt: a typed invalid reply, and the prompt stays pending", async () => {
    const { stream, coordinator } = coordinatorFor({
      tools: { t: { run: "ask" } },
      executors: new MockExecutorSource({ t: echo() }),
    });
    await coordinator.run([call("c1", "t")], { turn: new TurnState(), suspend: true });

    const refused = answerPendingPrompt(stream, "c1#permission", edit({ a: nest(128) }));
    expect(refused.isOk() ? "accepted" : refused.error).toEqual({
      kind: "invalid_reply",
      message:
        '"arguments" must be nested at most 128 levels deep (arrays and objects within one another)',
      promptId: "c1#permission",
    });
    expect(listPendingPrompts(stream)[0]?.answered).toBe(false);
    expect(answerPendingPrompt(stream, "c1#permission", edit({ a: nest(127) })).isOk()).toBe(true);
    expect(savedAndLoaded(stream).events).toEqual(stream.events);
  });
});
