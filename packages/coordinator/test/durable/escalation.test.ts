// A sub-agent's prompts, escalated through the tool call that hosts it, suspend and resume like
// the tool's own: the hosting call waits at the prompt, and when the turn resumes the call runs
// again and its sub-agent's earlier prompts are answered from the record.
import { ConversationStream, type JsonValue, type StreamEvent } from "@jp/conversation";
import { describe, expect, it } from "vitest";
import {
  answerPendingPrompt,
  type Executor,
  type ExecutorSource,
  listPendingPrompts,
  type PromptBackend,
  type PromptRequest,
  type QuestionPromptRequest,
  type ReplyFor,
  ToolCoordinator,
  TurnState,
} from "../../src/index.js";
import {
  perCall,
  type QuestionKind,
  runLive,
  runSuspended,
  type Scenario,
  started,
  subAgentExecutor,
  tempDir,
} from "./support.js";

const AGENT = { run: "unattended", result: "unattended" } as const;

/** A parent whose one call, `call_0` of tool `alpha`, runs a sub-agent asking `questions`. */
function parent(
  questions: readonly QuestionKind[],
  options: { prompts?: PromptBackend; stream?: ConversationStream } = {},
) {
  const stream = options.stream ?? started();
  const executors: ExecutorSource = {
    executorFor: () => subAgentExecutor(() => coordinator, { ...AGENT, questions }),
  };
  const coordinator: ToolCoordinator = new ToolCoordinator({
    stream,
    tools: { alpha: { run: "unattended", result: "unattended" } },
    executors,
    ...(options.prompts === undefined ? {} : { prompts: options.prompts }),
  });
  return { stream, coordinator };
}

const CALL = { id: "call_0", name: "alpha", arguments: {} };

/** A parent recording in `stream` whose one tool, `alpha`, runs `executor`. */
function hosting(
  stream: ConversationStream,
  executor: Executor,
  tools: { run: "ask" | "unattended"; result: "unattended" } = AGENT,
) {
  return new ToolCoordinator({
    stream,
    tools: { alpha: tools },
    executors: { executorFor: () => executor },
  });
}

/** Runs call `call_1` of `alpha` until it suspends. */
async function suspendCall1(coordinator: ToolCoordinator) {
  return coordinator.run([{ id: "call_1", name: "alpha", arguments: {} }], {
    turn: new TurnState(),
    suspend: true,
  });
}

/** The stream as another process would read it: encoded, then decoded. */
function reloaded(stream: ConversationStream): ConversationStream {
  return ConversationStream.decode(JSON.parse(JSON.stringify(stream.toJSON())))._unsafeUnwrap();
}

const inquiries = (events: readonly StreamEvent[]) =>
  events.flatMap((e) => {
    if (e.type === "inquiry_request") return [`? ${e.id} ${JSON.stringify(e.source)}`];
    if (e.type === "inquiry_response") {
      const r = e as { id: string; outcome: string; answer?: unknown; reason?: string };
      return [`= ${r.id} ${r.outcome} ${JSON.stringify(r.answer ?? r.reason ?? null)}`];
    }
    return [];
  });

const responses = (events: readonly StreamEvent[]) =>
  events.flatMap((e) => (e.type === "tool_call_response" ? [String(e.content)] : []));

/** Answers questions from a list, by question id; anything else is "later". */
function answering(values: Record<string, JsonValue>): PromptBackend & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    isHumanReachable: () => true,
    async ask<R extends PromptRequest>(request: R) {
      const id = request.kind === "question" ? request.question.id : request.kind;
      asked.push(id);
      if (request.kind === "question" && Object.hasOwn(values, id)) {
        return { type: "answer", value: values[id] } as ReplyFor<R>;
      }
      return { type: "later" } as const;
    },
  };
}

