import type { JsonValue } from "@jp/conversation";
import { layerToolsConfigs, type QuestionPromptRequest, resolveToolConfig } from "@jp/coordinator";
import { MockInquiryBackend, MockPromptBackend } from "@jp/coordinator/testing";
import { describe, expect, it } from "vitest";
import { ASK_USER_DESCRIPTION, ASK_USER_PARAMETERS, builtinToolConfigs } from "../src/index.js";
import { expectWellFormed, inquiryRequests, inquiryResponses, runAskUser } from "./helpers.js";

const NO_TERMINAL =
  "ask_user cannot run because no interactive terminal is available. Do not retry this tool call in this turn; continue without user input or explain what information is missing.";
// Under --non-interactive a terminal may well be there: the model is told the run is non-interactive.
const NON_INTERACTIVE =
  "ask_user cannot run because the run is non-interactive, so no user can answer. Do not retry this tool call in this turn; continue without user input or explain what information is missing.";
const ASSISTANT_DENIED =
  "ask_user requires a human answer and cannot be routed to the assistant. Do not retry this tool call in this turn.";
const staticMisfit = (detail: string) =>
  `ask_user: the configured conversation.tools.ask_user.questions.answer.answer value does not match the question's answer_type. Update the configuration; do not retry. (${detail})`;

const SELECT = {
  question: "Apply with backup, apply without backup, or abort?",
  answer_type: "select",
  options: ["backup", "overwrite", "abort"],
};
const BOOLEAN = { question: "Apply the migration?", answer_type: "boolean" };

const answer = (value: JsonValue) => ({ type: "answer", value }) as const;

describe("ask_user with one question: the success body", () => {
  it.each<[string, Record<string, unknown>, JsonValue, string]>([
    ["boolean", BOOLEAN, true, '{"answer_type":"boolean","answer":true}'],
    ["boolean false", BOOLEAN, false, '{"answer_type":"boolean","answer":false}'],
    ["select", SELECT, "backup", '{"answer_type":"select","answer":"backup"}'],
    [
      "text",
      { question: "Target directory?", answer_type: "text" },
      "/tmp/output",
      '{"answer_type":"text","answer":"/tmp/output"}',
    ],
    [
      "text by default",
      { question: "Target directory?" },
      "/tmp",
      '{"answer_type":"text","answer":"/tmp"}',
    ],
    [
      'the select option "true"',
      { question: "Which flag?", answer_type: "select", options: ["true", "false"] },
      "true",
      '{"answer_type":"select","answer":"true"}',
    ],
    [
      'the text "true"',
      { question: "Type a value", answer_type: "text" },
      "true",
      '{"answer_type":"text","answer":"true"}',
    ],
    [
      "multi_select",
      { question: "Which envs?", answer_type: "multi_select", options: ["staging", "prod"] },
      ["staging", "prod"],
      '{"answer_type":"multi_select","answer":["staging","prod"]}',
    ],
    [
      "schema",
      { question: "Port config?", answer_type: "schema", schema: { type: "object" } },
      { port: 8080 },
      '{"answer_type":"schema","answer":{"port":8080}}',
    ],
  ])("%s", async (_name, args, value, body) => {
    const human = new MockPromptBackend({ questions: [answer(value)] });
    const { response, trail, stream } = await runAskUser(args, { prompts: human });
    expect(response.content).toBe(body);
    expect(response.is_error).toBe(false);
    expect(trail).toEqual([
      ["request", "call_1.answer.1"],
      ["answered", "call_1.answer.1", JSON.stringify(value)],
    ]);
    human.assertScriptUsed();
    expectWellFormed(stream.events);
  });

  it('types true (boolean) and "true" (select, text) distinctly', async () => {
    const bodies = [];
    for (const [args, value] of [
      [BOOLEAN, true],
      [{ question: "Flag?", answer_type: "select", options: ["true"] }, "true"],
      [{ question: "Flag?" }, "true"],
    ] as const) {
      const human = new MockPromptBackend({ questions: [answer(value)] });
      bodies.push(JSON.parse((await runAskUser(args, { prompts: human })).response.content));
    }
    expect(bodies).toEqual([
      { answer_type: "boolean", answer: true },
      { answer_type: "select", answer: "true" },
      { answer_type: "text", answer: "true" },
    ]);
  });
});

