import type { JsonValue, StreamEvent } from "@jp/conversation";
import type { QuestionPromptRequest, QuestionReply } from "@jp/coordinator";
import { MockPromptBackend } from "@jp/coordinator/testing";
import { afterEach, describe, expect, it } from "vitest";
import { expectWellFormed, runAskUser } from "./helpers.js";

// Every stream any test below produced; each must be well formed (closed pairs, assistant source,
// one tool_call_response per call), whatever the test itself checks.
// Every scripted reply must have been used, too.
const streams: (readonly StreamEvent[])[] = [];
const humans: MockPromptBackend[] = [];
afterEach(() => {
  for (const events of streams.splice(0)) expectWellFormed(events);
  for (const human of humans.splice(0)) human.assertScriptUsed();
});

async function walk(args: Record<string, unknown>, replies: QuestionReply[]) {
  const human = new MockPromptBackend({ questions: replies });
  const run = await runAskUser(args, { prompts: human });
  streams.push(run.stream.events);
  humans.push(human);
  return { ...run, human, shown: human.questions };
}

const answer = (value: JsonValue): QuestionReply => ({ type: "answer", value });
const controls = (back: boolean) => ({ remember: false, back, reply: true, end_turn: true });
/** What a user notices of each prompt: which question, where in the form, what is offered. */
const seen = (shown: readonly QuestionPromptRequest[]) =>
  shown.map((r) => ({
    inquiry_id: r.inquiry_id,
    label: r.prompt_label,
    progress: r.progress,
    controls: r.controls,
    initial: r.initial,
  }));

const LINEAR = {
  questions: [
    { id: "target", text: "Target directory?", answer_type: "text" },
    { id: "mode", text: "Apply how?", answer_type: "select", options: ["backup", "overwrite"] },
    { id: "confirm", text: "Proceed?", answer_type: "boolean" },
  ],
};

const BRANCHING = {
  questions: [
    { id: "apply", text: "Apply the proposed migration?", answer_type: "boolean" },
    {
      id: "env",
      text: "Which environment?",
      answer_type: "select",
      options: ["staging", "prod"],
      when: { question_id: "apply", equals: true },
    },
    {
      id: "note",
      text: "Optional note for the migration log",
      answer_type: "text",
      when: { question_id: "apply", equals: true },
    },
  ],
};

describe("a linear form", () => {
  it("asks each question in order with [N/M] progress and returns the answers by id", async () => {
    const { response, shown, trail, human } = await walk(LINEAR, [
      answer("/srv/app"),
      answer("backup"),
      answer(true),
    ]);
    expect(response).toMatchObject({
      content: '{"target":"/srv/app","mode":"backup","confirm":true}',
      is_error: false,
    });
    expect(human.requests.map((r) => r.kind)).toEqual(["question", "question", "question"]);
    expect(seen(shown)).toEqual([
      {
        inquiry_id: "call_1.target.1",
        label: "Assistant",
        progress: { index: 1, total: 3 },
        controls: controls(false),
        initial: undefined,
      },
      {
        inquiry_id: "call_1.mode.1",
        label: "Assistant",
        progress: { index: 2, total: 3 },
        controls: controls(true),
        initial: undefined,
      },
      {
        inquiry_id: "call_1.confirm.1",
        label: "Assistant",
        progress: { index: 3, total: 3 },
        controls: controls(true),
        initial: undefined,
      },
    ]);
    for (const request of shown) {
      expect(request.question).toMatchObject({ exclusive: true, persistence: "none" });
    }
    expect(trail).toEqual([
      ["request", "call_1.target.1"],
      ["answered", "call_1.target.1", '"/srv/app"'],
      ["request", "call_1.mode.1"],
      ["answered", "call_1.mode.1", '"backup"'],
      ["request", "call_1.confirm.1"],
      ["answered", "call_1.confirm.1", "true"],
    ]);
  });
});

