import { ConversationStream } from "@jp/conversation";
import {
  answerPendingPrompt,
  type BuiltinTool,
  builtinExecutorSource,
  layerToolsConfigs,
  ToolCoordinator,
  type ToolsConfig,
  TurnState,
} from "@jp/coordinator";
import { MockPromptBackend } from "@jp/coordinator/testing";
import { describe, expect, it } from "vitest";
import { formDefaultsNote } from "../src/ask-user/defaults-note.js";
import { askUser, builtinToolConfigs, subAgentPrompts } from "../src/index.js";
import { expectWellFormed, runAskUser } from "./helpers.js";

// Nobody can be asked, and the user chose to let questions take their defaults then.
const DEFAULTS: ToolsConfig = { ask_user: { detached: "defaults" } };
const NOBODY = new MockPromptBackend({}, { reachable: false });

const SELECT = {
  question: "Apply with backup, apply without backup, or abort?",
  answer_type: "select",
  options: ["backup", "overwrite", "abort"],
  default: "backup",
};

describe("ask_user when nobody answered and the question's default was used", () => {
  it("one question: the result says nobody answered, with the default's value", async () => {
    const { response, stream } = await runAskUser(SELECT, { tools: DEFAULTS, prompts: NOBODY });

    expect(response.is_error).toBe(false);
    expect(JSON.parse(response.content)).toEqual({
      answer_type: "select",
      answer: "backup",
      answered_by: "default",
      note: 'No one answered (no person was available to answer); the question\'s default was used: "backup".',
    });
    expectWellFormed(stream.events);
  });

  it("one question answered by the person reads as before", async () => {
    const human = new MockPromptBackend({ questions: [{ type: "answer", value: "backup" }] });
    const { response } = await runAskUser(SELECT, { tools: DEFAULTS, prompts: human });
    expect(response.content).toBe('{"answer_type":"select","answer":"backup"}');
  });

  it("a form: the answers nobody gave are named, apart from a configured answer", async () => {
    const { response } = await runAskUser(
      {
        questions: [
          { id: "apply", text: "Apply the migration?", answer_type: "boolean" },
          {
            id: "env",
            text: "Which environment?",
            answer_type: "select",
            options: ["staging", "production"],
            default: "staging",
            when: { question_id: "apply", equals: true },
          },
          { id: "notify", text: "Notify the team?", answer_type: "boolean", default: false },
          {
            id: "skipped",
            text: "Roll back?",
            answer_type: "boolean",
            default: true,
            when: { question_id: "apply", equals: false },
          },
        ],
      },
      {
        tools: { ask_user: { detached: "defaults", questions: { apply: { answer: true } } } },
        nonInteractive: true,
      },
    );

    expect(JSON.parse(response.content)).toEqual({
      answers: { apply: true, env: "staging", notify: false, skipped: null },
      answered_by_default: ["env", "notify"],
      note: 'No one answered "env" and "notify" (no person was available to answer); each question\'s default was used: "env" = "staging" and "notify" = false.',
    });
  });

  it("a form the person answered reads as before", async () => {
    const human = new MockPromptBackend({
      questions: [
        { type: "answer", value: true },
        { type: "answer", value: "production" },
      ],
    });
    const { response } = await runAskUser(
      {
        questions: [
          { id: "apply", text: "Apply?", answer_type: "boolean", default: false },
          {
            id: "env",
            text: "Which?",
            answer_type: "select",
            options: ["staging", "production"],
            default: "staging",
          },
        ],
      },
      { tools: DEFAULTS, prompts: human },
    );
    expect(response.content).toBe('{"apply":true,"env":"production"}');
  });

  it("a form resumed after it was saved and loaded still says which answer nobody gave", async () => {
    const args = {
      questions: [
        { id: "apply", text: "Apply?", answer_type: "boolean", default: true },
        { id: "env", text: "Which?", answer_type: "select", options: ["staging", "production"] },
      ],
    };
    const tools = layerToolsConfigs(builtinToolConfigs(), DEFAULTS);
    const executors = builtinExecutorSource({ ask_user: askUser });
    const stream = ConversationStream.empty();
    stream.startTurn("Migrate.");
    const first = await new ToolCoordinator({ stream, tools, executors }).run(
      [{ id: "call_1", name: "ask_user", arguments: args }],
      { turn: new TurnState(), suspend: { deadlineMs: 1000 } },
    );
    // Nobody answered "apply" before its deadline: the resumed turn takes its default, and waits
    // again at "env".
    const later = new Date(Date.parse(first.pending[0]?.suspended_at ?? "") + 5000);
    const saved = reloaded(stream);
    const second = await new ToolCoordinator({ stream: saved, tools, executors }).resume({
      now: later,
    });
    expect(second.pending.map((p) => p.prompt_id)).toEqual(["call_1.env.1"]);
    const loaded = reloaded(saved);
    answerPendingPrompt(loaded, "call_1.env.1", {
      type: "answer",
      value: "production",
    })._unsafeUnwrap();

    const done = await new ToolCoordinator({ stream: loaded, tools, executors }).resume();

    expect(JSON.parse(done.responses[0]?.content ?? "")).toEqual({
      answers: { apply: true, env: "production" },
      answered_by_default: ["apply"],
      note: 'No one answered "apply" (no person was available to answer); the question\'s default was used: true.',
    });
    expectWellFormed(loaded.events);
  });
});

