import { inspect } from "node:util";
import { ConversationStream, createEvent, type JsonValue } from "@jp/conversation";
import type { Question } from "@jp/tool";
import { describe, expect, it } from "vitest";
import { AnswerWalk } from "../../src/coordinator/answer-walk.js";
import { answeredByDefaultInRecord } from "../../src/coordinator/recorded-defaults.js";
import {
  answerPendingPrompt,
  type BuiltinTool,
  type BuiltinToolInput,
  builtinExecutor,
  builtinExecutorSource,
  type ExecuteInput,
  type QuestionPromptRequest,
  ToolCoordinator,
  type ToolsConfig,
  TurnState,
} from "../../src/index.js";
import { answeredByDefaultNote } from "../../src/routing/messages.js";
import { MockExecutor, MockExecutorSource, MockPromptBackend } from "../../src/testing/index.js";
import { coordinatorFor } from "../helpers.js";
import { call, UNATTENDED } from "../support.js";

const DEFAULTS: ToolsConfig = { "*": { run: "unattended", detached: "defaults" } };
const NOBODY = new MockPromptBackend({}, { reachable: false });

const q = (id: string, extra: Partial<Question> = {}): Question => ({
  id,
  text: `${id}?`,
  answer_type: { type: "boolean" },
  ...extra,
});

/**
 * A form tool over `questions` that notes, on every pass, which of its answers nobody gave, and
 * finishes with its answers and those ids.
 */
function recordingForm(questions: readonly Question[]) {
  const seen: (readonly string[] | undefined)[] = [];
  const sets: (ReadonlySet<string> | undefined)[] = [];
  const tool = new MockExecutor((input: ExecuteInput) => {
    sets.push(input.answeredByDefault);
    seen.push(input.answeredByDefault === undefined ? undefined : [...input.answeredByDefault]);
    const index = questions.findIndex((x) => !Object.hasOwn(input.answers, x.id));
    const next = questions[index];
    if (next !== undefined) {
      return {
        type: "needs_input",
        question: next,
        form: { index: index + 1, total: questions.length },
      };
    }
    const byDefault = [...(input.answeredByDefault ?? [])];
    return { type: "success", content: JSON.stringify({ answers: input.answers, byDefault }) };
  });
  return { tool, seen, sets };
}

describe("the answers nobody gave, as a tool's pass receives them", () => {
  it("names every answer the detached defaults policy gave, over every pass of a form, and no other", async () => {
    const { tool, seen, sets } = recordingForm([
      q("configured"),
      q("go", { default: true }),
      q("region", { answer_type: { type: "select", options: ["eu", "us"] }, default: "eu" }),
    ]);
    const { coordinator } = coordinatorFor({
      tools: { ...DEFAULTS, deploy: { questions: { configured: { answer: false } } } },
      executors: new MockExecutorSource({ deploy: tool }),
      prompts: NOBODY,
    });

    const { responses } = await coordinator.run([call("call_1", "deploy")], {
      turn: new TurnState(),
    });

    // A configured answer is the user's own setting; the defaults are nobody's.
    expect(seen).toEqual([[], [], ["go"], ["go", "region"]]);
    expect(JSON.parse(responses[0]?.content ?? "")).toEqual({
      answers: { configured: false, go: true, region: "eu" },
      byDefault: ["go", "region"],
    });
    // What a pass received is not changed by later answers.
    expect(sets[2]?.has("go")).toBe(true);
    expect(sets[2]?.has("region")).toBe(false);
    expect(sets[2]?.size).toBe(1);
  });

  it("is empty when a person gave every answer", async () => {
    const { tool, seen } = recordingForm([q("go", { default: true }), q("again")]);
    const { coordinator } = coordinatorFor({
      tools: DEFAULTS,
      executors: new MockExecutorSource({ deploy: tool }),
      prompts: new MockPromptBackend({
        questions: [
          { type: "answer", value: true },
          { type: "answer", value: false },
        ],
      }),
    });

    await coordinator.run([call("call_1", "deploy")], { turn: new TurnState() });

    expect(seen).toEqual([[], [], []]);
  });

  it("reaches a built-in tool, run by the coordinator or by its executor alone", async () => {
    const said: string[] = [];
    const tool: BuiltinTool = {
      execute({ answers, answeredByDefault }: BuiltinToolInput) {
        if (answers.go === undefined) {
          return { type: "needs_input", question: q("go", { default: false }) };
        }
        const who = answeredByDefault?.has("go") === true ? "nobody" : "the person";
        said.push(who);
        return { type: "success", content: `go=${String(answers.go)}, answered by ${who}` };
      },
    };
    const { coordinator } = coordinatorFor({
      tools: DEFAULTS,
      executors: builtinExecutorSource({ deploy: tool }),
      prompts: NOBODY,
    });
    const { responses } = await coordinator.run([call("call_1", "deploy")], {
      turn: new TurnState(),
    });
    expect(responses[0]?.content).toBe("go=false, answered by nobody");

    // An executor input made elsewhere passes the ids on to the built-in as they are.
    const result = await builtinExecutor("deploy", tool).execute({
      call: call("call_2", "deploy"),
      answers: { go: true },
      answeredByDefault: new Set(["go"]),
      signal: new AbortController().signal,
    });
    expect(result).toMatchObject({ content: "go=true, answered by nobody" });
  });
});

