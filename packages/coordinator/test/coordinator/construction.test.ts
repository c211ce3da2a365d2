import { ConversationStream } from "@jp/conversation";
import { describe, expect, it } from "vitest";
import { ToolCoordinator, type ToolsConfig, ToolsConfigError, TurnState } from "../../src/index.js";
import { MockExecutor, MockExecutorSource } from "../../src/testing/index.js";
import { coordinatorFor } from "../helpers.js";
import { call, UNATTENDED, unpaired } from "../support.js";

function construct(tools: unknown): () => ToolCoordinator {
  const stream = ConversationStream.empty();
  stream.startTurn("Go.");
  return () =>
    new ToolCoordinator({
      stream,
      tools: tools as ToolsConfig,
      executors: new MockExecutorSource({}),
    });
}

function thrown(make: () => unknown): unknown {
  try {
    make();
  } catch (cause) {
    return cause;
  }
  throw new Error("expected the constructor to throw");
}

describe("new ToolCoordinator checks `tools` at once", () => {
  it.each<[string, unknown, string, string]>([
    [
      "a mode in the wrong case",
      { "*": { detached: "Auto" } },
      'conversation.tools."*".detached',
      'expected "auto", "defaults", "deny" or a table, got "Auto"',
    ],
    [
      "an unknown run mode",
      { git: { run: "sometimes" } },
      "conversation.tools.git.run",
      'expected "ask", "unattended", "edit" or "skip", got "sometimes"',
    ],
    [
      "the result key in a detached table",
      { git: { detached: { result: "auto" } } },
      "conversation.tools.git.detached.result",
      'unknown key (did you mean "deliver"?',
    ],
    [
      "a typo under questions.<id>",
      { git: { questions: { confirm: { exclusiv: true } } } },
      "conversation.tools.git.questions.confirm.exclusiv",
      'unknown key (did you mean "exclusive"?)',
    ],
    ["not an object", "auto", "conversation.tools", ""],
  ])("%s: throws a ToolsConfigError naming the setting", (_name, tools, path, reason) => {
    const error = thrown(construct(tools));
    expect(error).toBeInstanceOf(ToolsConfigError);
    expect(error).toBeInstanceOf(Error);
    const typed = error as ToolsConfigError;
    expect(typed.name).toBe("ToolsConfigError");
    expect(typed.error).toMatchObject({ kind: "invalid-config", path });
    expect(typed.message).toBe(typed.error.message);
    expect(typed.message.startsWith(`${path}: `)).toBe(true);
    expect(typed.message).toContain(reason);
  });
});

describe("run() never rejects", () => {
  it("a host listener that throws still leaves every call answered", async () => {
    const { stream, coordinator } = coordinatorFor({
      tools: UNATTENDED,
      executors: new MockExecutorSource({
        build: new MockExecutor([{ type: "success", content: "built" }]),
        test: new MockExecutor([{ type: "success", content: "tested" }]),
      }),
    });
    coordinator.on("tool-state", ({ tool_call_id, state }) => {
      if (tool_call_id === "call_1" && state === "awaiting_delivery") {
        throw new Error("the UI crashed");
      }
    });

    const { responses } = await coordinator.run([call("call_1", "build"), call("call_2", "test")], {
      turn: new TurnState(),
    });

    expect(responses.map((r) => [r.id, r.content, r.is_error])).toEqual([
      ["call_1", "Tool 'build' failed: the UI crashed", true],
      ["call_2", "tested", false],
    ]);
    expect(unpaired(stream.events, "tool_call")).toEqual({ requests: [], responses: [] });
  });
});
