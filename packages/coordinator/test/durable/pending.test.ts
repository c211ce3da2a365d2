import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { ConversationStream, FileConversationStore, type JsonValue } from "@jp/conversation";
import type { Question } from "@jp/tool";
import { describe, expect, it } from "vitest";
import {
  answerPendingPrompt,
  checkPromptReply,
  type Executor,
  listPendingPrompts,
  PENDING_METADATA_KEY,
  type PendingPrompt,
  type QuestionPromptRequest,
  ToolCoordinator,
  type ToolsConfig,
  TurnState,
} from "../../src/index.js";
import { MockExecutor, MockExecutorSource, MockPromptBackend } from "../../src/testing/index.js";
import { call, inquiryEvents, toolResponses, unpaired } from "../support.js";
import { form, q, started, tempDir } from "./support.js";

function setup(tools: ToolsConfig, executors: Record<string, Executor>, stream = started()) {
  const coordinator = new ToolCoordinator({
    stream,
    tools,
    executors: new MockExecutorSource(executors),
  });
  return { stream, coordinator };
}

const UNATTENDED: ToolsConfig = { "*": { run: "unattended" } };
const three = [q("a"), q("b", { answer_type: { type: "select", options: ["x", "y"] } }), q("c")];

describe("suspending a run", () => {
  it("records the question, leaves its call open and lists what a person must answer; a call that needs nobody finishes", async () => {
    const { stream, coordinator } = setup(UNATTENDED, {
      asker: form(three),
      worker: new MockExecutor(() => ({ type: "success", content: "done" })),
    });
    const result = await coordinator.run([call("call_1", "asker"), call("call_2", "worker")], {
      turn: new TurnState(),
      suspend: { deadlineMs: 60_000 },
    });

    expect(result.responses.map((r) => [r.id, r.content])).toEqual([["call_2", "done"]]);
    expect(result.pending).toHaveLength(1);
    const [pending] = result.pending;
    expect(pending).toMatchObject({
      prompt_id: "call_1.a.1",
      inquiry_id: "call_1.a.1",
      kind: "question",
      tool_call_id: "call_1",
      tool_name: "asker",
      source: { source: "tool", name: "asker" },
      progress: { index: 1, total: 3 },
      answered: false,
      expired: false,
    });
    expect((pending?.request as QuestionPromptRequest | undefined)?.question.text).toBe("a?");
    const deadline = Date.parse(pending?.deadline ?? "");
    expect(deadline - Date.parse(pending?.suspended_at ?? "")).toBe(60_000);
    // The stream holds the request and no response for the open call; listing needs only it.
    expect(unpaired(stream.events, "tool_call").requests).toEqual(["call_1"]);
    expect(unpaired(stream.events, "inquiry").requests).toEqual(["call_1.a.1"]);
    expect(listPendingPrompts(ConversationStream.decode(stream.toJSON())._unsafeUnwrap())).toEqual(
      result.pending,
    );
  });

  it("a prompt backend replying `later` suspends that prompt and every prompt behind it", async () => {
    const human = new MockPromptBackend({
      questions: [{ type: "answer", value: true }, { type: "later" }],
    });
    const stream = started();
    const coordinator = new ToolCoordinator({
      stream,
      tools: UNATTENDED,
      executors: new MockExecutorSource({ one: form(three), two: form([q("z")]) }),
      prompts: human,
    });
    const result = await coordinator.run([call("call_1", "one"), call("call_2", "two")], {
      turn: new TurnState(),
    });
    // call_1.a answered; call_2.z said later; call_1.b waited behind it and was never shown.
    expect(human.questions.map((r) => r.inquiry_id)).toEqual(["call_1.a.1", "call_2.z.1"]);
    expect(result.pending.map((p) => p.prompt_id)).toEqual(["call_2.z.1", "call_1.b.1"]);
    expect(result.responses).toEqual([]);
  });
});