describe("a suspended turn, saved, loaded and resumed", () => {
  // A form whose first question expires while the turn is suspended: the detached defaults
  // policy answers it with its default when the turn resumes, and the call waits again at the next.
  async function suspendedAfterDefault() {
    const questions = [q("go", { default: true }), q("next")];
    const first = recordingForm(questions);
    const stream = ConversationStream.empty();
    stream.startTurn("Deploy.");
    const suspended = await new ToolCoordinator({
      stream,
      tools: DEFAULTS,
      executors: new MockExecutorSource({ deploy: first.tool }),
    }).run([call("call_1", "deploy")], { turn: new TurnState(), suspend: { deadlineMs: 1000 } });
    const later = new Date(Date.parse(suspended.pending[0]?.suspended_at ?? "") + 5000);
    const second = recordingForm(questions);
    const saved = reloaded(stream);
    const resumed = await new ToolCoordinator({
      stream: saved,
      tools: DEFAULTS,
      executors: new MockExecutorSource({ deploy: second.tool }),
    }).resume({ now: later });
    expect(resumed.pending.map((p) => p.prompt_id)).toEqual(["call_1.next.1"]);
    // The resumed run's own pass already knew.
    expect(second.seen).toEqual([["go"]]);
    return { questions, stream: reloaded(saved) };
  }

  it("gives the tool the answers nobody gave before the suspension, read from the record", async () => {
    const { questions, stream } = await suspendedAfterDefault();
    answerPendingPrompt(stream, "call_1.next.1", { type: "answer", value: false })._unsafeUnwrap();
    const third = recordingForm(questions);

    const done = await new ToolCoordinator({
      stream: reloaded(stream),
      tools: DEFAULTS,
      executors: new MockExecutorSource({ deploy: third.tool }),
    }).resume();

    expect(JSON.parse(done.responses[0]?.content ?? "")).toEqual({
      answers: { go: true, next: false },
      byDefault: ["go"],
    });
  });

  it("a Reply to a later question tells the model which answers nobody gave", async () => {
    const { stream } = await suspendedAfterDefault();
    const human = new MockPromptBackend({ questions: [{ type: "reply", message: "stop here" }] });

    const done = await new ToolCoordinator({
      stream,
      tools: DEFAULTS,
      executors: new MockExecutorSource({ deploy: recordingForm([q("go"), q("next")]).tool }),
      prompts: human,
    }).resume();

    expect((human.questions[0] as QuestionPromptRequest).controls.reply).toBe(true);
    expect(JSON.parse(done.responses[0]?.content ?? "")).toEqual({
      cancelled: true,
      answered: { go: true },
      answered_by_default: ["go"],
      note: 'No one answered "go" (no person was available to answer); the question\'s default was used: true.',
      message: "stop here",
    });
  });
});

