import { ConversationStream } from "@jp/conversation";
import {
  type BuiltinTool,
  builtinExecutorSource,
  type QuestionReply,
  type RunResult,
  ToolCoordinator,
  TurnState,
} from "@jp/coordinator";
import { MockPromptBackend, type Scripted, waitForAbort } from "@jp/coordinator/testing";
import { describe, expect, it } from "vitest";
import { askUser, builtinToolConfigs, subAgentPrompts } from "../src/index.js";
import { trail } from "./helpers.js";

type Script = Scripted<Parameters<MockPromptBackend["ask"]>[0] & { kind: "question" }>;

// The sub-agent asks a form of two questions, so the second one offers Back.
const FORM = {
  questions: [
    { id: "dir", text: "Which directory?", answer_type: "text" },
    { id: "deep", text: "Search subfolders?", answer_type: "boolean" },
  ],
};

/**
 * A tool that runs a sub-agent asking `args` through the parent's human, recording in `stream`;
 * `done` receives the sub-agent's run result.
 */
function subAgent(
  parentOf: () => ToolCoordinator | undefined,
  toolCallId: string,
  stream: ConversationStream,
  done: (result: RunResult) => void,
  args = FORM,
): BuiltinTool {
  return {
    async execute({ signal }) {
      stream.startTurn("Find the config file.");
      const parent = parentOf();
      const coordinator = new ToolCoordinator({
        stream,
        tools: builtinToolConfigs(),
        executors: builtinExecutorSource({ ask_user: askUser }),
        prompts: subAgentPrompts({
          agent: "researcher",
          ...(parent === undefined ? {} : { parent: { coordinator: parent, toolCallId } }),
        }),
      });
      const result = await coordinator.run(
        [{ id: "call_child", name: "ask_user", arguments: args }],
        { turn: new TurnState(), signal },
      );
      done(result);
      return { type: "success", content: result.responses[0]?.content ?? "" };
    },
  };
}

/**
 * A parent whose `research` call runs a sub-agent that asks {@link FORM} through the parent's
 * human, scripted by `replies`. Returns both conversations' inquiry trails, both runs' results
 * and what each tool call returned. With `queued`, a second call asks a question once the
 * sub-agent's is on screen: the parent's own (`confirm`), or a second sub-agent's (`second`).
 */
