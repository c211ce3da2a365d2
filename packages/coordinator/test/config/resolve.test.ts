import { describe, expect, it } from "vitest";
import { questionConfigFor } from "../../src/config/question-config.js";
import { parseToolsConfig, resolveToolConfig } from "../../src/config/resolve.js";
import {
  DEFAULT_CANCELLATION_RESPONSE,
  type ResolvedToolConfig,
  type ToolConfig,
  type ToolsConfig,
} from "../../src/config/schema.js";

function resolve(tool: ToolConfig | undefined, defaults: ToolConfig | undefined) {
  const tools: ToolsConfig = {};
  if (tool !== undefined) tools.x = tool;
  if (defaults !== undefined) tools["*"] = defaults;
  return resolveToolConfig(tools, "x");
}

describe('resolveToolConfig: JP\'s fallbacks, tool → "*" → default', () => {
  it.each<[keyof ResolvedToolConfig, ToolConfig | undefined, ToolConfig | undefined, unknown]>([
    ["run", { run: "edit" }, { run: "unattended" }, "edit"],
    ["run", {}, { run: "unattended" }, "unattended"],
    ["run", {}, {}, "ask"],
    ["run", undefined, undefined, "ask"],
    ["result", { result: "ask" }, { result: "skip" }, "ask"],
    ["result", {}, { result: "skip" }, "skip"],
    ["result", {}, undefined, "unattended"],
    [
      "cancellation_response",
      { cancellation_response: "no" },
      { cancellation_response: "nope" },
      "no",
    ],
    ["cancellation_response", {}, { cancellation_response: "nope" }, "nope"],
    ["cancellation_response", {}, {}, DEFAULT_CANCELLATION_RESPONSE],
    // style falls back as a whole object: the tool's style hides none of "*"'s fields below it.
    [
      "style",
      { style: { inline_results: "off" } },
      { style: { hidden: true } },
      { inline_results: "off", hidden: false },
    ],
    [
      "style",
      {},
      { style: { hidden: true, parameters: "json" } },
      { hidden: true, parameters: "json" },
    ],
    ["style", { style: { hidden: true } }, { style: { hidden: false } }, { hidden: true }],
    ["style", {}, {}, { hidden: false }],
    // enable: each field on its own.
    [
      "enable",
      { enable: { state: false } },
      { enable: { state: true, allow_toggle: "never" } },
      { state: false, allow_toggle: "never" },
    ],
    [
      "enable",
      { enable: { allow_toggle: "if_named" } },
      { enable: { state: false } },
      { state: false, allow_toggle: "if_named" },
    ],
    [
      "enable",
      {},
      { enable: { allow_toggle: "if_named_or_group" } },
      { state: true, allow_toggle: "if_named_or_group" },
    ],
    ["enable", {}, {}, { state: true, allow_toggle: "any" }],
    // The tool's own fields are never inherited from "*".
    ["questions", {}, { questions: { q: { target: "assistant" } } }, {}],
    ["questions", { questions: { q: { answer: true } } }, {}, { q: { answer: true } }],
    ["options", {}, { options: { a: 1 } }, {}],
    ["parameters", {}, { parameters: { a: { type: "string" } } }, {}],
    ["description", {}, { description: "d" }, undefined],
    ["command", {}, { command: "ls" }, undefined],
    ["source", { source: "builtin" }, { source: "local" }, "builtin"],
    [
      "detached",
      { detached: { run: "auto" } },
      { detached: "defaults" },
      { run: "auto", deliver: "defaults", tool: "defaults" },
    ],
    ["detached", {}, {}, { run: "deny", deliver: "deny", tool: "deny" }],
  ])("%s: tool %j over defaults %j → %j", (field, tool, defaults, expected) => {
    expect(resolve(tool, defaults)[field]).toEqual(expected);
  });

  it("resolves a name with no entry from the defaults alone", () => {
    const resolved = resolveToolConfig({ "*": { run: "unattended" } }, "nowhere");
    expect(resolved).toMatchObject({ name: "nowhere", run: "unattended", source: undefined });
  });

  it("does not read inherited object properties as tool entries", () => {
    expect(resolveToolConfig({}, "constructor").run).toBe("ask");
    expect(resolveToolConfig({}, "toString").enable).toEqual({ state: true, allow_toggle: "any" });
  });
});

describe('questionConfigFor: a question\'s own entry over "*"', () => {
  it("merges the two field by field", () => {
    const config = resolveToolConfig(
      {
        x: { questions: { "*": { target: "assistant", exclusive: true }, q: { target: "user" } } },
      },
      "x",
    );
    expect(questionConfigFor(config, "q")).toEqual({ target: "user", exclusive: true });
    expect(questionConfigFor(config, "other")).toEqual({ target: "assistant", exclusive: true });
  });

  it.each(["constructor", "toString", "__proto__", "hasOwnProperty"])(
    "reads only the table's own entries for a question named %s",
    (id) => {
      const none = resolveToolConfig({ x: { questions: {} } }, "x");
      expect(questionConfigFor(none, id)).toBeUndefined();
      const every = resolveToolConfig({ x: { questions: { "*": { answer: true } } } }, "x");
      expect(questionConfigFor(every, id)).toEqual({ answer: true });
    },
  );
});

