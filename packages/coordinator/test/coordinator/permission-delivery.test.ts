import type { JsonObject } from "@jp/conversation";
import { describe, expect, it } from "vitest";
import {
  type DeliverReply,
  type PermissionReply,
  type ToolsConfig,
  TurnState,
  toolsConfigSchema,
} from "../../src/index.js";
import {
  MockExecutor,
  MockExecutorSource,
  MockPromptBackend,
  type PromptScript,
} from "../../src/testing/index.js";
import { coordinatorFor } from "../helpers.js";
import { call, toolResponses, unpaired } from "../support.js";

const noHuman = (tool: string) =>
  `${tool} cannot run because no interactive terminal is available. Do not retry this tool call in this turn; continue without user input or explain what information is missing.`;
const notAvailable = (tool: string) =>
  `Tool '${tool}' is not available. It may have been available earlier in this conversation but is no longer enabled. Do not retry this tool until it is available again in the list of enabled tools.`;

/** A tool that reports the arguments it ran with. */
const echo = () =>
  new MockExecutor((input) => ({
    type: "success",
    content: `ran with ${JSON.stringify(input.call.arguments)}`,
  }));

function setup(tools: ToolsConfig, script: PromptScript = {}, reachable = true) {
  const tool = echo();
  const human = new MockPromptBackend(script, { reachable });
  const { stream, coordinator } = coordinatorFor({
    tools,
    executors: new MockExecutorSource({ shell: tool }),
    prompts: human,
  });
  return { tool, human, stream, coordinator };
}

const ARGS: JsonObject = { cmd: "ls" };