describe("a branching form", () => {
  it("skips the questions a false gate closes and answers them null", async () => {
    const { response, shown, trail } = await walk(BRANCHING, [answer(false)]);
    expect(JSON.parse(response.content)).toEqual({ apply: false, env: null, note: null });
    expect(shown.map((r) => r.question.id)).toEqual(["apply"]);
    expect(trail).toEqual([
      ["request", "call_1.apply.1"],
      ["answered", "call_1.apply.1", "false"],
    ]);
  });

  it("asks the gated questions when the gate holds", async () => {
    const { response, shown } = await walk(BRANCHING, [
      answer(true),
      answer("prod"),
      answer("ticket 42"),
    ]);
    expect(JSON.parse(response.content)).toEqual({ apply: true, env: "prod", note: "ticket 42" });
    expect(shown.map((r) => [r.question.id, r.progress])).toEqual([
      ["apply", { index: 1, total: 3 }],
      ["env", { index: 2, total: 3 }],
      ["note", { index: 3, total: 3 }],
    ]);
  });

  it("re-gates later questions when Back changes an earlier answer", async () => {
    const { response, shown, trail } = await walk(BRANCHING, [
      answer(true),
      answer("prod"),
      { type: "back" }, // at note: back to env
      { type: "back" }, // at env: back to apply
      answer(false),
    ]);
    expect(response).toMatchObject({ is_error: false });
    expect(JSON.parse(response.content)).toEqual({ apply: false, env: null, note: null });
    expect(seen(shown)).toEqual([
      {
        inquiry_id: "call_1.apply.1",
        label: "Assistant",
        progress: { index: 1, total: 3 },
        controls: controls(false),
        initial: undefined,
      },
      {
        inquiry_id: "call_1.env.1",
        label: "Assistant",
        progress: { index: 2, total: 3 },
        controls: controls(true),
        initial: undefined,
      },
      {
        inquiry_id: "call_1.note.1",
        label: "Assistant",
        progress: { index: 3, total: 3 },
        controls: controls(true),
        initial: undefined,
      },
      // Back pre-fills the earlier answer, and the re-ask is a new attempt.
      {
        inquiry_id: "call_1.env.2",
        label: "Assistant",
        progress: { index: 2, total: 3 },
        controls: controls(true),
        initial: "prod",
      },
      {
        inquiry_id: "call_1.apply.2",
        label: "Assistant",
        progress: { index: 1, total: 3 },
        controls: controls(false),
        initial: true,
      },
    ]);
    expect(trail).toEqual([
      ["request", "call_1.apply.1"],
      ["answered", "call_1.apply.1", "true"],
      ["request", "call_1.env.1"],
      ["answered", "call_1.env.1", '"prod"'],
      ["request", "call_1.note.1"],
      ["cancelled", "call_1.note.1", "back"],
      ["request", "call_1.env.2"],
      ["cancelled", "call_1.env.2", "back"],
      ["request", "call_1.apply.2"],
      ["answered", "call_1.apply.2", "false"],
    ]);
  });

  it("keeps the earlier answers when Back is followed by the same answer", async () => {
    const { response, trail } = await walk(BRANCHING, [
      answer(true),
      { type: "back" }, // at env: back to apply
      answer(true),
      answer("staging"),
      answer("done"),
    ]);
    expect(JSON.parse(response.content)).toEqual({ apply: true, env: "staging", note: "done" });
    expect(trail.filter(([kind]) => kind === "request").map(([, id]) => id)).toEqual([
      "call_1.apply.1",
      "call_1.env.1",
      "call_1.apply.2",
      "call_1.env.2",
      "call_1.note.1",
    ]);
  });
});

describe("the cancel controls of a form", () => {
  it("does not offer Back on the first question; a Back reply there is a plain cancel", async () => {
    const { response, shown, trail } = await walk(LINEAR, [{ type: "back" }]);
    expect(shown[0]?.controls.back).toBe(false);
    expect(response).toMatchObject({ content: "Tool input cancelled by user.", is_error: false });
    expect(trail).toEqual([
      ["request", "call_1.target.1"],
      ["cancelled", "call_1.target.1", "user"],
    ]);
  });

  it("Reply returns the cancel marker with the answers given so far", async () => {
    const { response, result, trail } = await walk(LINEAR, [
      answer("/srv/app"),
      answer("overwrite"),
      { type: "reply" },
    ]);
    expect(response.is_error).toBe(false);
    expect(JSON.parse(response.content)).toEqual({
      cancelled: true,
      answered: { target: "/srv/app", mode: "overwrite" },
    });
    expect(result.endTurn).toBe(false);
    expect(trail.at(-2)).toEqual(["request", "call_1.confirm.1"]);
    expect(trail.at(-1)).toEqual(["cancelled", "call_1.confirm.1", "reply"]);
  });

  it("Reply after Back leaves out the answers Back discarded", async () => {
    const { response } = await walk(BRANCHING, [
      answer(true),
      answer("prod"),
      { type: "back" }, // at note: back to env
      { type: "reply" },
    ]);
    expect(JSON.parse(response.content)).toEqual({ cancelled: true, answered: { apply: true } });
  });

  it("End Turn ends the turn, still answers the tool call, and records end_turn", async () => {
    const { response, result, trail, stream } = await walk(BRANCHING, [
      answer(true),
      { type: "end_turn" },
    ]);
    expect(result.endTurn).toBe(true);
    expect(result.responses).toHaveLength(1);
    expect(response).toMatchObject({ type: "tool_call_response", id: "call_1", is_error: false });
    expect(stream.events.filter((e) => e.type === "tool_call_response")).toHaveLength(1);
    expect(trail).toEqual([
      ["request", "call_1.apply.1"],
      ["answered", "call_1.apply.1", "true"],
      ["request", "call_1.env.1"],
      ["cancelled", "call_1.env.1", "end_turn"],
    ]);
  });
});