describe("parseToolsConfig: every written form of enable becomes the table", () => {
  it.each<[unknown, { state?: boolean; allow_toggle?: string }]>([
    [true, { state: true, allow_toggle: "any" }],
    ["on", { state: true, allow_toggle: "any" }],
    [false, { state: false, allow_toggle: "any" }],
    ["off", { state: false, allow_toggle: "any" }],
    ["always", { state: true, allow_toggle: "never" }],
    ["explicit", { state: false, allow_toggle: "if_named" }],
    [{ state: false }, { state: false }],
    [{ allow_toggle: "if_named_or_group" }, { allow_toggle: "if_named_or_group" }],
    [
      { state: true, allow_toggle: "never" },
      { state: true, allow_toggle: "never" },
    ],
    [{}, {}],
  ])("enable = %j", (enable, expected) => {
    const tools = parseToolsConfig({ git_stage_patch: { enable } })._unsafeUnwrap();
    expect(tools.git_stage_patch?.enable).toEqual(expected);
  });

  it("reads JP's real config examples", () => {
    const parsed = parseToolsConfig({
      fs_modify_file: {
        questions: {
          apply_changes: { target: "assistant" },
          modify_dirty_file: { target: "user", answer: true },
        },
      },
      git_stage_patch: {
        run: "unattended",
        enable: "explicit",
        questions: { stage_changes: { target: "assistant" } },
      },
    });
    expect(parsed.isOk()).toBe(true);
    const tools = parsed._unsafeUnwrap();
    expect(resolveToolConfig(tools, "git_stage_patch")).toMatchObject({
      run: "unattended",
      enable: { state: false, allow_toggle: "if_named" },
    });
  });
});

describe("parseToolsConfig: errors name the full path and what was expected", () => {
  it.each<[string, unknown, string, string]>([
    [
      "a bad run mode",
      { git_stage_patch: { run: "sometimes" } },
      "conversation.tools.git_stage_patch.run",
      'expected "ask", "unattended", "edit" or "skip", got "sometimes"',
    ],
    [
      "a bad enable string",
      { ask_user: { enable: "maybe" } },
      "conversation.tools.ask_user.enable",
      'expected true or false, "on", "off", "always", "explicit" or a table, got "maybe"',
    ],
    [
      "a bad field inside the enable table",
      { ask_user: { enable: { state: "yes" } } },
      "conversation.tools.ask_user.enable.state",
      'expected true or false, got "yes"',
    ],
    [
      "a bad allow_toggle",
      { ask_user: { enable: { allow_toggle: "sometimes" } } },
      "conversation.tools.ask_user.enable.allow_toggle",
      'expected "any", "never", "if_named" or "if_named_or_group", got "sometimes"',
    ],
    [
      "a question target of the wrong type",
      { fs_modify_file: { questions: { apply_changes: { target: 42 } } } },
      "conversation.tools.fs_modify_file.questions.apply_changes.target",
      'expected "user", "assistant" or a table, got 42',
    ],
    [
      "a detached kind with a bad mode",
      { "*": { detached: { run: "yes" } } },
      'conversation.tools."*".detached.run',
      'expected "auto", "defaults" or "deny", got "yes"',
    ],
    [
      "a command argument of the wrong type",
      { cargo_check: { command: { program: "cargo", args: ["check", 1] } } },
      "conversation.tools.cargo_check.command.args[1]",
      "expected a string, got 1",
    ],
    [
      "a command table without its program",
      { cargo_check: { command: { args: [] } } },
      "conversation.tools.cargo_check.command.program",
      "is missing (expected a string)",
    ],
    [
      "a tool that is not a table",
      { cargo_check: "on" },
      "conversation.tools.cargo_check",
      'expected a table, got "on"',
    ],
    ["a list instead of the tools table", [], "conversation.tools", "expected a table, got a list"],
    ["nothing at all", undefined, "conversation.tools", "is missing (expected a table)"],
  ])("%s", (_case, json, path, reason) => {
    const error = parseToolsConfig(json)._unsafeUnwrapErr();
    expect(error).toEqual({ kind: "invalid-config", path, message: `${path}: ${reason}` });
  });

  it("counts the other problems", () => {
    const error = parseToolsConfig({
      a: { run: "x", result: "y" },
      b: { run: "z" },
    })._unsafeUnwrapErr();
    expect(error.message).toMatch(/\(and 2 more problems\)$/);
  });

  it("never throws, even on hostile input", () => {
    const hostile = new Proxy(
      {},
      {
        ownKeys: () => {
          throw new Error("boom");
        },
      },
    );
    const error = parseToolsConfig(hostile)._unsafeUnwrapErr();
    expect(error).toMatchObject({ kind: "invalid-config", path: "conversation.tools" });
    expect(error.message).toContain("boom");
  });
});

describe("enable as written, without parseToolsConfig (a JavaScript host)", () => {
  it.each([
    [false, false],
    ["off", false],
    ["explicit", false],
    [true, true],
    ["always", true],
    [42, false],
  ])("enable %j resolves to state %j", (written, state) => {
    const tools = { t: { enable: written } } as unknown as ToolsConfig;
    expect(resolveToolConfig(tools, "t").enable.state).toBe(state);
  });
});
