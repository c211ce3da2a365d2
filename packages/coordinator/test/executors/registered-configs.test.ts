import { describe, expect, it } from "vitest";
import {
  type BuiltinTool,
  builtinExecutorSource,
  combineExecutorSources,
  TurnState,
} from "../../src/index.js";
import { MockExecutorSource, MockPromptBackend } from "../../src/testing/index.js";
import { coordinatorFor } from "../helpers.js";
import { call } from "../support.js";

const quiet: BuiltinTool = {
  config: { run: "unattended", description: "Runs without asking." },
  execute: () => ({ type: "success", content: "done" }),
};
const plain: BuiltinTool = { execute: () => ({ type: "success", content: "done" }) };

describe("a built-in's registered configuration", () => {
  it("is offered by builtinExecutorSource under the tool's name, a fresh copy each time", () => {
    const source = builtinExecutorSource({ quiet, plain });
    expect(source.toolConfigs?.()).toEqual({
      quiet: { run: "unattended", description: "Runs without asking." },
    });
    const first = source.toolConfigs?.();
    expect(first).not.toBe(source.toolConfigs?.());
  });

  it("runs the tool without a permission prompt when the host's tools do not name it", async () => {
    const prompts = new MockPromptBackend();
    const { coordinator } = coordinatorFor({
      tools: { "*": { run: "ask" } },
      executors: builtinExecutorSource({ quiet }),
      prompts,
    });
    const { responses } = await coordinator.run([call("c1", "quiet")], { turn: new TurnState() });
    expect(responses[0]?.content).toBe("done");
    expect(prompts.requests).toEqual([]);
    expect(coordinator.tools.quiet).toEqual({
      run: "unattended",
      description: "Runs without asking.",
    });
  });

  it.each(["toString", "constructor"])(
    "holds for a built-in named %s when the host configures other tools",
    async (name) => {
      const prompts = new MockPromptBackend();
      const { coordinator } = coordinatorFor({
        tools: { "*": { run: "ask" }, other: { run: "ask" } },
        executors: builtinExecutorSource({ [name]: quiet }),
        prompts,
      });
      const { responses } = await coordinator.run([call("c1", name)], { turn: new TurnState() });
      expect(responses[0]?.content).toBe("done");
      expect(prompts.requests).toEqual([]);
    },
  );

  it("is under the host's configuration: what the host writes wins", async () => {
    const prompts = new MockPromptBackend({ permissions: [{ type: "skip" }] });
    const { coordinator } = coordinatorFor({
      tools: { quiet: { run: "ask" } },
      executors: builtinExecutorSource({ quiet }),
      prompts,
    });
    await coordinator.run([call("c1", "quiet")], { turn: new TurnState() });
    expect(prompts.requests.map((r) => r.kind)).toEqual(["permission"]);
    expect(coordinator.config("quiet").description).toBe("Runs without asking.");
  });

  it("a tool without one is asked about as before (default run mode)", async () => {
    const prompts = new MockPromptBackend({ permissions: [{ type: "run" }] });
    const { coordinator } = coordinatorFor({
      executors: builtinExecutorSource({ plain }),
      prompts,
    });
    await coordinator.run([call("c1", "plain")], { turn: new TurnState() });
    expect(prompts.requests.map((r) => r.kind)).toEqual(["permission"]);
  });

  it("combined sources: the first source's configuration wins for a tool two of them configure", () => {
    const loud: BuiltinTool = { ...quiet, config: { run: "ask", style: { hidden: true } } };
    const combined = combineExecutorSources(
      builtinExecutorSource({ quiet }),
      new MockExecutorSource({}),
      builtinExecutorSource({ quiet: loud }),
    );
    expect(combined.toolConfigs?.()).toEqual({
      quiet: { run: "unattended", description: "Runs without asking.", style: { hidden: true } },
    });
  });
});
