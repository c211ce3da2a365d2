import { ConversationStream, type InquiryRequest, type JsonValue } from "@jp/conversation";
import type { Question } from "@jp/tool";
import { err } from "neverthrow";
import { describe, expect, it } from "vitest";
import {
  ANSWERED_BY_METADATA_KEY,
  type BuiltinTool,
  builtinExecutorSource,
  type InquiryError,
  type QuestionReply,
  type ToolsConfig,
  TurnState,
} from "../../src/index.js";
import {
  MockExecutor,
  MockExecutorSource,
  MockInquiryBackend,
  MockPromptBackend,
} from "../../src/testing/index.js";
import { coordinatorFor, inquiryTrail } from "../helpers.js";
import {
  asking,
  booleanQuestion,
  call,
  deferred,
  inquiryEvents,
  recordEmitted,
  secretQuestion,
  selectQuestion,
  textQuestion,
  UNATTENDED,
  unpaired,
} from "../support.js";

const TOOL = { source: "tool", name: "deploy" } as const;

const noHuman = (tool: string) =>
  `${tool} cannot run because no interactive terminal is available. Do not retry this tool call in this turn; continue without user input or explain what information is missing.`;
const assistantDenied = (tool: string) =>
  `${tool} requires a human answer and cannot be routed to the assistant. Do not retry this tool call in this turn.`;
const inquiryFailed = (tool: string, text: string, error: string) =>
  `The tool '${tool}' asked a follow-up question ("${text}") that was routed to a secondary assistant for resolution, but the secondary assistant failed to provide a valid answer. Error: ${error}. You may retry the tool call or end the turn.`;

const answer = (value: JsonValue, remember?: boolean): QuestionReply =>
  remember === undefined ? { type: "answer", value } : { type: "answer", value, remember };

