// A ToolCoordinator built by hand, without createCoordinator or builtinToolConfigs(): ask_user
// keeps its registered configuration, and the tools offered to a model are never silently empty.
import { ConversationStream } from "@jp/conversation";
import {
  builtinExecutorSource,
  combineExecutorSources,
  ToolCoordinator,
  ToolsConfigError,
  TurnState,
} from "@jp/coordinator";
import { MockPromptBackend } from "@jp/coordinator/testing";
import { describe, expect, it } from "vitest";
import { askUser, builtinToolConfigs, toProviderTools } from "../src/index.js";

const askCall = {
  id: "call_ask",
  name: "ask_user",
  arguments: { question: "Ship it?", answer_type: "boolean" },
};

function started(): ConversationStream {
  const stream = ConversationStream.empty();
  stream.startTurn("Ship the release.");
  return stream;
}

const lookup = {
  execute: () => ({ type: "success" as const, content: "found" }),
};

describe("a hand-built ToolCoordinator with askUser's executor", () => {
  it("carries ask_user's registered configuration, as builtinToolConfigs() gives it", () => {
    expect(askUser.config).toEqual(builtinToolConfigs().ask_user);
    const coordinator = new ToolCoordinator({
      stream: started(),
      tools: {},
      executors: builtinExecutorSource({ ask_user: askUser }),
    });
    expect(coordinator.config("ask_user")).toMatchObject({
      run: "unattended",
      result: "unattended",
      style: { hidden: true },
      enable: { state: true, allow_toggle: "if_named" },
    });
  });

  it('asks the question with no permission or delivery prompt, even when "*" asks for both', async () => {
    const prompts = new MockPromptBackend({ questions: [{ type: "answer", value: true }] });
    const coordinator = new ToolCoordinator({
      stream: started(),
      tools: { "*": { run: "ask", result: "ask" } },
      executors: builtinExecutorSource({ ask_user: askUser }),
      prompts,
    });
    const { responses } = await coordinator.run([askCall], { turn: new TurnState() });
    expect(prompts.requests.map((r) => r.kind)).toEqual(["question"]);
    expect(JSON.parse(responses[0]?.content ?? "")).toEqual({
      answer_type: "boolean",
      answer: true,
    });
  });

  it("lets the host's configuration win, field by field", async () => {
    const prompts = new MockPromptBackend({
      permissions: [{ type: "run" }],
      questions: [{ type: "answer", value: true }],
    });
    const coordinator = new ToolCoordinator({
      stream: started(),
      tools: { ask_user: { run: "ask", questions: { answer: { prompt_label: "Agent" } } } },
      executors: builtinExecutorSource({ ask_user: askUser }),
      prompts,
    });
    await coordinator.run([askCall], { turn: new TurnState() });
    expect(prompts.requests.map((r) => r.kind)).toEqual(["permission", "question"]);
    expect(prompts.questions[0]?.prompt_label).toBe("Agent");
    // What the host did not write stays as registered.
    expect(coordinator.config("ask_user").style.hidden).toBe(true);
  });

  it("keeps ask_user's configuration when its source is combined with the host's", () => {
    const coordinator = new ToolCoordinator({
      stream: started(),
      tools: { lookup: { run: "unattended" } },
      executors: combineExecutorSources(
        builtinExecutorSource({ lookup }),
        builtinExecutorSource({ ask_user: askUser }),
      ),
    });
    expect(coordinator.config("ask_user").run).toBe("unattended");
    expect(coordinator.config("lookup").run).toBe("unattended");
  });

  it("checks the layered configuration: the host's mistake is a ToolsConfigError naming its path", () => {
    const make = () =>
      new ToolCoordinator({
        stream: started(),
        tools: { ask_user: { run: "sometimes" as never } },
        executors: builtinExecutorSource({ ask_user: askUser }),
      });
    expect(make).toThrow(ToolsConfigError);
    expect(make).toThrow(/conversation\.tools\.ask_user\.run/);
  });
});

describe("toProviderTools with a hand-built coordinator", () => {
  it("offers ask_user from coordinator.tools, beside the host's tools", () => {
    const coordinator = new ToolCoordinator({
      stream: started(),
      tools: { lookup: { run: "unattended", description: "Look something up." } },
      executors: combineExecutorSources(
        builtinExecutorSource({ ask_user: askUser }),
        builtinExecutorSource({ lookup }),
      ),
    });
    const offered = toProviderTools(coordinator.tools, "anthropic")._unsafeUnwrap();
    expect(offered.map((tool) => tool.name)).toEqual(["ask_user", "lookup"]);
    expect(offered[0]?.description).toBe(builtinToolConfigs().ask_user?.description);
  });

  it("is a no-tools error, never an empty list, with a configuration that offers nothing", () => {
    const coordinator = new ToolCoordinator({
      stream: started(),
      tools: {},
      executors: builtinExecutorSource({ lookup }),
    });
    const error = toProviderTools(coordinator.tools, "openai-chat")._unsafeUnwrapErr();
    expect(error.kind).toBe("no-tools");
    expect(error.message).toContain("coordinator.tools");
    expect(error.message).toContain("builtinExecutorSource({ ask_user: askUser })");
  });

  it("is a no-tools error when ask_user is disabled and nothing else is configured", () => {
    const coordinator = new ToolCoordinator({
      stream: started(),
      tools: { ask_user: { enable: { state: false } } },
      executors: builtinExecutorSource({ ask_user: askUser }),
    });
    const error = toProviderTools(coordinator.tools, "openai-responses")._unsafeUnwrapErr();
    expect(error.kind).toBe("no-tools");
    expect(error.message).toContain("disabled");
  });
});