describe("permission (`run` mode)", () => {
  it("unattended: runs without asking", async () => {
    const { tool, human, coordinator } = setup({ shell: { run: "unattended" } });
    const { responses } = await coordinator.run([call("call_1", "shell", ARGS)], {
      turn: new TurnState(),
    });
    expect(human.requests).toEqual([]);
    expect(tool.executions).toHaveLength(1);
    expect(responses.map((r) => [r.content, r.is_error])).toEqual([
      ['ran with {"cmd":"ls"}', false],
    ]);
  });

  it('skip: really skips — the executor is never called, "Tool skipped by configuration."', async () => {
    const { tool, human, stream, coordinator } = setup({ shell: { run: "skip" } });
    const { responses } = await coordinator.run([call("call_1", "shell", ARGS)], {
      turn: new TurnState(),
    });
    expect(tool.executions).toEqual([]);
    expect(human.requests).toEqual([]);
    expect(responses.map((r) => [r.content, r.is_error])).toEqual([
      ["Tool skipped by configuration.", false],
    ]);
    expect(toolResponses(stream)).toEqual([
      { id: "call_1", content: "Tool skipped by configuration.", is_error: false },
    ]);
  });

  it('skip from the `"*"` defaults applies too', async () => {
    const { tool, coordinator } = setup({ "*": { run: "skip" } });
    const { responses } = await coordinator.run([call("call_1", "shell")], {
      turn: new TurnState(),
    });
    expect(tool.executions).toEqual([]);
    expect(responses[0]?.content).toBe("Tool skipped by configuration.");
  });

  describe("ask", () => {
    it("run: the human sees the permission prompt, then the tool runs", async () => {
      const { tool, human, coordinator } = setup(
        { shell: { run: "ask", source: "local" } },
        { permissions: [{ type: "run" }] },
      );
      const { responses } = await coordinator.run([call("call_1", "shell", ARGS)], {
        turn: new TurnState(),
      });
      expect(human.requests).toEqual([
        {
          kind: "permission",
          tool_name: "shell",
          tool_call_id: "call_1",
          tool_source: "local",
          arguments: ARGS,
          mode: "ask",
        },
      ]);
      expect(tool.executions).toHaveLength(1);
      expect(responses[0]?.content).toBe('ran with {"cmd":"ls"}');
    });

    it("run is the default mode when nothing is configured", async () => {
      const { human, coordinator } = setup({}, { permissions: [{ type: "run" }] });
      await coordinator.run([call("call_1", "shell")], { turn: new TurnState() });
      expect(human.requests.map((r) => r.kind === "permission" && r.mode)).toEqual(["ask"]);
    });

    it("run + remember: a later call of the same tool in the turn is not prompted", async () => {
      const { tool, human, coordinator } = setup(
        { shell: { run: "ask" } },
        { permissions: [{ type: "run", remember: true }] },
      );
      const turn = new TurnState();
      await coordinator.run([call("call_1", "shell")], { turn });
      const second = await coordinator.run([call("call_2", "shell")], { turn });
      expect(human.requests).toHaveLength(1);
      expect(tool.executions).toHaveLength(2);
      expect(second.responses[0]?.content).toBe("ran with {}");
    });

    it("run + remember: a second call of the same tool in the same cycle is not prompted either", async () => {
      const { tool, human, coordinator } = setup(
        { shell: { run: "ask" } },
        { permissions: [{ type: "run", remember: true }, { type: "skip" }] },
      );
      const { responses } = await coordinator.run(
        [call("call_1", "shell", { n: 1 }), call("call_2", "shell", { n: 2 })],
        { turn: new TurnState() },
      );
      expect(human.requests).toHaveLength(1);
      expect(tool.executions).toHaveLength(2);
      expect(responses.map((r) => r.content)).toEqual(['ran with {"n":1}', 'ran with {"n":2}']);
    });

    it("the remembered decision is per turn: a new TurnState asks again", async () => {
      const { human, coordinator } = setup(
        { shell: { run: "ask" } },
        { permissions: [{ type: "run", remember: true }, { type: "run" }] },
      );
      await coordinator.run([call("call_1", "shell")], { turn: new TurnState() });
      await coordinator.run([call("call_2", "shell")], { turn: new TurnState() });
      expect(human.requests).toHaveLength(2);
    });

    it.each<[string, PermissionReply, string]>([
      ["skip", { type: "skip" }, "Tool skipped by user."],
      [
        "skip with a reason",
        { type: "skip", reason: "too risky" },
        "Tool skipped by user: too risky",
      ],
      ["cancelled", { type: "cancelled" }, "Tool skipped by user."],
    ])("%s: the tool does not run", async (_name, reply, content) => {
      const { tool, coordinator } = setup({ shell: { run: "ask" } }, { permissions: [reply] });
      const { responses } = await coordinator.run([call("call_1", "shell")], {
        turn: new TurnState(),
      });
      expect(tool.executions).toEqual([]);
      expect(responses.map((r) => [r.content, r.is_error])).toEqual([[content, false]]);
    });

    it('skip + remember: a later call is skipped without asking, "Tool skipped by user (remembered)."', async () => {
      const { tool, human, coordinator } = setup(
        { shell: { run: "ask" } },
        { permissions: [{ type: "skip", remember: true }] },
      );
      const turn = new TurnState();
      const first = await coordinator.run([call("call_1", "shell")], { turn });
      const second = await coordinator.run([call("call_2", "shell")], { turn });
      expect(human.requests).toHaveLength(1);
      expect(tool.executions).toEqual([]);
      expect(first.responses[0]?.content).toBe("Tool skipped by user.");
      expect(second.responses.map((r) => [r.content, r.is_error])).toEqual([
        ["Tool skipped by user (remembered).", false],
      ]);
    });

    it("edit: the tool receives the edited arguments", async () => {
      const { tool, coordinator } = setup(
        { shell: { run: "ask" } },
        { permissions: [{ type: "edit", arguments: { cmd: "ls -la" } }] },
      );
      const { responses } = await coordinator.run([call("call_1", "shell", ARGS)], {
        turn: new TurnState(),
      });
      expect(tool.executions.map((e) => e.call.arguments)).toEqual([{ cmd: "ls -la" }]);
      expect(responses[0]?.content).toBe('ran with {"cmd":"ls -la"}');
    });

    it('the prompt rejects: "Permission prompt failed: <e>", is_error, the tool does not run', async () => {
      const { tool, coordinator } = setup(
        { shell: { run: "ask" } },
        {
          permissions: [
            () => {
              throw new Error("tty closed");
            },
          ],
        },
      );
      const { responses } = await coordinator.run([call("call_1", "shell")], {
        turn: new TurnState(),
      });
      expect(tool.executions).toEqual([]);
      expect(responses.map((r) => [r.content, r.is_error])).toEqual([
        ["Permission prompt failed: tty closed", true],
      ]);
    });
  });

  it("edit mode: the permission prompt is shown in edit mode", async () => {
    const { human, tool, coordinator } = setup(
      { shell: { run: "edit" } },
      { permissions: [{ type: "edit", arguments: { cmd: "pwd" } }] },
    );
    await coordinator.run([call("call_1", "shell", ARGS)], { turn: new TurnState() });
    expect(human.requests.map((r) => r.kind === "permission" && r.mode)).toEqual(["edit"]);
    expect(tool.executions.map((e) => e.call.arguments)).toEqual([{ cmd: "pwd" }]);
  });

  describe("no human reachable (detached `run` policy)", () => {
    it.each<[string, ToolsConfig, string, boolean, number]>([
      ["auto runs", { shell: { run: "ask", detached: { run: "auto" } } }, "ran with {}", false, 1],
      [
        "defaults fails (a permission prompt has no default)",
        { shell: { run: "ask", detached: "defaults" } },
        noHuman("shell"),
        true,
        0,
      ],
      [
        "deny fails",
        { shell: { run: "ask", detached: { run: "deny" } } },
        noHuman("shell"),
        true,
        0,
      ],
      ["nothing configured is deny", { shell: { run: "ask" } }, noHuman("shell"), true, 0],
      [
        '"*" detached auto applies',
        { "*": { detached: "auto" }, shell: { run: "edit" } },
        "ran with {}",
        false,
        1,
      ],
    ])("%s", async (_name, tools, content, isError, runs) => {
      const { tool, human, coordinator } = setup(tools, {}, false);
      const { responses } = await coordinator.run([call("call_1", "shell")], {
        turn: new TurnState(),
      });
      expect(human.requests).toEqual([]);
      expect(tool.executions).toHaveLength(runs);
      expect(responses.map((r) => [r.content, r.is_error])).toEqual([[content, isError]]);
    });

    it("--non-interactive counts as no human even when one is reachable", async () => {
      const tool = echo();
      const human = new MockPromptBackend({ permissions: [{ type: "run" }] });
      const { coordinator } = coordinatorFor({
        tools: { shell: { run: "ask" } },
        executors: new MockExecutorSource({ shell: tool }),
        prompts: human,
        nonInteractive: true,
      });
      const { responses } = await coordinator.run([call("call_1", "shell")], {
        turn: new TurnState(),
      });
      expect(human.requests).toEqual([]);
      expect(tool.executions).toEqual([]);
      // The model is told the truth: a terminal may well be there, the run is non-interactive.
      expect(responses.map((r) => [r.content, r.is_error])).toEqual([
        [
          "shell cannot run because the run is non-interactive, so no user can answer. Do not retry this tool call in this turn; continue without user input or explain what information is missing.",
          true,
        ],
      ]);
    });
  });
});