describe("RFD 082 Phase 3 tests, through the ToolCoordinator", () => {
  it("Attempt counter: the same question twice in one call is recorded as .1 and .2, each paired", async () => {
    const tool = new MockExecutor([
      { type: "needs_input", question: booleanQuestion() },
      { type: "needs_input", question: booleanQuestion() },
      (input) => ({ type: "success", content: `final: ${String(input.answers.confirm)}` }),
    ]);
    const human = new MockPromptBackend({ questions: [answer(true), answer(false)] });
    const { stream, coordinator } = coordinatorFor({
      tools: UNATTENDED,
      executors: new MockExecutorSource({ deploy: tool }),
      prompts: human,
    });

    const { responses } = await coordinator.run([call("call_1", "deploy")], {
      turn: new TurnState(),
    });

    expect(inquiryTrail(stream.events)).toEqual([
      { request: "call_1.confirm.1", source: TOOL },
      { response: "call_1.confirm.1", answered: true },
      { request: "call_1.confirm.2", source: TOOL },
      { response: "call_1.confirm.2", answered: false },
    ]);
    expect(human.questions.map((q) => q.inquiry_id)).toEqual([
      "call_1.confirm.1",
      "call_1.confirm.2",
    ]);
    expect(tool.executions.map((e) => e.answers)).toEqual([
      {},
      { confirm: true },
      { confirm: false },
    ]);
    expect(responses.map((r) => [r.id, r.content, r.is_error])).toEqual([
      ["call_1", "final: false", false],
    ]);
  });

  it("Cross-cycle uniqueness within a turn: a reused tool_call_id continues the counter (.1 then .2)", async () => {
    const human = new MockPromptBackend({ questions: [answer(true), answer(false)] });
    const { stream, coordinator } = coordinatorFor({
      tools: UNATTENDED,
      executors: new MockExecutorSource({ deploy: asking([booleanQuestion()]) }),
      prompts: human,
    });
    const turn = new TurnState();

    const first = await coordinator.run([call("call_1", "deploy")], { turn });
    const second = await coordinator.run([call("call_1", "deploy")], { turn });

    expect(inquiryTrail(stream.events)).toEqual([
      { request: "call_1.confirm.1", source: TOOL },
      { response: "call_1.confirm.1", answered: true },
      { request: "call_1.confirm.2", source: TOOL },
      { response: "call_1.confirm.2", answered: false },
    ]);
    expect(first.responses[0]?.content).toBe('answers: {"confirm":true}');
    expect(second.responses[0]?.content).toBe('answers: {"confirm":false}');
    expect(unpaired(stream.events, "inquiry")).toEqual({ requests: [], responses: [] });
  });

  it("Per-turn reset: a new TurnState starts the counter at .1 again", async () => {
    const human = new MockPromptBackend({ questions: [answer(true), answer(false)] });
    const { stream, coordinator } = coordinatorFor({
      tools: UNATTENDED,
      executors: new MockExecutorSource({ deploy: asking([booleanQuestion()]) }),
      prompts: human,
    });

    await coordinator.run([call("call_1", "deploy")], { turn: new TurnState() });
    stream.startTurn("And once more, please.");
    await coordinator.run([call("call_1", "deploy")], { turn: new TurnState() });

    const [turn1, turn2] = stream.turns();
    expect(inquiryTrail(turn1?.events ?? [])).toEqual([
      { request: "call_1.confirm.1", source: TOOL },
      { response: "call_1.confirm.1", answered: true },
    ]);
    expect(inquiryTrail(turn2?.events ?? [])).toEqual([
      { request: "call_1.confirm.1", source: TOOL },
      { response: "call_1.confirm.1", answered: false },
    ]);
  });

  it("Secret prompter answer: recorded Redacted, the tool got the value in memory", async () => {
    const secret = "pa55-prompted-7f3c";
    let received: JsonValue | undefined;
    const tool = asking([secretQuestion()], (answers) => {
      received = answers.token;
      return "logged in";
    });
    const human = new MockPromptBackend({ questions: [answer(secret)] });
    const { stream, coordinator } = coordinatorFor({
      tools: UNATTENDED,
      executors: new MockExecutorSource({ deploy: tool }),
      prompts: human,
    });

    const { responses } = await coordinator.run([call("call_1", "deploy")], {
      turn: new TurnState(),
    });

    expect(received).toBe(secret);
    expect(responses.map((r) => [r.content, r.is_error])).toEqual([["logged in", false]]);
    const [request, response] = inquiryEvents(stream);
    expect(request).toMatchObject({
      type: "inquiry_request",
      id: "call_1.token.1",
      question: { text: "API token?", answer_type: { type: "secret" } },
    });
    expect(response).toEqual({
      timestamp: expect.any(String),
      type: "inquiry_response",
      outcome: "redacted",
      id: "call_1.token.1",
    });
    expect(JSON.stringify(stream.toJSON())).not.toContain(secret);
  });

  it("Secret static answer: recorded Redacted (not Answered), delivered to the tool in memory", async () => {
    const secret = "pa55-static-91ab";
    let received: JsonValue | undefined;
    const tool = asking([secretQuestion()], (answers) => {
      received = answers.token;
      return "logged in";
    });
    // No prompt backend at all: the configured answer needs no human.
    const { stream, coordinator } = coordinatorFor({
      tools: { ...UNATTENDED, deploy: { questions: { token: { answer: secret } } } },
      executors: new MockExecutorSource({ deploy: tool }),
    });

    const { responses } = await coordinator.run([call("call_1", "deploy")], {
      turn: new TurnState(),
    });

    expect(received).toBe(secret);
    expect(responses[0]?.content).toBe("logged in");
    expect(inquiryTrail(stream.events)).toEqual([
      { request: "call_1.token.1", source: TOOL },
      { response: "call_1.token.1", redacted: true },
    ]);
    expect(JSON.stringify(stream.toJSON())).not.toContain(secret);
  });

  describe("Cache bypass", () => {
    it("write side: a secret answered with remember is never stored, and is asked again", async () => {
      const human = new MockPromptBackend({
        questions: [answer("first-s3cret", true), answer("second-s3cret", true)],
      });
      const tool = asking([secretQuestion()], () => "ok");
      const { coordinator } = coordinatorFor({
        tools: UNATTENDED,
        executors: new MockExecutorSource({ deploy: tool }),
        prompts: human,
      });
      const turn = new TurnState();

      await coordinator.run([call("call_1", "deploy")], { turn });
      await coordinator.run([call("call_2", "deploy")], { turn });

      expect(human.questions.map((q) => q.controls.remember)).toEqual([false, false]);
      expect([...turn.remembered_tool_answers]).toEqual([]);
      expect(human.questions).toHaveLength(2);
      expect(tool.executions.map((e) => e.answers)).toEqual([
        {},
        { token: "first-s3cret" },
        {},
        { token: "second-s3cret" },
      ]);
    });

    it("read side: a pre-existing cache entry for a now-secret question is ignored", async () => {
      const human = new MockPromptBackend({ questions: [answer("fresh-s3cret")] });
      const tool = asking([secretQuestion()], () => "ok");
      const { stream, coordinator } = coordinatorFor({
        tools: UNATTENDED,
        executors: new MockExecutorSource({ deploy: tool }),
        prompts: human,
      });
      const turn = new TurnState();
      turn.rememberAnswer("deploy", "token", "stale-value");

      await coordinator.run([call("call_1", "deploy")], { turn });

      expect(human.questions).toHaveLength(1);
      expect(tool.executions[1]?.answers).toEqual({ token: "fresh-s3cret" });
      expect(inquiryTrail(stream.events)).toEqual([
        { request: "call_1.token.1", source: TOOL },
        { response: "call_1.token.1", redacted: true },
      ]);
    });
  });

  describe("Non-secret regression", () => {
    it.each<[string, Question, JsonValue]>([
      ["boolean", booleanQuestion(), true],
      ["select", selectQuestion(), "green"],
      ["text", textQuestion(), "Ada"],
    ])("a %s answer is recorded Answered with its value", async (_kind, question, value) => {
      const human = new MockPromptBackend({ questions: [answer(value)] });
      const tool = asking([question]);
      const { stream, coordinator } = coordinatorFor({
        tools: UNATTENDED,
        executors: new MockExecutorSource({ deploy: tool }),
        prompts: human,
      });
      const turn = new TurnState();

      const { responses } = await coordinator.run([call("call_1", "deploy")], { turn });

      expect(inquiryTrail(stream.events)).toEqual([
        { request: `call_1.${question.id}.1`, source: TOOL },
        { response: `call_1.${question.id}.1`, answered: value },
      ]);
      expect(responses[0]?.content).toBe(`answers: ${JSON.stringify({ [question.id]: value })}`);
      // Not chosen to be remembered: nothing cached.
      expect([...turn.remembered_tool_answers]).toEqual([]);
    });

    it("a boolean answered with remember is cached and answers the next call of the tool (recorded Answered)", async () => {
      const human = new MockPromptBackend({ questions: [answer(true, true)] });
      const tool = asking([booleanQuestion()]);
      const { stream, coordinator } = coordinatorFor({
        tools: UNATTENDED,
        executors: new MockExecutorSource({ deploy: tool }),
        prompts: human,
      });
      const turn = new TurnState();

      await coordinator.run([call("call_1", "deploy")], { turn });
      const second = await coordinator.run([call("call_2", "deploy")], { turn });

      expect(human.questions).toHaveLength(1);
      expect(human.questions[0]?.controls.remember).toBe(true);
      expect([...turn.remembered_tool_answers]).toEqual([["deploy.confirm", true]]);
      expect(second.responses[0]?.content).toBe('answers: {"confirm":true}');
      expect(inquiryTrail(stream.events)).toEqual([
        { request: "call_1.confirm.1", source: TOOL },
        { response: "call_1.confirm.1", answered: true },
        { request: "call_2.confirm.1", source: TOOL },
        { response: "call_2.confirm.1", answered: true },
      ]);
    });
  });

  it("Inquiry ID round-trip: the prompt's inquiry_id is the recorded request's and response's id", async () => {
    const human = new MockPromptBackend({ questions: [answer("maybe"), answer(true)] });
    const { stream, coordinator } = coordinatorFor({
      tools: UNATTENDED,
      executors: new MockExecutorSource({ deploy: asking([booleanQuestion()]) }),
      prompts: human,
    });

    await coordinator.run([call("call_7", "deploy")], { turn: new TurnState() });

    const ids = inquiryEvents(stream).map((e) => [e.type, e.id]);
    // The reply that did not fit closed its own pair; the question was asked again as attempt 2.
    expect(ids).toEqual([
      ["inquiry_request", "call_7.confirm.1"],
      ["inquiry_response", "call_7.confirm.1"],
      ["inquiry_request", "call_7.confirm.2"],
      ["inquiry_response", "call_7.confirm.2"],
    ]);
    expect(human.questions.map((q) => q.inquiry_id)).toEqual([
      "call_7.confirm.1",
      "call_7.confirm.2",
    ]);
    expect(inquiryTrail(stream.events).filter((e) => "response" in e)).toEqual([
      { response: "call_7.confirm.1", cancelled: "invalid_answer" },
      { response: "call_7.confirm.2", answered: true },
    ]);
  });

  describe("Cancellation reason mapping", () => {
    const question = booleanQuestion();
    const tools: ToolsConfig = {
      ...UNATTENDED,
      deploy: { questions: { confirm: { target: "assistant" } } },
    };

    it("inquiry error cancelled, the person having stopped the run → cancelled{user}", async () => {
      const controller = new AbortController();
      const llm = new MockInquiryBackend(() => {
        controller.abort();
        return err({ kind: "cancelled", message: "the cancelled failure" });
      });
      const { stream, coordinator } = coordinatorFor({
        tools,
        executors: new MockExecutorSource({ deploy: asking([question]) }),
        inquiries: llm,
      });

      const { responses } = await coordinator.run([call("call_1", "deploy")], {
        turn: new TurnState(),
        signal: controller.signal,
      });

      expect(inquiryTrail(stream.events)).toEqual([
        { request: "call_1.confirm.1", source: TOOL },
        { response: "call_1.confirm.1", cancelled: "user" },
      ]);
      expect(responses.map((r) => [r.content, r.is_error])).toEqual([
        [inquiryFailed("deploy", "Go ahead?", "the cancelled failure"), true],
      ]);
    });

    it("inquiry error cancelled while the run goes on → cancelled{backend_error}, never the person's", async () => {
      const llm = new MockInquiryBackend(() =>
        err({ kind: "cancelled", message: "the cancelled failure" }),
      );
      const { stream, coordinator } = coordinatorFor({
        tools,
        executors: new MockExecutorSource({ deploy: asking([question]) }),
        inquiries: llm,
      });

      const { responses } = await coordinator.run([call("call_1", "deploy")], {
        turn: new TurnState(),
      });

      expect(inquiryTrail(stream.events)).toEqual([
        { request: "call_1.confirm.1", source: TOOL },
        { response: "call_1.confirm.1", cancelled: "backend_error" },
      ]);
      expect(responses.map((r) => [r.content, r.is_error])).toEqual([
        [
          inquiryFailed(
            "deploy",
            "Go ahead?",
            "the inquiry backend stopped without an answer while the run was still going (the cancelled failure); the user did not cancel or decline anything",
          ),
          true,
        ],
      ]);
    });

    it.each<[InquiryError["kind"], string]>([
      ["provider", "backend_error"],
      ["missing_structured_data", "backend_error"],
      ["answer_extraction", "backend_error"],
      ["other", "backend_error"],
    ])("inquiry error %s → cancelled{%s}", async (kind, reason) => {
      const llm = new MockInquiryBackend(() => err({ kind, message: `the ${kind} failure` }));
      const tool = asking([question]);
      const { stream, coordinator } = coordinatorFor({
        tools,
        executors: new MockExecutorSource({ deploy: tool }),
        inquiries: llm,
      });

      const { responses } = await coordinator.run([call("call_1", "deploy")], {
        turn: new TurnState(),
      });

      expect(inquiryTrail(stream.events)).toEqual([
        { request: "call_1.confirm.1", source: TOOL },
        { response: "call_1.confirm.1", cancelled: reason },
      ]);
      expect(responses.map((r) => [r.content, r.is_error])).toEqual([
        [inquiryFailed("deploy", "Go ahead?", `the ${kind} failure`), true],
      ]);
      expect(tool.executions).toHaveLength(1);
    });

    it("an inquiry backend that throws → cancelled{backend_error}", async () => {
      const llm = new MockInquiryBackend(() => {
        throw new Error("socket hang up");
      });
      const { stream, coordinator } = coordinatorFor({
        tools,
        executors: new MockExecutorSource({ deploy: asking([question]) }),
        inquiries: llm,
      });

      const { responses } = await coordinator.run([call("call_1", "deploy")], {
        turn: new TurnState(),
      });

      expect(inquiryTrail(stream.events)).toEqual([
        { request: "call_1.confirm.1", source: TOOL },
        { response: "call_1.confirm.1", cancelled: "backend_error" },
      ]);
      expect(responses.map((r) => [r.content, r.is_error])).toEqual([
        [inquiryFailed("deploy", "Go ahead?", "socket hang up"), true],
      ]);
    });

    it('the human cancels the prompt → cancelled{user}, result "Tool input cancelled by user."', async () => {
      const human = new MockPromptBackend({ questions: [{ type: "cancelled" }] });
      const tool = asking([question]);
      const { stream, coordinator } = coordinatorFor({
        tools: UNATTENDED,
        executors: new MockExecutorSource({ deploy: tool }),
        prompts: human,
      });

      const { responses } = await coordinator.run([call("call_1", "deploy")], {
        turn: new TurnState(),
      });

      expect(inquiryTrail(stream.events)).toEqual([
        { request: "call_1.confirm.1", source: TOOL },
        { response: "call_1.confirm.1", cancelled: "user" },
      ]);
      expect(responses.map((r) => [r.content, r.is_error])).toEqual([
        ["Tool input cancelled by user.", false],
      ]);
      expect(tool.executions).toHaveLength(1);
    });

    it('the prompt backend rejects → cancelled{backend_error}, result "Tool input prompt failed."', async () => {
      const human = new MockPromptBackend({
        questions: [
          () => {
            throw new Error("tty closed");
          },
        ],
      });
      const tool = asking([question]);
      const { stream, coordinator } = coordinatorFor({
        tools: UNATTENDED,
        executors: new MockExecutorSource({ deploy: tool }),
        prompts: human,
      });

      const { responses } = await coordinator.run([call("call_1", "deploy")], {
        turn: new TurnState(),
      });

      expect(inquiryTrail(stream.events)).toEqual([
        { request: "call_1.confirm.1", source: TOOL },
        { response: "call_1.confirm.1", cancelled: "backend_error" },
      ]);
      expect(responses.map((r) => [r.content, r.is_error])).toEqual([
        ["Tool input prompt failed.", true],
      ]);
      expect(tool.executions).toHaveLength(1);
    });
  });

  it("Secret routing guard, no TTY: the tool fails and cancelled{no_prompt_backend} is recorded", async () => {
    let asked = false;
    const llm = new MockInquiryBackend(() => {
      asked = true;
      return "leaked";
    });
    const tool = asking([secretQuestion()], () => "should not complete");
    const { stream, coordinator } = coordinatorFor({
      // detached "auto" would send a plain question to the LLM: a secret never goes there.
      tools: { "*": { run: "unattended", detached: "auto" } },
      executors: new MockExecutorSource({ deploy: tool }),
      prompts: new MockPromptBackend({}, { reachable: false }),
      inquiries: llm,
    });

    const { responses } = await coordinator.run([call("call_1", "deploy")], {
      turn: new TurnState(),
    });

    expect(asked).toBe(false);
    expect(inquiryTrail(stream.events)).toEqual([
      { request: "call_1.token.1", source: TOOL },
      { response: "call_1.token.1", cancelled: "no_prompt_backend" },
    ]);
    expect(responses.map((r) => [r.content, r.is_error])).toEqual([[noHuman("deploy"), true]]);
    expect(tool.executions).toHaveLength(1);
  });

  it.each<["auto" | "defaults" | "deny"]>([["auto"], ["defaults"], ["deny"]])(
    "Secret routing guard, no TTY, whatever the detached policy (%s), even with a default",
    async (detached) => {
      const llm = new MockInquiryBackend(() => "leaked");
      let received: JsonValue | undefined;
      const tool = asking([secretQuestion("token", { default: "placeholder" })], (answers) => {
        received = answers.token;
        return "should not complete";
      });
      const { stream, coordinator } = coordinatorFor({
        tools: { "*": { run: "unattended", detached } },
        executors: new MockExecutorSource({ deploy: tool }),
        inquiries: llm,
      });

      const { responses } = await coordinator.run([call("call_1", "deploy")], {
        turn: new TurnState(),
      });

      expect(llm.requests).toEqual([]);
      expect(received).toBeUndefined();
      expect(inquiryTrail(stream.events)).toEqual([
        { request: "call_1.token.1", source: TOOL },
        { response: "call_1.token.1", cancelled: "no_prompt_backend" },
      ]);
      expect(responses.map((r) => [r.content, r.is_error])).toEqual([[noHuman("deploy"), true]]);
    },
  );

  it("Secret routing guard, assistant target: the tool fails and cancelled{assistant_routing_denied} is recorded", async () => {
    const llm = new MockInquiryBackend({ "call_1.token.1": "leaked" });
    const human = new MockPromptBackend();
    const tool = asking([secretQuestion()], () => "should not complete");
    const { stream, coordinator } = coordinatorFor({
      tools: {
        ...UNATTENDED,
        deploy: { questions: { token: { target: "assistant", exclusive: false } } },
      },
      executors: new MockExecutorSource({ deploy: tool }),
      prompts: human,
      inquiries: llm,
    });

    const { responses } = await coordinator.run([call("call_1", "deploy")], {
      turn: new TurnState(),
    });

    expect(llm.requests).toEqual([]);
    expect(human.requests).toEqual([]);
    expect(inquiryTrail(stream.events)).toEqual([
      { request: "call_1.token.1", source: TOOL },
      { response: "call_1.token.1", cancelled: "assistant_routing_denied" },
    ]);
    expect(responses.map((r) => [r.content, r.is_error])).toEqual([
      [assistantDenied("deploy"), true],
    ]);
  });
});

