import { ConversationStream, type StreamEvent } from "@jp/conversation";
import {
  answerPendingPrompt,
  type BuiltinTool,
  builtinExecutorSource,
  combineExecutorSources,
  layerToolsConfigs,
  ToolCoordinator,
  TurnState,
} from "@jp/coordinator";
import { MockExecutor, MockExecutorSource, MockPromptBackend } from "@jp/coordinator/testing";
import { describe, expect, it } from "vitest";
import { askUser, builtinToolConfigs, subAgentPrompts } from "../src/index.js";

const sources = (events: readonly StreamEvent[]) =>
  events.flatMap((e) =>
    e.type === "inquiry_request" ? [[String(e.id), JSON.stringify(e.source)]] : [],
  );
const outcomes = (events: readonly StreamEvent[]) =>
  events.flatMap((e) => (e.type === "inquiry_response" ? [[String(e.id), String(e.outcome)]] : []));

/** A tool whose pass runs a whole sub-agent: its own stream and coordinator, asking one question. */
function researcher(
  parentOf: () => ToolCoordinator | undefined,
  childStream: ConversationStream,
): BuiltinTool {
  return {
    async execute({ signal }) {
      childStream.startTurn("Find the config file.");
      const parent = parentOf();
      const child = new ToolCoordinator({
        stream: childStream,
        tools: builtinToolConfigs(),
        executors: builtinExecutorSource({ ask_user: askUser }),
        prompts: subAgentPrompts({
          agent: "researcher",
          ...(parent === undefined
            ? {}
            : { parent: { coordinator: parent, toolCallId: "call_parent" } }),
          standalone: new MockPromptBackend({
            questions: [{ type: "answer", value: "standalone" }],
          }),
        }),
      });
      const { responses } = await child.run(
        [{ id: "call_child", name: "ask_user", arguments: { question: "Which directory?" } }],
        { turn: new TurnState(), signal },
      );
      return { type: "success", content: responses[0]?.content ?? "" };
    },
  };
}