describe("answering a pending prompt", () => {
  async function suspendedAt(questions: readonly Question[], tools: ToolsConfig = UNATTENDED) {
    const { stream, coordinator } = setup(tools, { asker: form(questions) });
    await coordinator.run([call("call_1", "asker")], { turn: new TurnState(), suspend: true });
    return stream;
  }

  it("an answer that does not fit is a typed error naming the problem; nothing is recorded and the prompt stays pending", async () => {
    const stream = await suspendedAt(three);
    const before = stream.toJSON();
    const wrong = answerPendingPrompt(stream, "call_1.a.1", { type: "answer", value: "yes" });
    expect(wrong._unsafeUnwrapErr()).toMatchObject({
      kind: "invalid_reply",
      promptId: "call_1.a.1",
    });
    expect(wrong._unsafeUnwrapErr().message).toBe('expected true or false, got "yes"');
    expect(stream.toJSON()).toEqual(before);
    expect(listPendingPrompts(stream)[0]?.answered).toBe(false);
  });

  it("Back is refused where the prompt does not offer it (the first question of a form)", async () => {
    const stream = await suspendedAt(three);
    const back = answerPendingPrompt(stream, "call_1.a.1", { type: "back" });
    expect(back._unsafeUnwrapErr()).toMatchObject({ kind: "invalid_reply" });
    expect(back._unsafeUnwrapErr().message).toBe('this prompt does not offer "back"');
  });

  it("an unknown id and a second answer are typed errors, never a second response", async () => {
    const stream = await suspendedAt(three);
    expect(
      answerPendingPrompt(stream, "call_9.a.1", { type: "answer", value: true })._unsafeUnwrapErr()
        .kind,
    ).toBe("unknown_prompt");
    expect(answerPendingPrompt(stream, "call_1.a.1", { type: "answer", value: true }).isOk()).toBe(
      true,
    );
    const again = answerPendingPrompt(stream, "call_1.a.1", { type: "answer", value: false });
    expect(again._unsafeUnwrapErr().kind).toBe("already_answered");
    // Resuming records the first answer once.
    const { coordinator } = setup(UNATTENDED, { asker: form(three) }, stream);
    await coordinator.resume();
    const responses = inquiryEvents(stream).filter((e) => e.type === "inquiry_response");
    expect(responses).toEqual([expect.objectContaining({ id: "call_1.a.1", answer: true })]);
    // And once resumed, the prompt is no longer pending: answering it is unknown.
    expect(
      answerPendingPrompt(stream, "call_1.a.1", { type: "answer", value: true })._unsafeUnwrapErr()
        .kind,
    ).toBe("unknown_prompt");
  });

  it("a secret is never stored: it is refused here and given to resume() in memory, and recorded redacted", async () => {
    const dir = await tempDir();
    try {
      const secret = q("token", { answer_type: { type: "secret" } });
      const seen: JsonValue[] = [];
      const tool = new MockExecutor((input) => {
        if (input.answers.token === undefined) return { type: "needs_input", question: secret };
        seen.push(input.answers.token);
        return { type: "success", content: "logged in" };
      });
      const store = new FileConversationStore(dir.path);
      const conversation = store.create();
      conversation.stream.startTurn("Log in.");
      const first = setup(UNATTENDED, { login: tool }, conversation.stream);
      await first.coordinator.run([call("call_1", "login")], {
        turn: new TurnState(),
        suspend: true,
      });
      const refused = answerPendingPrompt(conversation.stream, "call_1.token.1", {
        type: "answer",
        value: "hunter2-secret",
      });
      expect(refused._unsafeUnwrapErr().kind).toBe("secret_not_stored");
      await store.save(conversation);

      const loaded = (await store.load(conversation.name))._unsafeUnwrap();
      const second = setup(UNATTENDED, { login: tool }, loaded.stream);
      const result = await second.coordinator.resume({
        answers: { "call_1.token.1": "hunter2-secret" },
      });
      await store.save(loaded);

      expect(seen).toEqual(["hunter2-secret"]);
      expect(result.responses.map((r) => r.content)).toEqual(["logged in"]);
      expect(inquiryEvents(loaded.stream).at(-1)).toMatchObject({
        outcome: "redacted",
        id: "call_1.token.1",
      });
      const files = await readFile(join(dir.path, conversation.name, "events.json"), "utf8");
      expect(files).not.toContain("hunter2");
      expect(files).not.toContain(Buffer.from("hunter2-secret").toString("base64").slice(0, 12));
    } finally {
      await dir.remove();
    }
  });

  it("a call suspended after a secret was answered asks for the secret again when it resumes", async () => {
    const questions = [q("pw", { answer_type: { type: "secret" } }), q("go")];
    const human = new MockPromptBackend({
      questions: [{ type: "answer", value: "s3cret-value" }, { type: "later" }],
    });
    const stream = started();
    const coordinator = new ToolCoordinator({
      stream,
      tools: UNATTENDED,
      executors: new MockExecutorSource({ asker: form(questions) }),
      prompts: human,
    });
    const suspended = await coordinator.run([call("call_1", "asker")], { turn: new TurnState() });
    expect(suspended.pending.map((p) => p.prompt_id)).toEqual(["call_1.go.1"]);
    expect(JSON.stringify(stream.toJSON())).not.toContain("s3cret-value");

    answerPendingPrompt(stream, "call_1.go.1", { type: "answer", value: true })._unsafeUnwrap();
    const resumed = await new ToolCoordinator({
      stream,
      tools: UNATTENDED,
      executors: new MockExecutorSource({ asker: form(questions) }),
    }).resume();
    // The answer to "go" is recorded; the secret is asked again, as its second attempt.
    expect(resumed.pending.map((p) => p.prompt_id)).toEqual(["call_1.pw.2"]);
  });
});