describe("a sub-agent whose parent has nobody to ask", () => {
  it("takes its question's default under its own detached policy, and its ask_user says nobody answered", async () => {
    const parentStream = ConversationStream.empty();
    parentStream.startTurn("Research.");
    const childStream = ConversationStream.empty();
    let parent: ToolCoordinator | undefined;
    const research: BuiltinTool = {
      async execute({ signal }) {
        childStream.startTurn("Find the config directory.");
        const child = new ToolCoordinator({
          stream: childStream,
          tools: layerToolsConfigs(builtinToolConfigs(), DEFAULTS),
          executors: builtinExecutorSource({ ask_user: askUser }),
          prompts: subAgentPrompts({
            agent: "researcher",
            parent: { coordinator: parent as ToolCoordinator, toolCallId: "call_parent" },
          }),
        });
        const { responses } = await child.run(
          [
            {
              id: "call_child",
              name: "ask_user",
              arguments: { question: "Which directory?", default: "/etc" },
            },
          ],
          { turn: new TurnState(), signal },
        );
        return { type: "success", content: responses[0]?.content ?? "" };
      },
    };
    parent = new ToolCoordinator({
      stream: parentStream,
      tools: layerToolsConfigs(builtinToolConfigs(), { research: { run: "unattended" } }),
      executors: builtinExecutorSource({ research }),
      prompts: NOBODY,
    });

    const { responses } = await parent.run(
      [{ id: "call_parent", name: "research", arguments: {} }],
      {
        turn: new TurnState(),
      },
    );

    expect(JSON.parse(responses[0]?.content ?? "")).toEqual({
      answer_type: "text",
      answer: "/etc",
      answered_by: "default",
      note: 'No one answered (no person was available to answer); the question\'s default was used: "/etc".',
    });
    // Nobody was asked through the parent: its conversation records no question.
    expect(parentStream.events.filter((e) => e.type.startsWith("inquiry_"))).toEqual([]);
    expectWellFormed(childStream.events);
  });
});

describe("the note on answers nobody gave", () => {
  it("names twenty of a long form's answers, and cuts a long value (the whole is beside it)", () => {
    const many = Array.from({ length: 23 }, (_, i) => [`q${i}`, i] as const);
    const note = formDefaultsNote(many);
    expect(note).toMatch(/^No one answered "q0", "q1", .*"q19" and 3 more \(/);
    expect(note).toMatch(/"q19" = 19 and 3 more\.$/);
    const long = formDefaultsNote([["text", "x".repeat(500)]]);
    expect(long.length).toBeLessThan(400);
    expect(long).toContain("…");
  });
});

function reloaded(stream: ConversationStream): ConversationStream {
  return ConversationStream.decode(JSON.parse(JSON.stringify(stream.toJSON())))._unsafeUnwrap();
}