describe("sub-agent escalation", () => {
  it("asks the parent's human, in line with the parent's prompts, recorded in both conversations", async () => {
    const human = new MockPromptBackend({
      questions: [
        (request) => ({ type: "answer", value: request.tool_name === "ask_user" ? "/etc" : true }),
        (request) => ({ type: "answer", value: request.tool_name === "ask_user" ? "/etc" : true }),
      ],
    });
    const parentStream = ConversationStream.empty();
    parentStream.startTurn("Research and confirm.");
    const childStream = ConversationStream.empty();
    let parent: ToolCoordinator | undefined;
    const confirm = new MockExecutor((input) =>
      input.answers.ok === undefined
        ? {
            type: "needs_input",
            question: { id: "ok", text: "Proceed?", answer_type: { type: "boolean" } },
          }
        : { type: "success", content: "confirmed" },
    );
    parent = new ToolCoordinator({
      stream: parentStream,
      tools: layerToolsConfigs(builtinToolConfigs(), {
        research: { run: "unattended" },
        confirm: { run: "unattended" },
      }),
      executors: combineExecutorSources(
        builtinExecutorSource({ research: researcher(() => parent, childStream) }),
        new MockExecutorSource({ confirm }),
      ),
      prompts: human,
    });
    const { responses } = await parent.run(
      [
        { id: "call_parent", name: "research", arguments: {} },
        { id: "call_other", name: "confirm", arguments: {} },
      ],
      { turn: new TurnState() },
    );

    expect(JSON.parse(responses[0]?.content ?? "")).toEqual({
      answer_type: "text",
      answer: "/etc",
    });
    expect(responses[1]?.content).toBe("confirmed");
    expect(human.maxConcurrentPrompts).toBe(1);
    const escalated = human.questions.find((q) => q.tool_name === "ask_user");
    expect(escalated?.prompt_label).toBe("Assistant (sub-agent researcher)");
    expect(escalated?.tool_call_id).toBe("call_parent");

    // The parent records the exchange under its hosting call, attributed to the sub-agent.
    expect(sources(parentStream.events)).toContainEqual([
      "call_parent.answer.1",
      JSON.stringify({ source: "other", name: "researcher" }),
    ]);
    expect(outcomes(parentStream.events)).toContainEqual(["call_parent.answer.1", "answered"]);
    // The sub-agent records it as its assistant's own question.
    expect(sources(childStream.events)).toEqual([
      ["call_child.answer.1", JSON.stringify({ source: "assistant" })],
    ]);
    expect(outcomes(childStream.events)).toEqual([["call_child.answer.1", "answered"]]);
  });

  it("a standalone sub-agent asks through its own backend, like a top-level ask_user", async () => {
    const childStream = ConversationStream.empty();
    const tool = researcher(() => undefined, childStream);
    const outcome = await tool.execute({
      arguments: {},
      answers: {},
      signal: new AbortController().signal,
    });
    expect(outcome).toEqual({
      type: "success",
      content: JSON.stringify({ answer_type: "text", answer: "standalone" }),
    });
    expect(sources(childStream.events)).toEqual([
      ["call_child.answer.1", JSON.stringify({ source: "assistant" })],
    ]);
  });

  it("without a reachable human in the parent, the sub-agent's ask_user fails fast", async () => {
    const parentStream = ConversationStream.empty();
    parentStream.startTurn("Research.");
    const childStream = ConversationStream.empty();
    let parent: ToolCoordinator | undefined;
    parent = new ToolCoordinator({
      stream: parentStream,
      tools: { research: { run: "unattended" } },
      executors: builtinExecutorSource({ research: researcher(() => parent, childStream) }),
      prompts: new MockPromptBackend({}),
      nonInteractive: true,
    });
    const { responses } = await parent.run(
      [{ id: "call_parent", name: "research", arguments: {} }],
      {
        turn: new TurnState(),
      },
    );
    expect(responses[0]?.content).toMatch(
      /^ask_user cannot run because no interactive terminal is available/,
    );
    expect(outcomes(childStream.events)).toEqual([["call_child.answer.1", "cancelled"]]);
    expect(sources(parentStream.events)).toEqual([]);
  });
  it("in a suspended turn, the sub-agent's question waits at the hosting call and, answered from another process, reaches a fresh sub-agent on resume", async () => {
    const children: ConversationStream[] = [];
    const parentFor = (stream: ConversationStream) => {
      const coordinator: ToolCoordinator = new ToolCoordinator({
        stream,
        tools: { research: { run: "unattended" } },
        executors: builtinExecutorSource({
          research: {
            async execute(input) {
              // Each pass runs a whole new sub-agent, as after a restart.
              const child = ConversationStream.empty();
              children.push(child);
              return researcher(() => coordinator, child).execute(input);
            },
          },
        }),
      });
      return coordinator;
    };
    const parentStream = ConversationStream.empty();
    parentStream.startTurn("Research.");
    const call = { id: "call_parent", name: "research", arguments: {} };
    const suspended = await parentFor(parentStream).run([call], {
      turn: new TurnState(),
      suspend: true,
    });
    expect(suspended.pending.map((p) => [p.prompt_id, p.agent])).toEqual([
      ["call_parent.answer.1", "researcher"],
    ]);
    expect(suspended.responses).toEqual([]);

    // Another process loads the conversation and answers; a third resumes it.
    const saved = () =>
      ConversationStream.decode(JSON.parse(JSON.stringify(parentStream.toJSON())))._unsafeUnwrap();
    const answering = saved();
    answerPendingPrompt(answering, "call_parent.answer.1", {
      type: "answer",
      value: "/srv",
    })._unsafeUnwrap();
    const resumedStream = ConversationStream.decode(
      JSON.parse(JSON.stringify(answering.toJSON())),
    )._unsafeUnwrap();
    const resumed = await parentFor(resumedStream).resume();

    expect(JSON.parse(resumed.responses[0]?.content ?? "")).toEqual({
      answer_type: "text",
      answer: "/srv",
    });
    expect(outcomes(resumedStream.events)).toEqual([["call_parent.answer.1", "answered"]]);
    // The first sub-agent was told "later" and suspended; the second got the person's answer.
    expect(children.map((child) => outcomes(child.events))).toEqual([
      [],
      [["call_child.answer.1", "answered"]],
    ]);
  });
});