describe("a resumed question a person answers live", () => {
  it("a misfit reply is recorded and the question asked again as its next attempt, with the error", async () => {
    const { stream, coordinator } = setup(UNATTENDED, { asker: form([q("a")]) });
    await coordinator.run([call("call_1", "asker")], { turn: new TurnState(), suspend: true });
    const human = new MockPromptBackend({
      questions: [
        { type: "answer", value: "yes" },
        { type: "answer", value: true },
      ],
    });

    const resumed = await new ToolCoordinator({
      stream,
      tools: UNATTENDED,
      executors: new MockExecutorSource({ asker: form([q("a")]) }),
      prompts: human,
    }).resume();

    expect(human.questions.map((r) => [r.inquiry_id, r.error])).toEqual([
      ["call_1.a.1", undefined],
      ["call_1.a.2", 'expected true or false, got "yes"'],
    ]);
    expect(
      inquiryEvents(stream).map((e) =>
        e.type === "inquiry_request" ? `request ${e.id}` : `${e.outcome} ${e.id}`,
      ),
    ).toEqual([
      "request call_1.a.1",
      "cancelled call_1.a.1",
      "request call_1.a.2",
      "answered call_1.a.2",
    ]);
    expect(toolResponses(stream)).toEqual([
      { id: "call_1", content: '{"a":true}', is_error: false },
    ]);
    expect(resumed.pending).toEqual([]);
  });
});

