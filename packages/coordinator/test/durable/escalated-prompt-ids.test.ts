// The permission and delivery prompts a sub-agent escalates through the tool call that hosts it
// are shown under the hosting call, each with a prompt id of its own: never the hosting call's
// own `<call>#permission` / `#deliver`, never another sub-agent prompt's. Prompt ids are what a
// person answers a pending prompt by, and what a resumed turn finds its replies, deadlines and
// places in line by.
import { ConversationStream, type StreamEvent } from "@jp/conversation";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  answerPendingPrompt,
  type Executor,
  listPendingPrompts,
  type PromptBackend,
  type PromptRequest,
  ToolCoordinator,
  type ToolsConfig,
  TurnState,
} from "../../src/index.js";
import { MockPromptBackend } from "../../src/testing/index.js";

type Modes = { readonly run: "ask" | "unattended"; readonly result: "ask" | "unattended" };

const UNATTENDED: Modes = { run: "unattended", result: "unattended" };
const CALL = { id: "call_0", name: "alpha", arguments: {} };
/** What the sub-agent's calls of `gamma` run with: two at once, the second a riskier one. */
const SUB_CALLS = [
  { id: "sub_0", name: "gamma", arguments: { path: "/tmp/old" } },
  { id: "sub_1", name: "gamma", arguments: { path: "/" } },
];

function started(): ConversationStream {
  const stream = ConversationStream.empty();
  stream.startTurn("Go.");
  return stream;
}

/**
 * A tool whose every pass runs a fresh sub-agent, `helper`, with the first `calls` of
 * {@link SUB_CALLS} at once, its prompts escalated to the parent (as `subAgentPrompts` in
 * @jp/builtins does). Its result lists the sub-agent's responses.
 */
function hostingSubAgent(parent: () => ToolCoordinator, sub: Modes, calls: number): Executor {
  return {
    async execute({ call, signal }) {
      const child = new ToolCoordinator({
        stream: started(),
        tools: { gamma: sub } as ToolsConfig,
        executors: {
          executorFor: (c) => ({
            execute: async () => ({
              type: "completed",
              content: `gamma ran ${JSON.stringify(c.arguments)}`,
              is_error: false,
            }),
          }),
        },
        prompts: {
          isHumanReachable: () => parent().humanReachableFor(call.id),
          ask: (request, options) => parent().escalate(call.id, "helper", request, options),
        },
      });
      const ran = await child.run(SUB_CALLS.slice(0, calls), { turn: new TurnState(), signal });
      return {
        type: "completed",
        content: JSON.stringify(ran.responses.map((r) => [r.id, r.content])),
        is_error: false,
      };
    },
  };
}

/** A parent whose tool `alpha` hosts the sub-agent. */
function parentOf(
  stream: ConversationStream,
  options: { host?: Modes; sub: Modes; calls?: number; prompts?: PromptBackend },
): ToolCoordinator {
  const coordinator: ToolCoordinator = new ToolCoordinator({
    stream,
    tools: { alpha: options.host ?? UNATTENDED } as ToolsConfig,
    executors: {
      executorFor: () => hostingSubAgent(() => coordinator, options.sub, options.calls ?? 2),
    },
    ...(options.prompts === undefined ? {} : { prompts: options.prompts }),
  });
  return coordinator;
}

/** The stream as another process would read it: encoded, then decoded. */
function reloaded(stream: ConversationStream): ConversationStream {
  return ConversationStream.decode(JSON.parse(JSON.stringify(stream.toJSON())))._unsafeUnwrap();
}

/** The response recorded for each call of the parent, parsed when it is the sub-agent's list. */
function responses(events: readonly StreamEvent[]): unknown[] {
  return events.flatMap((e) => {
    if (e.type !== "tool_call_response") return [];
    const content = String(e.content);
    return [content.startsWith("[") ? JSON.parse(content) : content];
  });
}

const shownAs = (request: PromptRequest) =>
  request.kind === "question"
    ? [request.kind, request.inquiry_id]
    : [request.kind, request.tool_name, request.tool_call_id, request.prompt_id];