describe("ask_user with one question: what the human is shown", () => {
  it("labels it Assistant, shows no progress, offers Reply and End Turn only", async () => {
    const human = new MockPromptBackend({ questions: [answer(true)] });
    await runAskUser(BOOLEAN, { prompts: human });
    // Only the question: run and result are unattended, so no permission or delivery prompt.
    expect(human.requests.map((r) => r.kind)).toEqual(["question"]);
    const [shown] = human.questions as [QuestionPromptRequest];
    expect(shown).toEqual({
      kind: "question",
      tool_name: "ask_user",
      tool_call_id: "call_1",
      inquiry_id: "call_1.answer.1",
      question: {
        id: "answer",
        text: "Apply the migration?",
        answer_type: { type: "boolean" },
        exclusive: true,
        persistence: "none",
      },
      prompt_label: "Assistant",
      // A boolean normally offers remember-for-turn (Y/N); persistence "none" removes it.
      controls: { remember: false, back: false, reply: true, end_turn: true },
    });
    expect(shown).not.toHaveProperty("progress");
    expect(shown).not.toHaveProperty("initial");
  });

  it("shows the context above the question and the default to pre-populate", async () => {
    const human = new MockPromptBackend({ questions: [answer("overwrite")] });
    const context = "The migration rewrites prod config in place.\nA backup takes 2 minutes.";
    await runAskUser({ ...SELECT, context, default: "backup" }, { prompts: human });
    expect(human.questions[0]?.question).toEqual({
      id: "answer",
      text: SELECT.question,
      context,
      answer_type: { type: "select", options: SELECT.options },
      default: "backup",
      exclusive: true,
      persistence: "none",
    });
  });

  it("records the pair as the assistant's question, human-only and never remembered", async () => {
    const human = new MockPromptBackend({ questions: [answer("backup")] });
    const { stream } = await runAskUser(
      { ...SELECT, context: "Prod config.", default: "backup" },
      { prompts: human },
    );
    const [request, ...moreRequests] = inquiryRequests(stream.events);
    expect(moreRequests).toEqual([]);
    expect(request).toMatchObject({
      type: "inquiry_request",
      id: "call_1.answer.1",
      source: { source: "assistant" },
      question: {
        text: SELECT.question,
        context: "Prod config.",
        answer_type: {
          type: "select",
          options: [{ value: "backup" }, { value: "overwrite" }, { value: "abort" }],
        },
        default: "backup",
        exclusive: true,
        persistence: "none",
      },
    });
    expect(inquiryResponses(stream.events)).toMatchObject([
      { type: "inquiry_response", outcome: "answered", id: "call_1.answer.1", answer: "backup" },
    ]);
    expectWellFormed(stream.events);
  });

  it("Reply returns the cancel marker with nothing answered", async () => {
    const human = new MockPromptBackend({ questions: [{ type: "reply" }] });
    const { response, result, trail, stream } = await runAskUser(BOOLEAN, { prompts: human });
    expect(JSON.parse(response.content)).toEqual({ cancelled: true, answered: {} });
    expect(response.is_error).toBe(false);
    expect(result.endTurn).toBe(false);
    expect(trail).toEqual([
      ["request", "call_1.answer.1"],
      ["cancelled", "call_1.answer.1", "reply"],
    ]);
    expectWellFormed(stream.events);
  });

  it("End Turn ends the turn and still closes the tool call", async () => {
    const human = new MockPromptBackend({ questions: [{ type: "end_turn" }] });
    const { response, result, trail, stream } = await runAskUser(SELECT, { prompts: human });
    expect(result.endTurn).toBe(true);
    expect(response).toMatchObject({ type: "tool_call_response", id: "call_1", is_error: false });
    expect(trail).toEqual([
      ["request", "call_1.answer.1"],
      ["cancelled", "call_1.answer.1", "end_turn"],
    ]);
    expectWellFormed(stream.events);
  });

  it("Back is not offered, so a Back reply counts as a plain cancel", async () => {
    const human = new MockPromptBackend({ questions: [{ type: "back" }] });
    const { response, trail } = await runAskUser(BOOLEAN, { prompts: human });
    expect(response).toMatchObject({ content: "Tool input cancelled by user.", is_error: false });
    expect(trail).toEqual([
      ["request", "call_1.answer.1"],
      ["cancelled", "call_1.answer.1", "user"],
    ]);
  });
});