async function escalated(
  replies: readonly Script[],
  options: { signal?: AbortSignal; queued?: "confirm" | "second" } = {},
) {
  const parentStream = ConversationStream.empty();
  parentStream.startTurn("Research.");
  const childStream = ConversationStream.empty();
  const secondStream = ConversationStream.empty();
  // With a second sub-agent, the person replies once its question waits in line at the parent.
  let secondQueued: () => void = () => {};
  const queued = new Promise<void>((resolve) => {
    secondQueued = resolve;
  });
  const [first, ...rest] = replies;
  const human = new MockPromptBackend({
    questions:
      options.queued === "second" && first !== undefined && typeof first !== "function"
        ? [() => queued.then(() => first), ...rest]
        : replies,
  });
  let child: RunResult | undefined;
  let second: RunResult | undefined;
  let parent: ToolCoordinator | undefined;
  const research = subAgent(
    () => parent,
    "call_parent",
    childStream,
    (result) => {
      child = result;
    },
  );
  // The parent's own question, asked once the sub-agent's is on screen: it waits in line behind it.
  let firstShown: () => void = () => {};
  const shown = new Promise<void>((resolve) => {
    firstShown = resolve;
  });
  const later = (tool: BuiltinTool): BuiltinTool => ({
    async execute(input) {
      await shown;
      return tool.execute(input);
    },
  });
  const confirm: BuiltinTool = {
    async execute({ answers }) {
      if (answers.ok !== undefined) return { type: "success", content: "confirmed" };
      const question = { id: "ok", text: "Proceed?", answer_type: { type: "boolean" } } as const;
      return { type: "needs_input", question };
    },
  };
  parent = new ToolCoordinator({
    stream: parentStream,
    tools: {
      ...builtinToolConfigs(),
      research: { run: "unattended" },
      confirm: { run: "unattended" },
      second: { run: "unattended" },
    },
    executors: builtinExecutorSource({
      research,
      confirm: later(confirm),
      second: later(
        subAgent(
          () => parent,
          "call_second",
          secondStream,
          (result) => {
            second = result;
          },
          { questions: [{ id: "scope", text: "Whole repo?", answer_type: "boolean" }] },
        ),
      ),
    }),
    prompts: human,
  });
  parent.once("prompt-shown", () => firstShown());
  parent.on("inquiry-recorded", ({ event }) => {
    if (event.type === "inquiry_request" && event.id.startsWith("call_second.")) secondQueued();
  });
  const calls = [{ id: "call_parent", name: "research", arguments: {} }];
  if (options.queued === "confirm")
    calls.push({ id: "call_confirm", name: "confirm", arguments: {} });
  if (options.queued === "second") calls.push({ id: "call_second", name: "second", arguments: {} });
  const result = await parent.run(calls, {
    turn: new TurnState(),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
  if (child === undefined) throw new Error("the sub-agent did not run");
  return {
    parent: { result, trail: trail(parentStream.events) },
    child: {
      result: child,
      trail: trail(childStream.events),
      content: child.responses[0]?.content,
    },
    second: { result: second, trail: trail(secondStream.events) },
    human,
  };
}

describe("a sub-agent's question answered with a control at the parent", () => {
  it("End Turn reaches the sub-agent as End Turn: both record end_turn and both runs end the turn", async () => {
    const { parent, child } = await escalated([{ type: "end_turn" }]);

    expect(child.trail).toEqual([
      ["request", "call_child.dir.1"],
      ["cancelled", "call_child.dir.1", "end_turn"],
    ]);
    expect(child.content).toBe("The user ended the turn.");
    expect(child.result.endTurn).toBe(true);
    expect(parent.trail).toEqual([
      ["request", "call_parent.dir.1"],
      ["cancelled", "call_parent.dir.1", "end_turn"],
    ]);
    expect(parent.result.endTurn).toBe(true);
    expect(parent.result.responses[0]?.content).toBe("The user ended the turn.");
  });

  it("End Turn there closes the parent's prompts queued behind it, unseen", async () => {
    const { parent, child, human } = await escalated([{ type: "end_turn" }], { queued: "confirm" });

    expect(human.questions.map((q) => q.question.id)).toEqual(["dir"]);
    expect(child.trail).toEqual([
      ["request", "call_child.dir.1"],
      ["cancelled", "call_child.dir.1", "end_turn"],
    ]);
    expect(child.result.endTurn).toBe(true);
    expect(parent.trail).toEqual([
      ["request", "call_parent.dir.1"],
      ["request", "call_confirm.ok.1"],
      ["cancelled", "call_parent.dir.1", "end_turn"],
      ["cancelled", "call_confirm.ok.1", "turn_ended"],
    ]);
    expect(parent.result.endTurn).toBe(true);
    expect(parent.result.responses.map((r) => r.content)).toEqual([
      "The user ended the turn.",
      "The user ended the turn.",
    ]);
  });

  it("End Turn there closes another sub-agent's question queued behind it, in both conversations", async () => {
    const { parent, child, second, human } = await escalated([{ type: "end_turn" }], {
      queued: "second",
    });

    expect(human.questions.map((q) => q.question.id)).toEqual(["dir"]);
    expect(child.trail).toEqual([
      ["request", "call_child.dir.1"],
      ["cancelled", "call_child.dir.1", "end_turn"],
    ]);
    expect(child.result.endTurn).toBe(true);
    // The other sub-agent's question was never shown: the turn ended, nobody declined it.
    expect(second.trail).toEqual([
      ["request", "call_child.scope.1"],
      ["cancelled", "call_child.scope.1", "turn_ended"],
    ]);
    expect(second.result?.endTurn).toBe(false);
    expect(parent.trail).toEqual([
      ["request", "call_parent.dir.1"],
      ["request", "call_second.scope.1"],
      ["cancelled", "call_parent.dir.1", "end_turn"],
      ["cancelled", "call_second.scope.1", "turn_ended"],
    ]);
    expect(parent.result.endTurn).toBe(true);
  });

  it("a control the question did not offer counts as a cancel in both conversations", async () => {
    // Back at the first question: there is nothing to go back to, so it was not offered.
    const { parent, child, human } = await escalated([{ type: "back" }]);

    expect(human.questions[0]?.controls.back).toBe(false);
    expect(child.trail).toEqual([
      ["request", "call_child.dir.1"],
      ["cancelled", "call_child.dir.1", "user"],
    ]);
    expect(parent.trail).toEqual([
      ["request", "call_parent.dir.1"],
      ["cancelled", "call_parent.dir.1", "user"],
    ]);
    expect(parent.result.endTurn).toBe(false);
  });

  it("Reply reaches the sub-agent as Reply, with the answers so far and the message", async () => {
    const { parent, child } = await escalated([
      { type: "answer", value: "/etc" },
      { type: "reply", message: "Look in /opt instead." },
    ]);

    expect(child.trail).toEqual([
      ["request", "call_child.dir.1"],
      ["answered", "call_child.dir.1", '"/etc"'],
      ["request", "call_child.deep.1"],
      ["cancelled", "call_child.deep.1", "reply"],
    ]);
    expect(JSON.parse(child.content ?? "")).toEqual({
      cancelled: true,
      answered: { dir: "/etc" },
      message: "Look in /opt instead.",
    });
    expect(child.result.endTurn).toBe(false);
    expect(parent.trail).toEqual([
      ["request", "call_parent.dir.1"],
      ["answered", "call_parent.dir.1", '"/etc"'],
      ["request", "call_parent.deep.1"],
      ["cancelled", "call_parent.deep.1", "reply"],
    ]);
    expect(parent.result.endTurn).toBe(false);
    expect(parent.result.responses[0]?.content).toBe(child.content);
  });

  it("Back reaches the sub-agent as Back: it asks the earlier question again", async () => {
    const { parent, child, human } = await escalated([
      { type: "answer", value: "/etc" },
      { type: "back" },
      { type: "answer", value: "/opt" },
      { type: "answer", value: false },
    ]);

    expect(human.questions.map((q) => q.question.id)).toEqual(["dir", "deep", "dir", "deep"]);
    expect(human.questions[1]?.controls.back).toBe(true);
    expect(child.trail).toEqual([
      ["request", "call_child.dir.1"],
      ["answered", "call_child.dir.1", '"/etc"'],
      ["request", "call_child.deep.1"],
      ["cancelled", "call_child.deep.1", "back"],
      ["request", "call_child.dir.2"],
      ["answered", "call_child.dir.2", '"/opt"'],
      ["request", "call_child.deep.2"],
      ["answered", "call_child.deep.2", "false"],
    ]);
    expect(JSON.parse(child.content ?? "")).toEqual({ dir: "/opt", deep: false });
    expect(parent.trail).toEqual(
      child.trail.map((row) => row.map((cell) => cell.replace("call_child", "call_parent"))),
    );
    expect(parent.result.endTurn).toBe(false);
  });

  it("the person's cancel is recorded as theirs in both conversations", async () => {
    const { parent, child } = await escalated([{ type: "cancelled" }]);

    expect(child.trail).toEqual([
      ["request", "call_child.dir.1"],
      ["cancelled", "call_child.dir.1", "user"],
    ]);
    expect(child.content).toBe("Tool input cancelled by user.");
    expect(child.result.endTurn).toBe(false);
    expect(parent.trail).toEqual([
      ["request", "call_parent.dir.1"],
      ["cancelled", "call_parent.dir.1", "user"],
    ]);
    expect(parent.result.endTurn).toBe(false);
  });
});

describe("a sub-agent's question open when the parent's run is stopped", () => {
  it.each<[string, () => unknown, string, RegExp]>([
    ["Ctrl+C", () => undefined, "user", /^Tool input cancelled by user\.$/],
    ["a shutdown", () => new Error("shutting down"), "interrupted", /^Tool input interrupted: /],
    [
      "a deadline",
      () => new DOMException("late", "TimeoutError"),
      "timeout",
      /^Tool input timed out: /,
    ],
  ])(
    "%s is recorded as what happened in both conversations",
    async (_name, reason, cause, text) => {
      const controller = new AbortController();
      const wait = waitForAbort<QuestionReply>();
      const { parent, child } = await escalated(
        [
          (request, signal) => {
            queueMicrotask(() => controller.abort(reason()));
            return wait(request, signal);
          },
        ],
        { signal: controller.signal },
      );

      expect(child.trail).toEqual([
        ["request", "call_child.dir.1"],
        ["cancelled", "call_child.dir.1", cause],
      ]);
      expect(child.content).toMatch(text);
      expect(child.result.endTurn).toBe(false);
      expect(parent.trail).toEqual([
        ["request", "call_parent.dir.1"],
        ["cancelled", "call_parent.dir.1", cause],
      ]);
      expect(parent.result.endTurn).toBe(false);
    },
  );
});