describe("a sub-agent's permission and delivery prompts, escalated through the hosting call", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("live: its concurrent calls' permission prompts are shown one at a time, each under an id of its own, and each reply reaches its own call", async () => {
    const person = new MockPromptBackend({
      permissions: [{ type: "run" }, { type: "skip" }],
      deliveries: [{ type: "edit", content: "old files removed" }],
    });
    const stream = started();
    const parent = parentOf(stream, { sub: { run: "ask", result: "ask" }, prompts: person });
    const shown: unknown[] = [];
    parent.on("prompt-shown", ({ request }) => shown.push(shownAs(request)));

    await parent.run([CALL], { turn: new TurnState() });

    expect(person.maxConcurrentPrompts).toBe(1);
    expect(shown).toEqual([
      ["permission", "gamma", "call_0", "call_0#permission/helper/sub_0/1"],
      ["permission", "gamma", "call_0", "call_0#permission/helper/sub_1/1"],
      ["deliver", "gamma", "call_0", "call_0#deliver/helper/sub_0/1"],
    ]);
    expect(responses(stream.events)).toEqual([
      [
        ["sub_0", "old files removed"],
        ["sub_1", "Tool skipped by user."],
      ],
    ]);
    person.assertScriptUsed();
  });

  it("suspended: each is pending under an id of its own, and an answer sent again to the first does not approve the second", async () => {
    const sub: Modes = { run: "ask", result: "unattended" };
    let stream = started();
    const first = await parentOf(stream, { sub }).run([CALL], {
      turn: new TurnState(),
      suspend: true,
    });
    expect(first.pending.map((p) => [p.prompt_id, p.tool_call_id, p.agent])).toEqual([
      ["call_0#permission/helper/sub_0/1", "call_0", "helper"],
    ]);
    const firstId = first.pending[0]?.prompt_id ?? "";
    answerPendingPrompt(stream, firstId, { type: "run" })._unsafeUnwrap();

    stream = reloaded(stream);
    const second = await parentOf(stream, { sub }).resume({ suspend: true });
    expect(second.pending.map((p) => [p.prompt_id, p.request])).toEqual([
      [
        "call_0#permission/helper/sub_1/1",
        {
          kind: "permission",
          tool_name: "gamma",
          tool_call_id: "call_0",
          prompt_id: "call_0#permission/helper/sub_1/1",
          arguments: { path: "/" },
          mode: "ask",
        },
      ],
    ]);
    // The person's client sends its answer to the first prompt again (it saw no confirmation):
    // that prompt is gone, and the one now pending, which they have not seen, is not approved.
    const again = answerPendingPrompt(stream, firstId, { type: "run" });
    expect(again._unsafeUnwrapErr().kind).toBe("unknown_prompt");
    expect(listPendingPrompts(stream).map((p) => p.answered)).toEqual([false]);

    answerPendingPrompt(stream, "call_0#permission/helper/sub_1/1", {
      type: "skip",
    })._unsafeUnwrap();
    stream = reloaded(stream);
    const last = await parentOf(stream, { sub }).resume({ suspend: true });
    expect(last.pending).toEqual([]);
    expect(responses(stream.events)).toEqual([
      [
        ["sub_0", 'gamma ran {"path":"/tmp/old"}'],
        ["sub_1", "Tool skipped by user."],
      ],
    ]);
  });

  it("the hosting call's own permission prompt and then its sub-agent's: the second has an id, a suspension time and a deadline of its own", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const t0 = Date.parse("2026-03-01T10:00:00.000Z");
    const at = (seconds: number) => new Date(t0 + seconds * 1000).toISOString();
    const host: Modes = { run: "ask", result: "unattended" };
    const sub: Modes = { run: "ask", result: "unattended" };
    const suspend = { deadlineMs: 60_000 };

    vi.setSystemTime(t0);
    let stream = started();
    const first = await parentOf(stream, { host, sub, calls: 1 }).run([CALL], {
      turn: new TurnState(),
      suspend,
    });
    expect(first.pending.map((p) => [p.prompt_id, p.request.tool_name, p.deadline])).toEqual([
      ["call_0#permission", "alpha", at(60)],
    ]);

    vi.setSystemTime(t0 + 50_000);
    answerPendingPrompt(stream, "call_0#permission", { type: "run" })._unsafeUnwrap();
    stream = reloaded(stream);
    const second = await parentOf(stream, { host, sub, calls: 1 }).resume({ suspend });
    expect(
      second.pending.map((p) => [p.prompt_id, p.request.tool_name, p.suspended_at, p.deadline]),
    ).toEqual([["call_0#permission/helper/sub_0/1", "gamma", at(50), at(110)]]);

    // Twenty seconds into its minute, the person is back: they are asked, not timed out.
    vi.setSystemTime(t0 + 70_000);
    const person = new MockPromptBackend({ permissions: [{ type: "run" }] });
    stream = reloaded(stream);
    const last = await parentOf(stream, { host, sub, calls: 1, prompts: person }).resume();
    expect(last.pending).toEqual([]);
    expect(person.requests.map(shownAs)).toEqual([
      ["permission", "gamma", "call_0", "call_0#permission/helper/sub_0/1"],
    ]);
    expect(responses(stream.events)).toEqual([[["sub_0", 'gamma ran {"path":"/tmp/old"}']]]);
  });

  it("a sub-agent's delivery prompt past its deadline does not decide the hosting call's own delivery prompt", async () => {
    const host: Modes = { run: "unattended", result: "ask" };
    const sub: Modes = { run: "unattended", result: "ask" };
    let stream = started();
    const first = await parentOf(stream, { host, sub, calls: 1 }).run([CALL], {
      turn: new TurnState(),
      suspend: { deadlineMs: 60_000 },
    });
    expect(first.pending.map((p) => p.prompt_id)).toEqual(["call_0#deliver/helper/sub_0/1"]);

    const person = new MockPromptBackend({ deliveries: [{ type: "deliver" }] });
    stream = reloaded(stream);
    const late = new Date(Date.parse(first.pending[0]?.deadline ?? "") + 1000);
    await parentOf(stream, { host, sub, calls: 1, prompts: person }).resume({ now: late });

    // Nobody answered the sub-agent's prompt in time; the hosting call's own prompt is asked.
    expect(person.requests.map(shownAs)).toEqual([["deliver", "alpha", "call_0", undefined]]);
    expect(responses(stream.events)).toEqual([
      [["sub_0", expect.stringContaining("nobody answered in time")]],
    ]);
  });
});