describe("RFD 083 Phase 1 tests, through the ToolCoordinator", () => {
  it("exclusive, target user, no TTY (detached auto): the tool fails, cancelled{no_prompt_backend}", async () => {
    const llm = new MockInquiryBackend({ "call_1.confirm.1": true });
    const tool = asking([booleanQuestion("confirm", { exclusive: true })]);
    const { stream, coordinator } = coordinatorFor({
      tools: { "*": { run: "unattended", detached: "auto" } },
      executors: new MockExecutorSource({ deploy: tool }),
      prompts: new MockPromptBackend({}, { reachable: false }),
      inquiries: llm,
    });

    const { responses } = await coordinator.run([call("call_1", "deploy")], {
      turn: new TurnState(),
    });

    expect(llm.requests).toEqual([]);
    expect(responses.map((r) => [r.content, r.is_error])).toEqual([[noHuman("deploy"), true]]);
    expect(inquiryTrail(stream.events)).toEqual([
      { request: "call_1.confirm.1", source: TOOL },
      { response: "call_1.confirm.1", cancelled: "no_prompt_backend" },
    ]);
    const request = inquiryEvents(stream)[0] as InquiryRequest;
    expect(request.question).toEqual({
      text: "Go ahead?",
      answer_type: { type: "boolean" },
      exclusive: true,
    });
  });

  it("exclusive, target assistant: the tool fails, cancelled{assistant_routing_denied}", async () => {
    const llm = new MockInquiryBackend({ "call_1.confirm.1": true });
    const human = new MockPromptBackend();
    const tool = asking([booleanQuestion("confirm", { exclusive: true })]);
    const { stream, coordinator } = coordinatorFor({
      tools: { ...UNATTENDED, deploy: { questions: { confirm: { target: "assistant" } } } },
      executors: new MockExecutorSource({ deploy: tool }),
      prompts: human,
      inquiries: llm,
    });

    const { responses } = await coordinator.run([call("call_1", "deploy")], {
      turn: new TurnState(),
    });

    expect(llm.requests).toEqual([]);
    expect(human.requests).toEqual([]);
    expect(responses.map((r) => [r.content, r.is_error])).toEqual([
      [assistantDenied("deploy"), true],
    ]);
    expect(inquiryTrail(stream.events)).toEqual([
      { request: "call_1.confirm.1", source: TOOL },
      { response: "call_1.confirm.1", cancelled: "assistant_routing_denied" },
    ]);
  });

  it("exclusive does not block a configured answer: no human, no LLM, the static answer is used", async () => {
    const tool = asking([booleanQuestion("confirm", { exclusive: true })]);
    const { stream, coordinator } = coordinatorFor({
      tools: {
        ...UNATTENDED,
        deploy: { questions: { confirm: { answer: true, target: "assistant" } } },
      },
      executors: new MockExecutorSource({ deploy: tool }),
    });

    const { responses } = await coordinator.run([call("call_1", "deploy")], {
      turn: new TurnState(),
    });

    expect(responses.map((r) => [r.content, r.is_error])).toEqual([
      ['answers: {"confirm":true}', false],
    ]);
    expect(inquiryTrail(stream.events)).toEqual([
      { request: "call_1.confirm.1", source: TOOL },
      { response: "call_1.confirm.1", answered: true },
    ]);
  });

  it.each<[string, Question, JsonValue, string]>([
    [
      "boolean",
      booleanQuestion("confirm", { exclusive: true }),
      "yes",
      'expected true or false, got "yes"',
    ],
    ["select", selectQuestion(), "purple", 'expected one of "red", "green", "blue", got "purple"'],
  ])(
    "static-answer validation (%s): source-aware error, cancelled{invalid_static_answer}, tool not re-run",
    async (_kind, question, configured, detail) => {
      const human = new MockPromptBackend();
      const tool = asking([question]);
      const { stream, coordinator } = coordinatorFor({
        tools: { ...UNATTENDED, deploy: { questions: { [question.id]: { answer: configured } } } },
        executors: new MockExecutorSource({ deploy: tool }),
        prompts: human,
      });

      const { responses } = await coordinator.run([call("call_1", "deploy")], {
        turn: new TurnState(),
      });

      expect(responses.map((r) => [r.content, r.is_error])).toEqual([
        [
          `deploy: the configured conversation.tools.deploy.questions.${question.id}.answer value does not match the question's answer_type. Update the configuration; do not retry. (${detail})`,
          true,
        ],
      ]);
      expect(inquiryTrail(stream.events)).toEqual([
        { request: `call_1.${question.id}.1`, source: TOOL },
        { response: `call_1.${question.id}.1`, cancelled: "invalid_static_answer" },
      ]);
      expect(tool.executions).toHaveLength(1);
      expect(human.requests).toEqual([]);
    },
  );

  describe('persistence: "none" bypasses the turn cache', () => {
    const risky = booleanQuestion("confirm", { persistence: "none" });

    it("read side: a remembered answer is not used; the human is asked", async () => {
      const human = new MockPromptBackend({ questions: [answer(false)] });
      const tool = asking([risky]);
      const { stream, coordinator } = coordinatorFor({
        tools: UNATTENDED,
        executors: new MockExecutorSource({ deploy: tool }),
        prompts: human,
      });
      const turn = new TurnState();
      turn.rememberAnswer("deploy", "confirm", true);

      const { responses } = await coordinator.run([call("call_1", "deploy")], { turn });

      expect(human.questions).toHaveLength(1);
      expect(responses[0]?.content).toBe('answers: {"confirm":false}');
      expect(inquiryTrail(stream.events)).toEqual([
        { request: "call_1.confirm.1", source: TOOL },
        { response: "call_1.confirm.1", answered: false },
      ]);
      expect((inquiryEvents(stream)[0] as InquiryRequest).question).toEqual({
        text: "Go ahead?",
        answer_type: { type: "boolean" },
        persistence: "none",
      });
    });

    it("write side: remember is not offered, and an answer sent with remember is not stored", async () => {
      const human = new MockPromptBackend({ questions: [answer(true, true), answer(true)] });
      const tool = asking([risky]);
      const { coordinator } = coordinatorFor({
        tools: UNATTENDED,
        executors: new MockExecutorSource({ deploy: tool }),
        prompts: human,
      });
      const turn = new TurnState();

      await coordinator.run([call("call_1", "deploy")], { turn });
      await coordinator.run([call("call_2", "deploy")], { turn });

      expect(human.questions.map((q) => q.controls.remember)).toEqual([false, false]);
      expect([...turn.remembered_tool_answers]).toEqual([]);
      expect(human.questions).toHaveLength(2);
    });
  });

  it("a pre-083 question JSON (no exclusive / persistence) gets the defaults", async () => {
    // JP's old wire shape: externally-tagged answer type, null optionals, no new fields.
    const legacy = { id: "confirm", text: "Go ahead?", answer_type: "Boolean", default: null };
    const tool: BuiltinTool = {
      execute: ({ answers }) =>
        answers.confirm === undefined
          ? ({ type: "needs_input", question: legacy } as never)
          : { type: "success", content: `confirmed: ${String(answers.confirm)}` },
    };
    const human = new MockPromptBackend({ questions: [answer(true, true)] });
    const llm = new MockInquiryBackend({ "call_3.confirm.1": false });
    const { stream, coordinator } = coordinatorFor({
      tools: UNATTENDED,
      executors: builtinExecutorSource({ legacy: tool }),
      prompts: human,
    });
    const turn = new TurnState();

    await coordinator.run([call("call_1", "legacy")], { turn });
    const second = await coordinator.run([call("call_2", "legacy")], { turn });

    // persistence defaults to "turn": remember is offered, and the remembered answer is reused.
    expect(human.questions.map((q) => q.controls.remember)).toEqual([true]);
    expect(second.responses[0]?.content).toBe("confirmed: true");
    const request = inquiryEvents(stream)[0] as InquiryRequest;
    expect(request.question).toEqual({ text: "Go ahead?", answer_type: { type: "boolean" } });

    // exclusive defaults to false: with no human and detached "auto" the LLM may answer.
    const detached = coordinatorFor({
      tools: { "*": { run: "unattended", detached: "auto" } },
      executors: builtinExecutorSource({ legacy: tool }),
      inquiries: llm,
    });
    const third = await detached.coordinator.run([call("call_3", "legacy")], {
      turn: new TurnState(),
    });
    expect(third.responses[0]?.content).toBe("confirmed: false");
    expect(inquiryTrail(detached.stream.events)).toEqual([
      { request: "call_3.confirm.1", source: { source: "tool", name: "legacy" } },
      { response: "call_3.confirm.1", answered: false },
    ]);
  });
});