describe("the model's text when a form ends early", () => {
  it("a Reply with only a person's answers says nothing about defaults", async () => {
    const { coordinator } = coordinatorFor({
      tools: UNATTENDED,
      executors: new MockExecutorSource({ deploy: recordingForm([q("go"), q("next")]).tool }),
      prompts: new MockPromptBackend({
        questions: [{ type: "answer", value: true }, { type: "reply" }],
      }),
    });
    const { responses } = await coordinator.run([call("call_1", "deploy")], {
      turn: new TurnState(),
    });
    expect(JSON.parse(responses[0]?.content ?? "")).toEqual({
      cancelled: true,
      answered: { go: true },
    });
  });
});

describe("the note on answers nobody gave", () => {
  it("names each with its value, twenty at most", () => {
    expect(
      answeredByDefaultNote([
        ["env", "staging"],
        ["notify", false],
      ]),
    ).toBe(
      'No one answered "env" and "notify" (no person was available to answer); each question\'s default was used: "env" = "staging" and "notify" = false.',
    );
    const many = answeredByDefaultNote(Array.from({ length: 21 }, (_, i) => [`q${i}`, i] as const));
    expect(many).toMatch(/"q19" and 1 more \(/);
    expect(answeredByDefaultNote([["t", "x".repeat(500)]]).length).toBeLessThan(400);
  });
});

describe("AnswerWalk.answeredByDefault", () => {
  const nobody = { prompted: false, secret: false, byDefault: true };
  const person = { prompted: true, secret: false };

  it("drops an answer given again by a person, and keeps what earlier passes saw", () => {
    const walk = new AnswerWalk();
    walk.set("a", true, nobody);
    const before = walk.answeredByDefault();
    walk.set("a", false, person);
    expect([...walk.answeredByDefault()]).toEqual([]);
    expect([...before]).toEqual(["a"]);
    expect(before.has("a")).toBe(true);
  });

  it("goes back with the answers Back drops", () => {
    const walk = new AnswerWalk();
    walk.set("d1", 1, nobody);
    walk.set("h", 2, person);
    walk.set("d2", 3, nobody);
    expect([...walk.answeredByDefault()]).toEqual(["d1", "d2"]);
    walk.back();
    expect([...walk.answeredByDefault()]).toEqual(["d1"]);
    expect(walk.answeredByDefault().size).toBe(1);
  });

  it("keeps a person's answers a person's after Back and after an answer given again", () => {
    const walk = new AnswerWalk();
    walk.set("h1", 1, person);
    walk.set("d", 2, nobody);
    walk.set("h2", 3, person);
    walk.back();
    expect([...walk.answeredByDefault()]).toEqual(["d"]);
    expect(walk.answeredByDefault().has("h1")).toBe(false);
    walk.set("h3", 4, person);
    walk.set("h1", 5, person);
    expect([...walk.answeredByDefault()]).toEqual(["d"]);
    expect(walk.disclosableByDefault()).toEqual([["d", 2]] as [string, JsonValue][]);
  });

  it("says a person's answer is not one nobody gave", () => {
    const walk = new AnswerWalk();
    walk.set("d", 1, nobody);
    walk.set("h", 2, person);
    const byDefault = walk.answeredByDefault();
    expect(byDefault.has("d")).toBe(true);
    expect(byDefault.has("h")).toBe(false);
    expect(byDefault.has("never-asked")).toBe(false);
  });

  it("does not list an answer nobody gave on a later pass", () => {
    const walk = new AnswerWalk();
    walk.set("d1", 1, nobody);
    const earlier = walk.answeredByDefault();
    walk.set("d2", 2, nobody);
    expect([...earlier]).toEqual(["d1"]);
    expect(earlier.has("d2")).toBe(false);
    expect([...walk.answeredByDefault()]).toEqual(["d1", "d2"]);
  });

  it("reads like the set of those ids, however a tool reads it", () => {
    const walk = new AnswerWalk();
    walk.set("d1", 1, nobody);
    walk.set("h", 2, person);
    walk.set("d2", 3, nobody);
    const byDefault = walk.answeredByDefault();
    const expected = new Set(["d1", "d2"]);
    expect(byDefault.size).toBe(2);
    expect([...byDefault.values()]).toEqual(["d1", "d2"]);
    expect([...byDefault.keys()]).toEqual(["d1", "d2"]);
    expect([...byDefault.entries()]).toEqual([...expected.entries()]);
    const seen: unknown[] = [];
    const self = {};
    byDefault.forEach(function (this: unknown, value, key, set) {
      seen.push([value, key, set === byDefault, this === self]);
    }, self);
    expect(seen).toEqual([
      ["d1", "d1", true, true],
      ["d2", "d2", true, true],
    ]);
    expect(Object.prototype.toString.call(byDefault)).toBe("[object Set]");
    expect(inspect(byDefault)).toBe(inspect(expected));
    expect(inspect(walk.answeredByDefault(), { colors: true })).toBe(
      inspect(expected, { colors: true }),
    );
  });

  it("is read back from the record, not from the walk's JSON, for a resumed call", () => {
    const walk = new AnswerWalk();
    walk.set("a", 1, nobody);
    walk.set("b", 2, { prompted: false, secret: false });
    walk.set("c", 3, person);
    const json = JSON.parse(JSON.stringify(walk.toJSON()));
    expect([...AnswerWalk.fromJSON(json).answeredByDefault()]).toEqual([]);
    // An answer given at a prompt is a person's, whatever the record is read to say.
    expect([...AnswerWalk.fromJSON(json, new Set(["a", "c"])).answeredByDefault()]).toEqual(["a"]);
  });

  it("lists the answers nobody gave for a model's text, secrets never", () => {
    const walk = new AnswerWalk();
    walk.set("a", "x", nobody);
    walk.set("s", "hunter2", { prompted: false, secret: true, byDefault: true });
    walk.set("b", "y", person);
    expect(walk.disclosableByDefault()).toEqual([["a", "x"]] as [string, JsonValue][]);
  });
});

describe("reading who answered from the record", () => {
  it("takes each question's latest answer under its own call, and never a sub-agent's question", () => {
    const stream = ConversationStream.empty();
    stream.startTurn("Go.");
    const byDefault = { metadata: { answered_by: "default" } };
    const tool = { source: "tool", name: "deploy" } as const;
    const asked = (
      id: string,
      source: Parameters<typeof createEvent<"inquiry_request">>[1]["source"],
    ) =>
      stream.append(
        createEvent("inquiry_request", {
          id,
          source,
          question: { text: "?", answer_type: { type: "boolean" } },
        }),
      );
    const answered = (id: string, extra = {}) =>
      stream.append(
        createEvent("inquiry_response", { outcome: "answered", id, answer: true, ...extra }),
      );
    // The call's own question, answered by the default; then a sub-agent's with the same id,
    // answered by the person: the tool's answer is still the default.
    asked("call.1.go.1", tool);
    answered("call.1.go.1", byDefault);
    asked("call.1.go.2", { source: "other", name: "researcher" });
    answered("call.1.go.2");
    // Answered by the default, then asked again and answered by the person.
    asked("call_2.x.1", tool);
    answered("call_2.x.1", byDefault);
    asked("call_2.x.2", tool);
    answered("call_2.x.2");
    // A person's answer, then the default's.
    asked("call_3.y.1", { source: "assistant" });
    answered("call_3.y.1");
    asked("call_3.y.2", { source: "assistant" });
    answered("call_3.y.2", byDefault);

    expect(answeredByDefaultInRecord(stream)).toEqual(
      new Map([
        ["call.1", new Set(["go"])],
        ["call_3", new Set(["y"])],
      ]),
    );
  });
});

function reloaded(stream: ConversationStream): ConversationStream {
  return ConversationStream.decode(JSON.parse(JSON.stringify(stream.toJSON())))._unsafeUnwrap();
}