describe("deadlines", () => {
  async function expiredAt(tools: ToolsConfig, question: Question) {
    const { stream, coordinator } = setup(tools, { asker: form([question]) });
    const suspended = await coordinator.run([call("call_1", "asker")], {
      turn: new TurnState(),
      suspend: { deadlineMs: 1000 },
    });
    const later = new Date(Date.parse(suspended.pending[0]?.suspended_at ?? "") + 5000);
    expect(listPendingPrompts(stream, later)[0]?.expired).toBe(true);
    const resumed = await setup(tools, { asker: form([question]) }, stream).coordinator.resume({
      now: later,
    });
    return { stream, resumed };
  }

  it("an expired question under the default policy is recorded as timeout, never as the person's decision", async () => {
    const { stream, resumed } = await expiredAt(UNATTENDED, q("go"));
    expect(inquiryEvents(stream).at(-1)).toMatchObject({ outcome: "cancelled", reason: "timeout" });
    expect(resumed.responses[0]?.content).toMatch(/^Tool input timed out/);
    expect(resumed.responses[0]?.content).toContain("did not decline");
    expect(resumed.pending).toEqual([]);
  });

  it('an expired question under detached "defaults" takes its default', async () => {
    const tools: ToolsConfig = { "*": { run: "unattended", detached: "defaults" } };
    const { stream, resumed } = await expiredAt(tools, q("go", { default: true }));
    expect(inquiryEvents(stream).at(-1)).toMatchObject({ outcome: "answered", answer: true });
    expect(resumed.responses[0]?.content).toBe('{"go":true}');
  });

  it('an expired permission prompt under detached run "auto" runs the tool; under the default it does not, saying why', async () => {
    for (const [detached, expected] of [
      ["auto", "ran"],
      [
        "deny",
        "Tool not run: no permission decision before the time limit. The user did not decline.",
      ],
    ] as const) {
      const tools: ToolsConfig = { worker: { run: "ask", detached: { run: detached } } };
      const worker = () => new MockExecutor(() => ({ type: "success", content: "ran" }));
      const { stream, coordinator } = setup(tools, { worker: worker() });
      const suspended = await coordinator.run([call("call_1", "worker")], {
        turn: new TurnState(),
        suspend: { deadlineMs: 10 },
      });
      expect(suspended.pending.map((p) => p.prompt_id)).toEqual(["call_1#permission"]);
      const later = new Date(Date.now() + 60_000);
      const resumed = await setup(tools, { worker: worker() }, stream).coordinator.resume({
        now: later,
      });
      expect(toolResponses(stream).map((r) => r.content)).toEqual([expected]);
      expect(resumed.pending).toEqual([]);
    }
  });

  it("a prompt answered before its deadline is applied even when resumed after it", async () => {
    const { stream, coordinator } = setup(UNATTENDED, { asker: form([q("go")]) });
    await coordinator.run([call("call_1", "asker")], {
      turn: new TurnState(),
      suspend: { deadlineMs: 10 },
    });
    answerPendingPrompt(stream, "call_1.go.1", { type: "answer", value: false })._unsafeUnwrap();
    await setup(UNATTENDED, { asker: form([q("go")]) }, stream).coordinator.resume({
      now: new Date(Date.now() + 60_000),
    });
    expect(inquiryEvents(stream).at(-1)).toMatchObject({ outcome: "answered", answer: false });
  });
});