describe("answers that need no prompt", () => {
  it("a static answer flows through the late path: no answer on the first pass, the answer on the second", async () => {
    const tool = asking([booleanQuestion()]);
    const { stream, coordinator } = coordinatorFor({
      tools: { ...UNATTENDED, deploy: { questions: { confirm: { answer: true } } } },
      executors: new MockExecutorSource({ deploy: tool }),
    });

    const { responses } = await coordinator.run([call("call_1", "deploy")], {
      turn: new TurnState(),
    });

    expect(tool.executions.map((e) => e.answers)).toEqual([{}, { confirm: true }]);
    expect(responses.map((r) => [r.content, r.is_error])).toEqual([
      ['answers: {"confirm":true}', false],
    ]);
    expect(inquiryTrail(stream.events)).toEqual([
      { request: "call_1.confirm.1", source: TOOL },
      { response: "call_1.confirm.1", answered: true },
    ]);
  });

  it.each<["static" | "remembered"]>([["static"], ["remembered"]])(
    "the %s route records the request before the answer",
    async (route) => {
      const tool = asking([booleanQuestion()]);
      const { stream, coordinator } = coordinatorFor({
        tools:
          route === "static"
            ? { ...UNATTENDED, deploy: { questions: { confirm: { answer: false } } } }
            : UNATTENDED,
        executors: new MockExecutorSource({ deploy: tool }),
      });
      const emitted = recordEmitted(coordinator);
      const turn = new TurnState();
      if (route === "remembered") turn.rememberAnswer("deploy", "confirm", false);

      await coordinator.run([call("call_1", "deploy")], { turn });

      expect(stream.events.map((e) => e.type)).toEqual([
        "turn_start",
        "chat_request",
        "tool_call_request",
        "inquiry_request",
        "inquiry_response",
        "tool_call_response",
      ]);
      expect(inquiryTrail(stream.events)).toEqual([
        { request: "call_1.confirm.1", source: TOOL },
        { response: "call_1.confirm.1", answered: false },
      ]);
      expect(
        emitted.flatMap((e) => (e.name === "inquiry-recorded" ? [e.payload.event.type] : [])),
      ).toEqual(["inquiry_request", "inquiry_response"]);
    },
  );

  it("the detached `defaults` policy's answer is recorded as the question's default, not as a person's answer", async () => {
    const tool = asking([selectQuestion("pick", { default: "green" })]);
    const { stream, coordinator } = coordinatorFor({
      tools: { "*": { run: "unattended", detached: "defaults" } },
      executors: new MockExecutorSource({ deploy: tool }),
      prompts: new MockPromptBackend({}, { reachable: false }),
    });

    await coordinator.run([call("call_1", "deploy")], { turn: new TurnState() });

    // JP's `answered` says what the tool received; the envelope's metadata says nobody gave it.
    const [, response] = inquiryEvents(stream);
    expect(response).toMatchObject({ outcome: "answered", id: "call_1.pick.1", answer: "green" });
    expect(response?.metadata).toEqual({ [ANSWERED_BY_METADATA_KEY]: "default" });
    expect(ANSWERED_BY_METADATA_KEY).toBe("answered_by");
    // The mark survives saving and loading, as every event's metadata does.
    const reloaded = ConversationStream.decode(JSON.parse(JSON.stringify(stream.toJSON())));
    expect(inquiryEvents(reloaded._unsafeUnwrap())[1]?.metadata).toEqual({
      answered_by: "default",
    });
    // Answers a person, a configuration or the turn gave carry no such mark.
    const human = coordinatorFor({
      tools: UNATTENDED,
      executors: new MockExecutorSource({ deploy: asking([selectQuestion("pick")]) }),
      prompts: new MockPromptBackend({ questions: [answer("green")] }),
    });
    await human.coordinator.run([call("call_1", "deploy")], { turn: new TurnState() });
    expect(inquiryEvents(human.stream)[1]?.metadata).toBeUndefined();
  });
});

