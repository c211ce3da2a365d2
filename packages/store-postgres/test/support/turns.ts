import type { StoredConversation } from "@jp/conversation";
import {
  type BuiltinTool,
  builtinExecutorSource,
  type PromptBackend,
  type RunResult,
  ToolCoordinator,
  TurnState,
} from "@jp/coordinator";

/** One yes/no question, then done. */
const asker: BuiltinTool = {
  execute: ({ answers }) =>
    answers.go === undefined
      ? {
          type: "needs_input",
          question: { id: "go", text: "Go ahead?", answer_type: { type: "boolean" } },
        }
      : { type: "success", content: `go: ${String(answers.go)}` },
};

/** A plan, then seats: two questions in a row. */
const planner: BuiltinTool = {
  execute: ({ answers }) => {
    if (answers.plan === undefined) {
      return {
        type: "needs_input",
        question: {
          id: "plan",
          text: "Which plan?",
          answer_type: { type: "select", options: ["basic", "pro"] },
        },
      };
    }
    if (answers.seats === undefined) {
      return {
        type: "needs_input",
        question: { id: "seats", text: "How many seats?", answer_type: { type: "text" } },
      };
    }
    return { type: "success", content: `${String(answers.plan)} x ${String(answers.seats)}` };
  },
};

/** Asks for a password; its result says only whether one was given. */
const login: BuiltinTool = {
  execute: ({ answers }) =>
    answers.password === undefined
      ? {
          type: "needs_input",
          question: { id: "password", text: "Password?", answer_type: { type: "secret" } },
        }
      : { type: "success", content: `logged in (${String(answers.password).length} characters)` },
};

/** The tools of the tests, every one runs without asking permission. */
export const tools = {
  asker: { run: "unattended" as const },
  planner: { run: "unattended" as const },
  login: { run: "unattended" as const },
};
export const executors = builtinExecutorSource({ asker, planner, login });

/** A coordinator on a conversation's stream with the test tools. */
export function coordinatorFor(conversation: StoredConversation, prompts?: PromptBackend) {
  return new ToolCoordinator({
    stream: conversation.stream,
    tools,
    executors,
    ...(prompts === undefined ? {} : { prompts }),
  });
}

/** Starts a turn calling `tool` and suspends it at its first question. */
export async function suspendAt(
  conversation: StoredConversation,
  tool: keyof typeof tools,
  callId = "call_1",
): Promise<RunResult> {
  conversation.stream.startTurn(`Use ${tool}`);
  return coordinatorFor(conversation).run([{ id: callId, name: tool, arguments: {} }], {
    turn: new TurnState(),
    suspend: true,
  });
}

/** Distinct conversation names: JP's `<id>-<slug>`. */
let next = 17_000_000_000;
export function uniqueName(slug = "t"): string {
  next += 1;
  return `${next}-${slug}`;
}

/** A new, unsaved conversation with a unique name, as `store.create()` makes it. */
export function newConversation(
  store: { create(options?: { title?: string }): StoredConversation },
  slug = "t",
): StoredConversation {
  return { ...store.create({ title: slug }), name: uniqueName(slug) };
}