describe("resuming", () => {
  it("with nothing suspended is an empty result that records nothing", async () => {
    const { stream, coordinator } = setup(UNATTENDED, {});
    const before = stream.toJSON();
    const result = await coordinator.resume();
    expect(result).toMatchObject({ responses: [], pending: [], endTurn: false });
    expect(stream.toJSON()).toEqual(before);
  });

  it("keeps unanswered prompts pending when nobody can be asked, and ids never change", async () => {
    const { stream, coordinator } = setup(UNATTENDED, { one: form([q("a")]), two: form([q("b")]) });
    await coordinator.run([call("call_1", "one"), call("call_2", "two")], {
      turn: new TurnState(),
      suspend: true,
    });
    answerPendingPrompt(stream, "call_1.a.1", { type: "answer", value: true })._unsafeUnwrap();
    // The second prompt is answered first: its reply waits for the first, as prompts go in order.
    const result = await setup(
      UNATTENDED,
      { one: form([q("a")]), two: form([q("b")]) },
      stream,
    ).coordinator.resume();
    expect(result.responses.map((r) => r.id)).toEqual(["call_1"]);
    expect(result.pending.map((p) => p.prompt_id)).toEqual(["call_2.b.1"]);
    expect(
      inquiryEvents(stream)
        .filter((e) => e.type === "inquiry_request")
        .map((e) => e.id),
    ).toEqual(["call_1.a.1", "call_2.b.1"]);
  });

  it("a reply to a later prompt waits until the earlier ones are answered", async () => {
    const { stream, coordinator } = setup(UNATTENDED, { one: form([q("a")]), two: form([q("b")]) });
    await coordinator.run([call("call_1", "one"), call("call_2", "two")], {
      turn: new TurnState(),
      suspend: true,
    });
    answerPendingPrompt(stream, "call_2.b.1", { type: "answer", value: false })._unsafeUnwrap();
    const again = () =>
      setup(UNATTENDED, { one: form([q("a")]), two: form([q("b")]) }, stream).coordinator;
    const first = await again().resume();
    expect(first.responses).toEqual([]);
    expect(first.pending.map((p) => [p.prompt_id, p.answered])).toEqual([
      ["call_1.a.1", false],
      ["call_2.b.1", true],
    ]);
    answerPendingPrompt(stream, "call_1.a.1", { type: "answer", value: true })._unsafeUnwrap();
    const second = await again().resume();
    expect(second.responses.map((r) => r.id)).toEqual(["call_1", "call_2"]);
    expect(second.pending).toEqual([]);
  });

  it("a person's own reply to a permission prompt stands over another prompt's decision remembered for the turn", async () => {
    const ran: string[] = [];
    const tool = new MockExecutor((input) => {
      ran.push(input.call.id);
      return { type: "success", content: "deleted" };
    });
    const ASK: ToolsConfig = { delete_branch: { run: "ask" } };
    const { stream, coordinator } = setup(ASK, { delete_branch: tool });
    await coordinator.run(
      [
        call("call_1", "delete_branch", { b: "old" }),
        call("call_2", "delete_branch", { b: "main" }),
      ],
      { turn: new TurnState(), suspend: true },
    );
    answerPendingPrompt(stream, "call_1#permission", {
      type: "run",
      remember: true,
    })._unsafeUnwrap();
    answerPendingPrompt(stream, "call_2#permission", { type: "skip" })._unsafeUnwrap();
    const { responses } = await setup(ASK, { delete_branch: tool }, stream).coordinator.resume();
    expect(ran).toEqual(["call_1"]);
    expect(responses.find((r) => r.id === "call_2")?.content).toContain("skipped by user");
  });

  it("a person's own answer stands over an answer remembered since, and over one configured since", async () => {
    const confirm = q("confirm", { persistence: "turn" } as Partial<Question>);
    const { stream, coordinator } = setup(UNATTENDED, { deploy: form([confirm]) });
    await coordinator.run([call("call_1", "deploy"), call("call_2", "deploy")], {
      turn: new TurnState(),
      suspend: true,
    });
    answerPendingPrompt(stream, "call_1.confirm.1", {
      type: "answer",
      value: true,
      remember: true,
    })._unsafeUnwrap();
    answerPendingPrompt(stream, "call_2.confirm.1", {
      type: "answer",
      value: false,
    })._unsafeUnwrap();
    // Resumed by a host whose configuration now answers the question itself.
    const CONFIGURED: ToolsConfig = {
      "*": { run: "unattended" },
      deploy: { questions: { confirm: { answer: true } } },
    };
    const { responses } = await setup(
      CONFIGURED,
      { deploy: form([confirm]) },
      stream,
    ).coordinator.resume();
    expect(responses.map((r) => [r.id, r.content])).toEqual([
      ["call_1", '{"confirm":true}'],
      ["call_2", '{"confirm":false}'],
    ]);
    expect(
      inquiryEvents(stream)
        .filter((e) => e.type === "inquiry_response")
        .map((e) => [e.id, (e as { answer?: JsonValue }).answer]),
    ).toEqual([
      ["call_1.confirm.1", true],
      ["call_2.confirm.1", false],
    ]);
  });

  it("a resumed prompt is asked live when a person is reachable now", async () => {
    const { stream, coordinator } = setup(UNATTENDED, { asker: form([q("a"), q("b")]) });
    await coordinator.run([call("call_1", "asker")], { turn: new TurnState(), suspend: true });
    const human = new MockPromptBackend({
      questions: [
        { type: "answer", value: true },
        { type: "answer", value: false },
      ],
    });
    const resumed = await new ToolCoordinator({
      stream,
      tools: UNATTENDED,
      executors: new MockExecutorSource({ asker: form([q("a"), q("b")]) }),
      prompts: human,
    }).resume();
    expect(human.questions.map((r) => [r.inquiry_id, r.progress])).toEqual([
      ["call_1.a.1", { index: 1, total: 2 }],
      ["call_1.b.1", { index: 2, total: 2 }],
    ]);
    expect(resumed.responses.map((r) => r.content)).toEqual(['{"a":true,"b":false}']);
  });
});