describe("a sub-agent's prompt in a suspended turn", () => {
  it("is left pending at the hosting call, attributed to the sub-agent, and the call stays open", async () => {
    const { stream, coordinator } = parent(["boolean"]);
    const result = await coordinator.run([CALL], { turn: new TurnState(), suspend: true });

    expect(result.responses).toEqual([]);
    expect(result.pending).toHaveLength(1);
    const [pending] = result.pending;
    expect(pending).toMatchObject({
      prompt_id: "call_0.q0.1",
      kind: "question",
      tool_call_id: "call_0",
      agent: "helper",
      source: { source: "other", name: "helper" },
    });
    expect(pending?.request).toMatchObject({ prompt_label: "Assistant (sub-agent helper)" });
    expect(inquiries(stream.events)).toEqual([`? call_0.q0.1 {"source":"other","name":"helper"}`]);
    expect(listPendingPrompts(reloaded(stream)).map((p) => p.prompt_id)).toEqual(["call_0.q0.1"]);
  });

  it("is left pending when the parent's prompt backend replies later, in a live run", async () => {
    const person = answering({});
    const { coordinator } = parent(["boolean"], { prompts: person });
    const result = await coordinator.run([CALL], { turn: new TurnState() });
    expect(person.asked).toEqual(["q0"]);
    expect(result.pending.map((p) => [p.prompt_id, p.agent])).toEqual([["call_0.q0.1", "helper"]]);
  });

  it("resumes with the sub-agent run again, its answered prompts replayed from the record and never asked or recorded twice", async () => {
    // A person answers the first question live, then is gone.
    const first = parent(["boolean", "text"], { prompts: answering({ q0: true }) });
    const suspended = await first.coordinator.run([CALL], { turn: new TurnState() });
    expect(suspended.pending.map((p) => p.prompt_id)).toEqual(["call_0.q1.1"]);

    // Another process answers the second; a third resumes, with nobody to ask.
    const answered = reloaded(first.stream);
    answerPendingPrompt(answered, "call_0.q1.1", {
      type: "answer",
      value: "hello",
    })._unsafeUnwrap();
    const later = answering({});
    const resumed = parent(["boolean", "text"], { stream: reloaded(answered), prompts: later });
    const result = await resumed.coordinator.resume();

    expect(later.asked).toEqual([]);
    expect(result.pending).toEqual([]);
    expect(inquiries(resumed.stream.events)).toEqual([
      `? call_0.q0.1 {"source":"other","name":"helper"}`,
      "= call_0.q0.1 answered true",
      `? call_0.q1.1 {"source":"other","name":"helper"}`,
      '= call_0.q1.1 answered "hello"',
    ]);
    expect(JSON.parse(responses(resumed.stream.events)[0] ?? "{}")).toEqual({
      sub: [JSON.stringify({ args: {}, answers: { q0: true, q1: "hello" } })],
      pending: 0,
    });
  });

  it("closes a question the sub-agent no longer asks when run again as interrupted, not as the person's, and asks the new one", async () => {
    let runs = 0;
    const shifty: Executor = {
      async execute({ call }) {
        const id = runs++ === 0 ? "first" : "second";
        const request: QuestionPromptRequest = {
          kind: "question",
          tool_name: "ask_user",
          tool_call_id: "sub_0",
          inquiry_id: `sub_0.${id}.1`,
          question: { id, text: `${id}?`, answer_type: { type: "boolean" } },
          controls: { remember: false, back: false, reply: false, end_turn: false },
        };
        const reply = await coordinator.escalate(call.id, "helper", request);
        return { type: "completed", content: reply.type, is_error: false };
      },
    };
    const stream = started();
    let coordinator = new ToolCoordinator({
      stream,
      tools: { alpha: { run: "unattended", result: "unattended" } },
      executors: { executorFor: () => shifty },
    });
    await coordinator.run([CALL], { turn: new TurnState(), suspend: true });
    answerPendingPrompt(stream, "call_0.first.1", { type: "answer", value: true })._unsafeUnwrap();

    coordinator = new ToolCoordinator({
      stream,
      tools: { alpha: { run: "unattended", result: "unattended" } },
      executors: { executorFor: () => shifty },
    });
    const result = await coordinator.resume({ suspend: true });

    expect(inquiries(stream.events)).toEqual([
      `? call_0.first.1 {"source":"other","name":"helper"}`,
      '= call_0.first.1 cancelled "interrupted"',
      `? call_0.second.1 {"source":"other","name":"helper"}`,
    ]);
    expect(result.pending.map((p) => p.prompt_id)).toEqual(["call_0.second.1"]);
  });

  it("past its deadline is recorded as timeout in the parent, and the sub-agent learns nobody answered", async () => {
    const { stream, coordinator } = parent(["boolean"]);
    const at = new Date("2026-11-24T00:00:00Z");
    await coordinator.run([CALL], { turn: new TurnState(), suspend: { deadlineMs: 60_000 } });
    const [pending] = listPendingPrompts(stream, at);
    expect(pending?.deadline).toBeDefined();

    const later = new Date(Date.parse(pending?.deadline ?? "") + 1);
    const result = await parent(["boolean"], { stream }).coordinator.resume({ now: later });

    expect(result.pending).toEqual([]);
    expect(inquiries(stream.events)).toEqual([
      `? call_0.q0.1 {"source":"other","name":"helper"}`,
      '= call_0.q0.1 cancelled "timeout"',
    ]);
    // The sub-agent's own call failed for want of a person, not by the person's choice.
    const content = JSON.parse(responses(stream.events)[0] ?? "{}") as { sub: string[] };
    expect(content.sub[0]).not.toMatch(/declined|cancelled by the user/i);
  });

  it("a prompt of the same pass that ended without the person ends the same way when the pass runs again; the person's stored answer stands", async () => {
    const told: string[] = [];
    let coordinator!: ToolCoordinator;
    const permission: PromptRequest = {
      kind: "permission",
      tool_name: "rm",
      tool_call_id: "child_1",
      arguments: {},
      mode: "ask",
    };
    const question: QuestionPromptRequest = {
      kind: "question",
      tool_name: "ask_user",
      tool_call_id: "child_2",
      inquiry_id: "child_2.confirm.1",
      question: { id: "confirm", text: "Sure?", answer_type: { type: "boolean" } },
      controls: { remember: false, back: false, reply: false, end_turn: false },
    };
    const executor: Executor = {
      async execute(input) {
        const said: string[] = [];
        try {
          said.push((await coordinator.escalate(input.call.id, "helper", permission)).type);
        } catch (error) {
          said.push((error as Error).name);
        }
        const answer = await coordinator.escalate(input.call.id, "helper", question);
        said.push(JSON.stringify(answer));
        told.push(said.join(" "));
        return { type: "completed", content: said.join(" "), is_error: false };
      },
    };
    const asked: string[] = [];
    const made = (stream: ConversationStream, ask: PromptBackend["ask"]) =>
      new ToolCoordinator({
        stream,
        tools: { alpha: AGENT },
        executors: { executorFor: () => executor },
        prompts: { isHumanReachable: () => true, ask },
      });
    const stream = started();
    // The parent's person never decides the permission (its deadline passes); the question waits.
    coordinator = made(stream, (request, { signal }) => {
      asked.push(`1 ${request.kind}`);
      if (request.kind === "permission") {
        return new Promise((_, reject) =>
          signal.addEventListener("abort", () => reject(signal.reason)),
        );
      }
      return Promise.resolve({ type: "later" } as const);
    });
    await coordinator.run([{ id: "call_1", name: "alpha", arguments: {} }], {
      turn: new TurnState(),
      promptTimeoutMs: 30,
    });
    answerPendingPrompt(stream, "call_1.confirm.1", {
      type: "answer",
      value: true,
    })._unsafeUnwrap();
    // Another process resumes, with a person who would now decide otherwise.
    const again = reloaded(stream);
    coordinator = made(again, async (request) => {
      asked.push(`2 ${request.kind}`);
      return (
        request.kind === "permission" ? { type: "run" } : { type: "answer", value: false }
      ) as never;
    });
    await coordinator.resume();
    expect(asked).toEqual(["1 permission", "1 question"]);
    expect(told).toEqual([
      'PromptTimedOutError {"type":"later"}',
      'PromptTimedOutError {"type":"answer","value":true}',
    ]);
    expect(inquiries(again.events)).toEqual([
      `? call_1.confirm.1 {"source":"other","name":"helper"}`,
      "= call_1.confirm.1 answered true",
    ]);
  });

  it("a reply given to a sub-agent's permission prompt answers only the same arguments when the sub-agent runs again", async () => {
    let pass = 0;
    let coordinator!: ToolCoordinator;
    const executor: Executor = {
      async execute(input) {
        pass += 1;
        const path = pass === 1 ? "/tmp/old" : "/";
        const permission: PromptRequest = {
          kind: "permission",
          tool_name: "rm",
          tool_call_id: "child_1",
          arguments: { path },
          mode: "ask",
        };
        const reply = await coordinator.escalate(input.call.id, "helper", permission);
        return { type: "completed", content: `rm ${path}: ${reply.type}`, is_error: false };
      },
    };
    const stream = started();
    coordinator = hosting(stream, executor);
    await suspendCall1(coordinator);
    answerPendingPrompt(stream, "call_1#permission/helper/child_1/1", {
      type: "run",
    })._unsafeUnwrap();
    coordinator = hosting(reloaded(stream), executor);
    const resumed = await coordinator.resume();
    // The approval was for /tmp/old: the sub-agent's new request waits for its own decision.
    expect(resumed.responses).toEqual([]);
    expect(resumed.pending.map((p) => [p.prompt_id, p.answered])).toEqual([
      ["call_1#permission/helper/child_1/2", false],
    ]);
    expect(resumed.pending[0]?.request).toMatchObject({ arguments: { path: "/" } });
  });

  it("a stored answer to a sub-agent's question written in a non-canonical form stands when it is read back from the marker", async () => {
    let coordinator!: ToolCoordinator;
    const question = {
      id: "ok",
      text: "OK?",
      answer_type: { type: "boolean" },
      exclusive: false,
      persistence: "turn",
      context: undefined,
    } as unknown as QuestionPromptRequest["question"];
    const executor: Executor = {
      async execute(input) {
        const reply = await coordinator.escalate(input.call.id, "helper", {
          kind: "question",
          tool_name: "ask_user",
          tool_call_id: "child_1",
          inquiry_id: "child_1.ok.1",
          question,
          controls: { remember: false, back: false, reply: false, end_turn: false },
        });
        return { type: "completed", content: JSON.stringify(reply), is_error: false };
      },
    };
    const stream = started();
    coordinator = hosting(stream, executor);
    await suspendCall1(coordinator);
    answerPendingPrompt(stream, "call_1.ok.1", { type: "answer", value: true })._unsafeUnwrap();
    const again = reloaded(stream);
    coordinator = hosting(again, executor);
    const resumed = await coordinator.resume();
    expect(resumed.pending).toEqual([]);
    expect(responses(again.events)).toEqual(['{"type":"answer","value":true}']);
    expect(inquiries(again.events)).toEqual([
      `? call_1.ok.1 {"source":"other","name":"helper"}`,
      "= call_1.ok.1 answered true",
    ]);
  });

  it.each([
    [
      "run",
      "a command it was not shown waits for its own decision",
      ["call_1#permission/helper/child_1/1"],
    ],
    ["skip", "the person's skip stands", []],
  ] as const)(
    "a reply stored for a call's permission, its tool made unattended since (%s): %s",
    async (given, _, pendingAfter) => {
      let coordinator!: ToolCoordinator;
      const executor: Executor = {
        async execute(input) {
          const reply = await coordinator.escalate(input.call.id, "helper", {
            kind: "permission",
            tool_name: "rm",
            tool_call_id: "child_1",
            arguments: { path: "/" },
            mode: "ask",
          });
          return { type: "completed", content: `rm /: ${reply.type}`, is_error: false };
        },
      };
      const stream = started();
      coordinator = hosting(stream, executor, { run: "ask", result: "unattended" });
      await suspendCall1(coordinator);
      answerPendingPrompt(stream, "call_1#permission", { type: given })._unsafeUnwrap();
      coordinator = hosting(reloaded(stream), executor, {
        run: "unattended",
        result: "unattended",
      });
      const resumed = await coordinator.resume();
      expect(resumed.pending.map((p) => p.prompt_id)).toEqual(pendingAfter);
      if (given === "skip") expect(resumed.responses[0]?.content).toContain("skipped by user");
      else expect(resumed.pending[0]?.request).toMatchObject({ tool_name: "rm" });
    },
  );

  it("End Turn given while suspended ends the parent's turn when it resumes", async () => {
    const { stream, coordinator } = parent(["boolean", "boolean"]);
    await coordinator.run([CALL], { turn: new TurnState(), suspend: true });
    answerPendingPrompt(stream, "call_0.q0.1", { type: "end_turn" })._unsafeUnwrap();
    const result = await parent(["boolean", "boolean"], { stream }).coordinator.resume();
    expect(result.endTurn).toBe(true);
    expect(result.pending).toEqual([]);
    expect(inquiries(stream.events)).toEqual([
      `? call_0.q0.1 {"source":"other","name":"helper"}`,
      '= call_0.q0.1 cancelled "end_turn"',
    ]);
  });

  it("never writes a secret the sub-agent was given: it is asked again, as a new attempt, when the call resumes", async () => {
    const backend = answering({ q0: "s3cret-value-42" });
    const { stream, coordinator } = parent(["secret", "boolean"], {
      prompts: backend,
    });
    const result = await coordinator.run([CALL], { turn: new TurnState() });
    expect(result.pending.map((p) => p.prompt_id)).toEqual(["call_0.q1.1"]);
    expect(JSON.stringify(stream.toJSON())).not.toContain("s3cret-value-42");

    answerPendingPrompt(stream, "call_0.q1.1", { type: "answer", value: true })._unsafeUnwrap();
    const again = await parent(["secret", "boolean"], { stream }).coordinator.resume({
      suspend: true,
    });
    expect(again.pending.map((p) => p.prompt_id)).toEqual(["call_0.q0.2"]);
    // The answer given to the question after it is not used: that question is asked again too.
    expect(inquiries(stream.events)).toContain('= call_0.q1.1 cancelled "interrupted"');
    expect(JSON.stringify(stream.toJSON())).not.toContain("s3cret-value-42");
  });
});