// Conversations saved while a sub-agent's permission or delivery prompt was pending under the
// hosting call's own prompt id (`call_0#permission`, `call_0#deliver`), as written before those
// prompts had ids of their own: the first pending at sub-agent call `sub_0` of two, the second
// at the only one, with a deadline.
const SAVED_AT_PERMISSION = `[{"timestamp":"2026-11-27 21:53:17.008","type":"turn_start"},{"timestamp":"2026-11-27 21:53:17.008","type":"chat_request","content":"Go."},{"timestamp":"2026-11-27 21:53:17.01","type":"tool_call_request","id":"call_0","name":"alpha","arguments":{},"metadata":{"pending_prompt":{"v":1,"prompt_id":"call_0#permission","seq":0,"request":{"kind":"permission","tool_name":"gamma","tool_call_id":"call_0","arguments":{"path":"/tmp/old"},"mode":"ask"},"walk":{"answers":[],"prefill":[]},"asked":0,"escalated":{"agent":"helper","done":[]},"turn":{"remembered_tool_answers":{},"remembered_permission_decisions":{},"attempts":[]},"suspended_at":"2026-11-27T21:53:17.019Z"}}}]`;
const SAVED_AT_DELIVERY = `[{"timestamp":"2026-11-27 21:53:17.029","type":"turn_start"},{"timestamp":"2026-11-27 21:53:17.029","type":"chat_request","content":"Go."},{"timestamp":"2026-11-27 21:53:17.03","type":"tool_call_request","id":"call_0","name":"alpha","arguments":{},"metadata":{"pending_prompt":{"v":1,"prompt_id":"call_0#deliver","seq":0,"request":{"kind":"deliver","tool_name":"gamma","tool_call_id":"call_0","content":"gamma ran {\\"path\\":\\"/tmp/old\\"}","is_error":false,"mode":"ask"},"walk":{"answers":[],"prefill":[]},"asked":0,"escalated":{"agent":"helper","done":[]},"turn":{"remembered_tool_answers":{},"remembered_permission_decisions":{},"attempts":[]},"suspended_at":"2026-11-27T21:53:17.031Z","deadline":"2026-11-27T21:54:17.031Z"}}}]`;

const load = (saved: string) => ConversationStream.decode(JSON.parse(saved))._unsafeUnwrap();

describe("a turn saved at a sub-agent's prompt under the hosting call's own prompt id", () => {
  it("is answered by that id and resumes; the sub-agent's next prompt gets an id of its own", async () => {
    const sub: Modes = { run: "ask", result: "unattended" };
    let stream = load(SAVED_AT_PERMISSION);
    expect(listPendingPrompts(stream).map((p) => [p.prompt_id, p.agent])).toEqual([
      ["call_0#permission", "helper"],
    ]);
    answerPendingPrompt(stream, "call_0#permission", { type: "run" })._unsafeUnwrap();

    stream = reloaded(stream);
    const resumed = await parentOf(stream, { sub }).resume({ suspend: true });
    expect(resumed.pending.map((p) => [p.prompt_id, p.request.tool_name])).toEqual([
      ["call_0#permission/helper/sub_1/1", "gamma"],
    ]);
    answerPendingPrompt(stream, "call_0#permission/helper/sub_1/1", {
      type: "skip",
    })._unsafeUnwrap();

    stream = reloaded(stream);
    const last = await parentOf(stream, { sub }).resume({ suspend: true });
    expect(last.pending).toEqual([]);
    expect(responses(stream.events)).toEqual([
      [
        ["sub_0", 'gamma ran {"path":"/tmp/old"}'],
        ["sub_1", "Tool skipped by user."],
      ],
    ]);
  });

  it("past its deadline, it does not decide the hosting call's own delivery prompt", async () => {
    const stream = load(SAVED_AT_DELIVERY);
    const person = new MockPromptBackend({ deliveries: [{ type: "deliver" }] });
    const host: Modes = { run: "unattended", result: "ask" };
    const sub: Modes = { run: "unattended", result: "ask" };
    await parentOf(stream, { host, sub, calls: 1, prompts: person }).resume({
      now: new Date("2026-11-27T21:54:18.000Z"),
    });

    expect(person.requests.map(shownAs)).toEqual([["deliver", "alpha", "call_0", undefined]]);
    expect(responses(stream.events)).toEqual([
      [["sub_0", expect.stringContaining("nobody answered in time")]],
    ]);
  });
});