describe("foreign replies", () => {
  it("a reply that cannot be read as JSON is an invalid reply, not an exception", async () => {
    const { stream, coordinator } = setup(
      { worker: { run: "ask" } },
      {
        worker: new MockExecutor(() => ({ type: "success", content: "ran" })),
      },
    );
    await coordinator.run([call("call_1", "worker")], { turn: new TurnState(), suspend: true });
    const edited = answerPendingPrompt(stream, "call_1#permission", {
      type: "edit",
      arguments: { big: 10n } as never,
    });
    expect(edited._unsafeUnwrapErr().kind).toBe("invalid_reply");
    const typeless = answerPendingPrompt(stream, "call_1#permission", null as never);
    expect(typeless._unsafeUnwrapErr().message).toBe('a reply is an object with a "type"');
    expect(listPendingPrompts(stream)[0]?.answered).toBe(false);
  });
});

describe("checkPromptReply", () => {
  // What answerPendingPrompt keeps for a reply on a fresh copy of the stream, or its refusal.
  function viaStream(stream: ConversationStream, promptId: string, reply: unknown) {
    const copy = ConversationStream.from(structuredClone(stream.events));
    return answerPendingPrompt(copy, promptId, reply as never).match(
      () => ({ kept: keptReply(copy, promptId) }),
      (e) => ({ error: { kind: e.kind, message: e.message } }),
    );
  }

  function keptReply(stream: ConversationStream, promptId: string): unknown {
    for (const event of stream.events) {
      const metadata = (event as { metadata?: Record<string, unknown> }).metadata;
      const marker = metadata?.[PENDING_METADATA_KEY] as
        | { prompt_id?: string; reply?: unknown }
        | undefined;
      if (marker?.prompt_id === promptId) return marker.reply;
    }
    return undefined;
  }

  it("takes and refuses every reply as answerPendingPrompt does, without the stream", async () => {
    const secret = q("s", { answer_type: { type: "secret" } });
    const pick = q("b", { answer_type: { type: "select", options: ["x", "y"] } });
    const asked = setup(UNATTENDED, { asker: form([q("a"), pick, secret]) });
    await asked.coordinator.run([call("call_1", "asker")], {
      turn: new TurnState(),
      suspend: true,
    });
    const gated = setup(
      { worker: { run: "ask" } },
      { worker: new MockExecutor(() => ({ type: "success", content: "ran" })) },
    );
    await gated.coordinator.run([call("call_2", "worker")], {
      turn: new TurnState(),
      suspend: true,
    });
    const cases: [ConversationStream, readonly unknown[]][] = [
      [
        asked.stream,
        [
          { type: "answer", value: true },
          { type: "answer", value: false, remember: true },
          { type: "answer", value: "yes" },
          { type: "back" },
          { type: "end_turn" },
          { type: "cancelled" },
          { type: "run" },
          null,
          "answer",
        ],
      ],
      [
        gated.stream,
        [
          { type: "run", remember: true },
          { type: "skip", reason: "not now" },
          { type: "skip", reason: 7 },
          { type: "edit", arguments: { path: "a.txt" } },
          { type: "edit", arguments: ["a.txt"] },
          { type: "edit", arguments: { big: 10n } },
          { type: "answer", value: true },
        ],
      ],
    ];
    for (const [stream, replies] of cases) {
      const pending = listPendingPrompts(stream)[0] as PendingPrompt;
      for (const reply of replies) {
        const checked = checkPromptReply(pending.request, reply as never).match(
          (kept) => ({ kept }),
          (error) => ({ error }),
        );
        expect(checked).toEqual(viaStream(stream, pending.prompt_id, reply));
      }
    }
  });

  it("refuses a secret's answer as never stored, and a reply read through a throwing getter as invalid", async () => {
    const { stream, coordinator } = setup(UNATTENDED, {
      asker: form([q("s", { answer_type: { type: "secret" } })]),
    });
    await coordinator.run([call("call_1", "asker")], { turn: new TurnState(), suspend: true });
    const { request } = listPendingPrompts(stream)[0] as PendingPrompt;
    expect(
      checkPromptReply(request, { type: "answer", value: "hunter2" })._unsafeUnwrapErr(),
    ).toEqual({
      kind: "secret_not_stored",
      message:
        "a secret's answer is never stored: pass it to resume({ answers }) or answer it at the resumed prompt",
    });
    const hostile = {
      get type(): string {
        throw new Error("no type here");
      },
    };
    expect(checkPromptReply(request, hostile as never)._unsafeUnwrapErr()).toEqual({
      kind: "invalid_reply",
      message: "the reply could not be read: no type here",
    });
  });
});