describe("End Turn given while suspended, with a sub-agent's prompt behind it in line", () => {
  // Three calls: a sub-agent's delivery prompt waits behind another call's question, which the
  // person answers with End Turn. Live, End Turn closes the queued delivery prompt ("not
  // delivered"); resumed, the sub-agent must run again and bring its prompt back into line before
  // End Turn is applied, or it reads as if the turn had ended before its prompt.
  const scenario: Scenario = {
    calls: [
      {
        questions: ["boolean"],
        run: "ask",
        result: "unattended",
        tool: "alpha",
        agent: { questions: ["boolean"], run: "ask", result: "ask" },
      },
      { questions: ["boolean"], run: "ask", result: "ask", tool: "alpha" },
      {
        questions: ["boolean"],
        run: "ask",
        result: "ask",
        tool: "alpha",
        agent: { questions: ["boolean"], run: "ask", result: "ask" },
      },
    ],
    choices: [56, 0, 1],
  };

  it("closes the sub-agent's prompt as the live run does", async () => {
    const dir = await tempDir();
    try {
      const live = await runLive(scenario);
      const { stream } = await runSuspended(scenario, dir.path);
      expect(perCall(stream)).toEqual(perCall(live));
      const hosted = toolResponseOf(live, "call_0");
      expect(hosted).toContain("its result was not delivered: the user ended the turn");
    } finally {
      await dir.remove();
    }
  });
});

function toolResponseOf(stream: ConversationStream, id: string): string | undefined {
  const event = stream.events.find(
    (e): e is StreamEvent & { content: string } =>
      e.type === "tool_call_response" && (e as { id?: unknown }).id === id,
  );
  return event?.content;
}