describe("ask_user with one question: a configured static answer", () => {
  it.each<[string, Record<string, unknown>, JsonValue, string]>([
    ["boolean", BOOLEAN, true, '{"answer_type":"boolean","answer":true}'],
    ["select", SELECT, "abort", '{"answer_type":"select","answer":"abort"}'],
    ["text", { question: "Where?" }, "/srv", '{"answer_type":"text","answer":"/srv"}'],
  ])("a %s answer that fits is used without a prompt", async (_name, args, value, body) => {
    const human = new MockPromptBackend();
    const { response, trail, stream } = await runAskUser(args, {
      prompts: human,
      tools: { ask_user: { questions: { answer: { answer: value } } } },
    });
    expect(response).toMatchObject({ content: body, is_error: false });
    expect(human.requests).toEqual([]);
    expect(trail).toEqual([
      ["request", "call_1.answer.1"],
      ["answered", "call_1.answer.1", JSON.stringify(value)],
    ]);
    expectWellFormed(stream.events);
  });

  it("applies even with no human reachable (exclusive does not block a configured answer)", async () => {
    const { response, trail } = await runAskUser(BOOLEAN, {
      nonInteractive: true,
      tools: { ask_user: { questions: { answer: { answer: false } } } },
    });
    expect(response).toMatchObject({
      content: '{"answer_type":"boolean","answer":false}',
      is_error: false,
    });
    expect(trail).toEqual([
      ["request", "call_1.answer.1"],
      ["answered", "call_1.answer.1", "false"],
    ]);
  });

  it.each<[string, Record<string, unknown>, JsonValue, string]>([
    ["a string for a boolean", BOOLEAN, "yes", 'expected true or false, got "yes"'],
    ['the string "true" for a boolean', BOOLEAN, "true", 'expected true or false, got "true"'],
    [
      "a select answer not in options",
      SELECT,
      "skip",
      'expected one of "backup", "overwrite", "abort", got "skip"',
    ],
    ["a boolean for a text", { question: "Where?" }, true, "expected a string, got true"],
  ])(
    "%s is refused naming the configuration, without a prompt",
    async (_name, args, value, detail) => {
      const human = new MockPromptBackend();
      const { response, trail, stream } = await runAskUser(args, {
        prompts: human,
        tools: { ask_user: { questions: { answer: { answer: value } } } },
      });
      expect(response).toMatchObject({ content: staticMisfit(detail), is_error: true });
      expect(response.content).toContain("conversation.tools.ask_user.questions.answer.answer");
      expect(human.requests).toEqual([]);
      expect(trail).toEqual([
        ["request", "call_1.answer.1"],
        ["cancelled", "call_1.answer.1", "invalid_static_answer"],
      ]);
      expectWellFormed(stream.events);
    },
  );
});