describe("result delivery (`result` mode)", () => {
  const failing = () =>
    new MockExecutor([{ type: "error", message: "exit code 2", trace: [], transient: false }]);

  it("unattended (the default): the result goes back as it is, no prompt", async () => {
    const { human, coordinator } = setup({ shell: { run: "unattended" } });
    const { responses } = await coordinator.run([call("call_1", "shell")], {
      turn: new TurnState(),
    });
    expect(human.requests).toEqual([]);
    expect(responses.map((r) => [r.content, r.is_error])).toEqual([["ran with {}", false]]);
  });

  it('skip: "Result delivery skipped by configuration." (the tool did run)', async () => {
    const { tool, human, coordinator } = setup({ shell: { run: "unattended", result: "skip" } });
    const { responses } = await coordinator.run([call("call_1", "shell")], {
      turn: new TurnState(),
    });
    expect(tool.executions).toHaveLength(1);
    expect(human.requests).toEqual([]);
    expect(responses.map((r) => [r.content, r.is_error])).toEqual([
      ["Result delivery skipped by configuration.", false],
    ]);
  });

  describe("ask", () => {
    it.each<[string, DeliverReply, string, boolean]>([
      ["deliver", { type: "deliver" }, "ran with {}", false],
      ["skip", { type: "skip" }, "Result delivery skipped by user.", false],
      ["edit", { type: "edit", content: "trimmed output" }, "trimmed output", false],
      ["cancel", { type: "cancelled" }, "Result delivery skipped by user.", false],
    ])("%s", async (_name, reply, content, isError) => {
      const { human, coordinator } = setup(
        { shell: { run: "unattended", result: "ask" } },
        { deliveries: [reply] },
      );
      const { responses } = await coordinator.run([call("call_1", "shell")], {
        turn: new TurnState(),
      });
      expect(human.requests).toEqual([
        {
          kind: "deliver",
          tool_name: "shell",
          tool_call_id: "call_1",
          content: "ran with {}",
          is_error: false,
          mode: "ask",
        },
      ]);
      expect(responses.map((r) => [r.content, r.is_error])).toEqual([[content, isError]]);
    });

    it("deliver keeps a tool error an error", async () => {
      const human = new MockPromptBackend({ deliveries: [{ type: "deliver" }] });
      const { coordinator } = coordinatorFor({
        tools: { shell: { run: "unattended", result: "ask" } },
        executors: new MockExecutorSource({ shell: failing() }),
        prompts: human,
      });
      const { responses } = await coordinator.run([call("call_1", "shell")], {
        turn: new TurnState(),
      });
      expect(human.requests[0]).toMatchObject({
        kind: "deliver",
        content: "exit code 2",
        is_error: true,
      });
      expect(responses.map((r) => [r.content, r.is_error])).toEqual([["exit code 2", true]]);
    });
  });

  describe("edit", () => {
    it.each<[string, DeliverReply, string]>([
      ["edited", { type: "edit", content: "short version" }, "short version"],
      ["emptied keeps the original", { type: "edit", content: "   " }, "ran with {}"],
      ["cancelled keeps the original", { type: "cancelled" }, "ran with {}"],
    ])("%s", async (_name, reply, content) => {
      const { human, coordinator } = setup(
        { shell: { run: "unattended", result: "edit" } },
        { deliveries: [reply] },
      );
      const { responses } = await coordinator.run([call("call_1", "shell")], {
        turn: new TurnState(),
      });
      expect(human.requests.map((r) => r.kind === "deliver" && r.mode)).toEqual(["edit"]);
      expect(responses.map((r) => [r.content, r.is_error])).toEqual([[content, false]]);
    });

    it('the editor fails: "Result edit cancelled."', async () => {
      const { coordinator } = setup(
        { shell: { run: "unattended", result: "edit" } },
        {
          deliveries: [
            () => {
              throw new Error("editor crashed");
            },
          ],
        },
      );
      const { responses } = await coordinator.run([call("call_1", "shell")], {
        turn: new TurnState(),
      });
      expect(responses.map((r) => [r.content, r.is_error])).toEqual([
        ["Result edit cancelled.", false],
      ]);
    });
  });

  describe("no human reachable (detached `deliver` policy)", () => {
    it.each<[string, ToolsConfig, string, boolean]>([
      [
        "auto delivers as it is",
        { shell: { run: "unattended", result: "ask", detached: { deliver: "auto" } } },
        "ran with {}",
        false,
      ],
      [
        "defaults delivers (the delivery prompt's default is deliver)",
        { shell: { run: "unattended", result: "edit", detached: { deliver: "defaults" } } },
        "ran with {}",
        false,
      ],
      [
        "deny withholds the result",
        { shell: { run: "unattended", result: "ask", detached: { deliver: "deny" } } },
        "shell ran, but its result was not delivered because no interactive terminal is available to approve it. Do not retry this tool call in this turn.",
        true,
      ],
      [
        "nothing configured is deny",
        { shell: { run: "unattended", result: "ask" } },
        "shell ran, but its result was not delivered because no interactive terminal is available to approve it. Do not retry this tool call in this turn.",
        true,
      ],
    ])("%s", async (_name, tools, content, isError) => {
      const { tool, human, coordinator } = setup(tools, {}, false);
      const { responses } = await coordinator.run([call("call_1", "shell")], {
        turn: new TurnState(),
      });
      expect(tool.executions).toHaveLength(1);
      expect(human.requests).toEqual([]);
      expect(responses.map((r) => [r.content, r.is_error])).toEqual([[content, isError]]);
    });
  });
});