describe("two processes answering the same prompt at once", () => {
  it("exactly one answer is saved; the other process gets a conflict, reloads and finds it already answered", async () => {
    const { execFile } = await import("node:child_process");
    const { promisify } = await import("node:util");
    const run = promisify(execFile);
    const dir = await tempDir();
    try {
      const store = new FileConversationStore(dir.path);
      const conversation = store.create({ title: "race" });
      conversation.stream.startTurn("Go.");
      const { coordinator } = setup(UNATTENDED, { asker: form([q("go")]) }, conversation.stream);
      await coordinator.run([call("call_1", "asker")], { turn: new TurnState(), suspend: true });
      (await store.save(conversation))._unsafeUnwrap();

      const script = join(import.meta.dirname, "fixtures/answer.ts");
      const startAt = String(Date.now() + 1500);
      const answer = (value: boolean) =>
        run(
          process.execPath,
          [
            "--conditions=@jp/source",
            "--import",
            "tsx",
            script,
            dir.path,
            conversation.name,
            "call_1.go.1",
            JSON.stringify({ type: "answer", value }),
            startAt,
          ],
          { cwd: join(import.meta.dirname, "../..") },
        ).then(({ stdout }) => JSON.parse(stdout) as string[]);
      const outcomes = await Promise.all([answer(true), answer(false)]);

      // One saved on its first try; the other either lost the race (conflict, then found the
      // prompt answered) or came second (already answered at once).
      const winners = outcomes.filter((o) => o.at(-1) === "saved");
      expect(winners).toHaveLength(1);
      const loser = outcomes.find((o) => o.at(-1) !== "saved");
      expect([["conflict", "already_answered"], ["already_answered"]]).toContainEqual(loser);

      const loaded = (await store.load(conversation.name))._unsafeUnwrap();
      expect(listPendingPrompts(loaded.stream).map((p) => p.answered)).toEqual([true]);
      await setup(UNATTENDED, { asker: form([q("go")]) }, loaded.stream).coordinator.resume();
      const responses = inquiryEvents(loaded.stream).filter((e) => e.type === "inquiry_response");
      expect(responses).toHaveLength(1);
    } finally {
      await dir.remove();
    }
  }, 30_000);
});