describe("answers from the LLM", () => {
  const assistantTools = (id: string) => ({
    ...UNATTENDED,
    deploy: { questions: { [id]: { target: "assistant" as const } } },
  });

  it("an LLM answer is validated and used: recorded Answered, the tool re-runs with it", async () => {
    const llm = new MockInquiryBackend({ "call_1.pick.1": "blue" });
    const tool = asking([selectQuestion()]);
    const { stream, coordinator } = coordinatorFor({
      tools: assistantTools("pick"),
      executors: new MockExecutorSource({ deploy: tool }),
      inquiries: llm,
    });

    const { responses } = await coordinator.run([call("call_1", "deploy")], {
      turn: new TurnState(),
    });

    expect(responses[0]?.content).toBe('answers: {"pick":"blue"}');
    expect(inquiryTrail(stream.events)).toEqual([
      { request: "call_1.pick.1", source: TOOL },
      { response: "call_1.pick.1", answered: "blue" },
    ]);
    expect(llm.requests.map((r) => [r.inquiryId, r.toolName, r.question.id])).toEqual([
      ["call_1.pick.1", "deploy", "pick"],
    ]);
  });

  it.each<[string, Question, JsonValue, string]>([
    [
      'a boolean answered "maybe"',
      booleanQuestion(),
      "maybe",
      'expected true or false, got "maybe"',
    ],
    [
      "a select answered outside its options",
      selectQuestion(),
      "purple",
      'expected one of "red", "green", "blue", got "purple"',
    ],
  ])(
    "%s → cancelled{backend_error} and the inquiry-failed text",
    async (_name, question, llmAnswer, detail) => {
      const llm = new MockInquiryBackend({ [`call_1.${question.id}.1`]: llmAnswer });
      const tool = asking([question]);
      const { stream, coordinator } = coordinatorFor({
        tools: assistantTools(question.id),
        executors: new MockExecutorSource({ deploy: tool }),
        inquiries: llm,
      });

      const { responses } = await coordinator.run([call("call_1", "deploy")], {
        turn: new TurnState(),
      });

      expect(inquiryTrail(stream.events)).toEqual([
        { request: `call_1.${question.id}.1`, source: TOOL },
        { response: `call_1.${question.id}.1`, cancelled: "backend_error" },
      ]);
      const [response] = responses;
      expect(response?.is_error).toBe(true);
      expect(response?.content).toMatch(
        new RegExp(
          `^The tool 'deploy' asked a follow-up question \\("${question.text.replace("?", "\\?")}"\\) that was routed to a secondary assistant for resolution, but the secondary assistant failed to provide a valid answer\\. Error: .*\\. You may retry the tool call or end the turn\\.$`,
        ),
      );
      expect(response?.content).toContain(detail);
      expect(tool.executions).toHaveLength(1);
    },
  );

  it("no inquiry backend configured → cancelled{backend_error}, the inquiry-failed text", async () => {
    const tool = asking([booleanQuestion()]);
    const { stream, coordinator } = coordinatorFor({
      tools: assistantTools("confirm"),
      executors: new MockExecutorSource({ deploy: tool }),
    });

    const { responses } = await coordinator.run([call("call_1", "deploy")], {
      turn: new TurnState(),
    });

    expect(inquiryTrail(stream.events)).toEqual([
      { request: "call_1.confirm.1", source: TOOL },
      { response: "call_1.confirm.1", cancelled: "backend_error" },
    ]);
    expect(responses[0]?.is_error).toBe(true);
    expect(responses[0]?.content).toMatch(
      /^The tool 'deploy' asked a follow-up question \("Go ahead\?"\) that was routed to a secondary assistant for resolution, but the secondary assistant failed to provide a valid answer\. Error: .+\. You may retry the tool call or end the turn\.$/,
    );
  });

  it("no inquiry backend configured: the model reads that none is configured", async () => {
    const { coordinator } = coordinatorFor({
      tools: assistantTools("confirm"),
      executors: new MockExecutorSource({ deploy: asking([booleanQuestion()]) }),
    });

    const { responses } = await coordinator.run([call("call_1", "deploy")], {
      turn: new TurnState(),
    });

    expect(responses.map((r) => [r.content, r.is_error])).toEqual([
      [inquiryFailed("deploy", "Go ahead?", "no inquiry backend is configured"), true],
    ]);
  });

  it("the inquiry backend gets a stream copy where the asking tool looks paused and nothing is unpaired", async () => {
    const otherMayFinish = deferred();
    let copy: ConversationStream | undefined;
    const llm = new MockInquiryBackend((input) => {
      copy = input.stream;
      otherMayFinish.resolve();
      return true;
    });
    const other = new MockExecutor(async () => {
      await otherMayFinish.promise;
      return { type: "success", content: "other done" };
    });
    const { stream, coordinator } = coordinatorFor({
      tools: assistantTools("confirm"),
      executors: new MockExecutorSource({ deploy: asking([booleanQuestion()]), other }),
      inquiries: llm,
    });

    const { responses } = await coordinator.run(
      [call("call_1", "deploy"), call("call_2", "other")],
      { turn: new TurnState() },
    );

    expect(responses.map((r) => r.content)).toEqual(['answers: {"confirm":true}', "other done"]);
    expect(copy).toBeDefined();
    const events = copy?.events ?? [];
    expect(copy).not.toBe(stream);
    const paused = events.filter(
      (e) => e.type === "tool_call_response" && "id" in e && e.id === "call_1",
    );
    expect(paused).toMatchObject([
      {
        type: "tool_call_response",
        id: "call_1",
        content: "Tool paused: Go ahead?",
        is_error: false,
      },
    ]);
    expect(
      events.some((e) => e.type === "inquiry_request" && "id" in e && e.id === "call_1.confirm.1"),
    ).toBe(false);
    expect(unpaired(events, "inquiry")).toEqual({ requests: [], responses: [] });
    expect(unpaired(events, "tool_call")).toEqual({ requests: [], responses: [] });
    // The real stream is untouched by the copy: no "paused" response was recorded there.
    expect(
      stream.events.some(
        (e) =>
          e.type === "tool_call_response" &&
          "content" in e &&
          e.content === "Tool paused: Go ahead?",
      ),
    ).toBe(false);
    expect(unpaired(stream.events, "inquiry")).toEqual({ requests: [], responses: [] });
  });
});