describe("tools that are not available", () => {
  it.each<[string, ToolsConfig, string]>([
    // Written forms are read through the public schema, as a host reads its config file.
    [
      "disabled with enable = false",
      toolsConfigSchema.parse({ shell: { enable: false } }),
      "shell",
    ],
    [
      'disabled with enable = "off"',
      toolsConfigSchema.parse({ shell: { enable: "off" } }),
      "shell",
    ],
    ["disabled with enable.state = false", { shell: { enable: { state: false } } }, "shell"],
    [
      'disabled through "*"',
      toolsConfigSchema.parse({ "*": { enable: false, run: "unattended" } }),
      "shell",
    ],
    ["unknown to every executor source", {}, "nonexistent"],
  ])("%s → the not-available error, nothing asked or run", async (_name, tools, name) => {
    const { tool, human, stream, coordinator } = setup(tools, { permissions: [{ type: "run" }] });
    const { responses } = await coordinator.run([call("call_1", name)], {
      turn: new TurnState(),
    });
    expect(tool.executions).toEqual([]);
    expect(human.requests).toEqual([]);
    expect(responses.map((r) => [r.content, r.is_error])).toEqual([[notAvailable(name), true]]);
    expect(unpaired(stream.events, "tool_call")).toEqual({ requests: [], responses: [] });
  });
});