describe("promptTimeoutMs limits", () => {
  it("zero, negative and NaN reject before anything is recorded; Infinity means no limit", async () => {
    for (const bad of [0, -5, Number.NaN]) {
      const { stream, coordinator } = setup(UNATTENDED, { asker: form([q("go")]) });
      const before = stream.toJSON();
      await expect(
        coordinator.run([call("call_1", "asker")], { turn: new TurnState(), promptTimeoutMs: bad }),
      ).rejects.toThrow(RangeError);
      expect(stream.toJSON()).toEqual(before);
    }
    const human = new MockPromptBackend({ questions: [{ type: "answer", value: true }] });
    const stream = started();
    const result = await new ToolCoordinator({
      stream,
      tools: UNATTENDED,
      executors: new MockExecutorSource({ asker: form([q("go")]) }),
      prompts: human,
    }).run([call("call_1", "asker")], {
      turn: new TurnState(),
      promptTimeoutMs: Number.POSITIVE_INFINITY,
    });
    expect(result.responses.map((r) => r.content)).toEqual(['{"go":true}']);
  });
});

describe("answerPendingPromptInStore", () => {
  it("loads, answers and saves; of two answers given at once one is kept and the other is already_answered", async () => {
    const { answerPendingPromptInStore } = await import("../../src/index.js");
    const dir = await tempDir();
    try {
      const store = new FileConversationStore(dir.path);
      const conversation = store.create();
      conversation.stream.startTurn("Go.");
      const { coordinator } = setup(UNATTENDED, { asker: form([q("go")]) }, conversation.stream);
      await coordinator.run([call("call_1", "asker")], { turn: new TurnState(), suspend: true });
      (await store.save(conversation))._unsafeUnwrap();

      const answers = await Promise.all(
        [true, false].map((value) =>
          answerPendingPromptInStore(store, conversation.name, "call_1.go.1", {
            type: "answer",
            value,
          }),
        ),
      );
      expect(answers.filter((a) => a.isOk())).toHaveLength(1);
      expect(answers.find((a) => a.isErr())?._unsafeUnwrapErr().kind).toBe("already_answered");

      const invalid = await answerPendingPromptInStore(store, conversation.name, "call_1.go.1", {
        type: "answer",
        value: "maybe",
      });
      expect(invalid._unsafeUnwrapErr().kind).toBe("already_answered");
      const missing = await answerPendingPromptInStore(store, "1234-nope", "call_1.go.1", {
        type: "answer",
        value: true,
      });
      expect(missing._unsafeUnwrapErr()).toMatchObject({
        kind: "store",
        error: { kind: "not-found" },
      });
    } finally {
      await dir.remove();
    }
  });
});

describe("claims while a worker resumes", () => {
  it("an answer waits (claimed) while a claim holds, and is taken once its lease has run out", async () => {
    const { PENDING_METADATA_KEY } = await import("../../src/index.js");
    const { stream, coordinator } = setup(UNATTENDED, { asker: form([q("go")]) });
    await coordinator.run([call("call_1", "asker")], { turn: new TurnState(), suspend: true });
    const index = stream.events.findIndex((e) => e.type === "tool_call_request");
    const marker = (stream.events[index] as { metadata: Record<string, JsonValue> }).metadata[
      PENDING_METADATA_KEY
    ] as Record<string, JsonValue>;
    const until = new Date(Date.now() + 60_000);
    stream.setMetadata(index, PENDING_METADATA_KEY, {
      ...marker,
      claim: { owner: "worker 7", until: until.toISOString() },
    });
    const now = answerPendingPrompt(stream, "call_1.go.1", { type: "answer", value: true });
    expect(now._unsafeUnwrapErr()).toMatchObject({ kind: "claimed", until: until.toISOString() });
    expect(now._unsafeUnwrapErr().message).toContain('"worker 7"');
    const later = answerPendingPrompt(
      stream,
      "call_1.go.1",
      { type: "answer", value: true },
      new Date(until.getTime() + 1),
    );
    expect(later.isOk()).toBe(true);
  });
});