describe("answer types in a form", () => {
  it("returns a multi_select answer as an array", async () => {
    const { response, shown } = await walk(
      {
        questions: [
          {
            id: "envs",
            text: "Which environments?",
            answer_type: "multi_select",
            options: ["dev", "staging", "prod"],
          },
          { id: "confirm", text: "Proceed?", answer_type: "boolean" },
        ],
      },
      [answer(["dev", "prod"]), answer(true)],
    );
    expect(JSON.parse(response.content)).toEqual({ envs: ["dev", "prod"], confirm: true });
    expect(shown[0]?.question.answer_type).toEqual({
      type: "multi_select",
      options: ["dev", "staging", "prod"],
    });
  });

  it("re-asks a schema answer that does not validate, as a new attempt with the error", async () => {
    const schema = {
      type: "object",
      properties: { port: { type: "integer" } },
      required: ["port"],
    };
    const { response, shown, trail } = await walk(
      {
        questions: [
          { id: "cfg", text: "Server config?", answer_type: "schema", schema },
          { id: "ok", text: "Deploy it?", answer_type: "boolean" },
        ],
      },
      [answer({ port: "eighty" }), answer({ port: 8080 }), answer(true)],
    );
    expect(JSON.parse(response.content)).toEqual({ cfg: { port: 8080 }, ok: true });
    expect(shown.map((r) => [r.inquiry_id, r.progress])).toEqual([
      ["call_1.cfg.1", { index: 1, total: 2 }],
      ["call_1.cfg.2", { index: 1, total: 2 }],
      ["call_1.ok.1", { index: 2, total: 2 }],
    ]);
    expect(shown[0]?.error).toBeUndefined();
    expect(shown[1]?.error).toEqual(expect.stringContaining("does not match the JSON Schema"));
    expect(shown[1]?.error).toContain("port");
    expect(trail).toEqual([
      ["request", "call_1.cfg.1"],
      ["cancelled", "call_1.cfg.1", "invalid_answer"],
      ["request", "call_1.cfg.2"],
      ["answered", "call_1.cfg.2", '{"port":8080}'],
      ["request", "call_1.ok.1"],
      ["answered", "call_1.ok.1", "true"],
    ]);
  });
});

describe("a one-question form", () => {
  it("renders exactly like the single-question call but returns {id: answer}", async () => {
    const lone = await walk(
      { questions: [{ id: "apply", text: "Apply the migration?", answer_type: "boolean" }] },
      [answer(true)],
    );
    const single = await walk({ question: "Apply the migration?", answer_type: "boolean" }, [
      answer(true),
    ]);
    expect(lone.response.content).toBe('{"apply":true}');
    expect(single.response.content).toBe('{"answer_type":"boolean","answer":true}');
    const [formPrompt] = lone.shown as [QuestionPromptRequest];
    const [singlePrompt] = single.shown as [QuestionPromptRequest];
    expect(formPrompt).not.toHaveProperty("progress");
    const { inquiry_id: _a, question: formQuestion, ...formRest } = formPrompt;
    const { inquiry_id: _b, question: singleQuestion, ...singleRest } = singlePrompt;
    expect(formRest).toEqual(singleRest);
    expect({ ...formQuestion, id: "answer" }).toEqual(singleQuestion);
    expect(formPrompt.inquiry_id).toBe("call_1.apply.1");
  });
});

describe("question ids", () => {
  // The id rule admits these; a form must ask them like any other question.
  it.each(["constructor", "toString", "__proto__"])(
    "a question with id %j is asked and returned under its id",
    async (id) => {
      const { response, shown } = await walk(
        { questions: [{ id, text: "Name?", answer_type: "text" }] },
        [answer("jp")],
      );
      expect(response).toMatchObject({ content: `{"${id}":"jp"}`, is_error: false });
      expect(shown.map((r) => r.question.id)).toEqual([id]);
    },
  );
});

describe("a gate on a schema answer", () => {
  const args = {
    questions: [
      { id: "cfg", text: "Settings?", answer_type: "schema", schema: { type: "object" } },
      {
        id: "wipe",
        text: "Wipe the staging database too?",
        answer_type: "boolean",
        when: { question_id: "cfg", equals: { staging: {} } },
      },
    ],
  };

  it("opens on an equal object", async () => {
    const { response } = await walk(args, [answer({ staging: {} }), answer(false)]);
    expect(JSON.parse(response.content)).toEqual({ cfg: { staging: {} }, wipe: false });
  });

  it('stays shut for an answer with a "__proto__" key, which is not the key it names', async () => {
    // What a person's JSON editor gives for `{"__proto__": {}}`: an own key, as JSON.parse makes.
    const { response, shown } = await walk(args, [answer(JSON.parse('{"__proto__": {}}'))]);
    expect(shown.map((r) => r.inquiry_id)).toEqual(["call_1.cfg.1"]);
    expect(response.content).toBe('{"cfg":{"__proto__":{}},"wipe":null}');
  });
});