describe("ask_user with one question: no human to ask", () => {
  const llm = () => new MockInquiryBackend(() => true);

  it.each<[string, () => Parameters<typeof runAskUser>[1]]>([
    [
      "--non-interactive with a prompt backend",
      () => ({ prompts: new MockPromptBackend(), nonInteractive: true }),
    ],
    ["no prompt backend", () => ({})],
    [
      "a prompt backend with no human reachable",
      () => ({ prompts: new MockPromptBackend({}, { reachable: false }) }),
    ],
    [
      '--non-interactive with "*" detached = "auto" and an LLM available',
      () => ({
        prompts: new MockPromptBackend(),
        inquiries: llm(),
        nonInteractive: true,
        tools: { "*": { detached: "auto" } },
      }),
    ],
    [
      'no prompt backend with ask_user detached = "auto" and an LLM available',
      () => ({ inquiries: llm(), tools: { ask_user: { detached: "auto" } } }),
    ],
    [
      'detached = { tool = "auto" }',
      () => ({ inquiries: llm(), tools: { "*": { detached: { tool: "auto" } } } }),
    ],
  ])("%s: fails fast with RFD 083's refusal", async (_name, options) => {
    const opts = options() ?? {};
    const { response, trail, stream } = await runAskUser(BOOLEAN, opts);
    const content = opts.nonInteractive === true ? NON_INTERACTIVE : NO_TERMINAL;
    expect(response).toMatchObject({ id: "call_1", content, is_error: true });
    expect(trail).toEqual([
      ["request", "call_1.answer.1"],
      ["cancelled", "call_1.answer.1", "no_prompt_backend"],
    ]);
    const prompts = opts.prompts as MockPromptBackend | undefined;
    expect(prompts?.requests ?? []).toEqual([]);
    expect((opts.inquiries as MockInquiryBackend | undefined)?.requests ?? []).toEqual([]);
    expectWellFormed(stream.events);
  });
});

describe("ask_user with one question: target = assistant", () => {
  it.each<[string, Record<string, unknown>]>([
    ['target "assistant"', { target: "assistant" }],
    ["an assistant override map", { target: { model: "small" } }],
  ])("%s is refused as assistant_routing_denied", async (_name, config) => {
    const human = new MockPromptBackend();
    const llm = new MockInquiryBackend(() => true);
    const { response, trail, stream } = await runAskUser(SELECT, {
      prompts: human,
      inquiries: llm,
      tools: { ask_user: { questions: { answer: config } } },
    });
    expect(response).toMatchObject({ content: ASSISTANT_DENIED, is_error: true });
    expect(trail).toEqual([
      ["request", "call_1.answer.1"],
      ["cancelled", "call_1.answer.1", "assistant_routing_denied"],
    ]);
    expect(human.requests).toEqual([]);
    expect(llm.requests).toEqual([]);
    expectWellFormed(stream.events);
  });
});

describe("ask_user with one question: the user's configuration", () => {
  const user = { ask_user: { questions: { answer: { prompt_label: "AI" } } } };

  it("relabels the prompt while keeping the other built-in defaults", async () => {
    const human = new MockPromptBackend({ questions: [answer(true)] });
    const { response } = await runAskUser(BOOLEAN, { prompts: human, tools: user });
    expect(response.content).toBe('{"answer_type":"boolean","answer":true}');
    expect(human.requests.map((r) => r.kind)).toEqual(["question"]);
    expect(human.questions[0]?.prompt_label).toBe("AI");

    const resolved = resolveToolConfig(layerToolsConfigs(builtinToolConfigs(), user), "ask_user");
    expect(resolved).toMatchObject({
      source: "builtin",
      enable: { state: true, allow_toggle: "if_named" },
      description: ASK_USER_DESCRIPTION,
      parameters: ASK_USER_PARAMETERS,
      run: "unattended",
      result: "unattended",
      style: { hidden: true },
    });
    expect(resolved.questions.answer).toEqual({ prompt_label: "AI" });
  });

  it("does not change the recorded source when relabelled", async () => {
    const human = new MockPromptBackend({ questions: [answer(true)] });
    const { stream } = await runAskUser(BOOLEAN, { prompts: human, tools: user });
    expect(inquiryRequests(stream.events).map((r) => r.source)).toEqual([{ source: "assistant" }]);
  });

  it("a disabled ask_user is not available to the model", async () => {
    const human = new MockPromptBackend();
    const { response, trail } = await runAskUser(BOOLEAN, {
      prompts: human,
      tools: { ask_user: { enable: { state: false } } },
    });
    expect(response.is_error).toBe(true);
    expect(response.content).toContain("Tool 'ask_user' is not available.");
    expect(trail).toEqual([]);
    expect(human.requests).toEqual([]);
  });
});
