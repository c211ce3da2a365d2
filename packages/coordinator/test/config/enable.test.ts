import { describe, expect, it } from "vitest";
import {
  applyToggleDirectives,
  enabledToolNames,
  type ToggleDirective,
} from "../../src/config/enable.js";
import { layerToolsConfigs } from "../../src/config/layering.js";
import { resolveToolConfig } from "../../src/config/resolve.js";
import type { AllowToggle, ToolsConfig } from "../../src/config/schema.js";

const disableAll: ToggleDirective = { action: "disable", scope: "all" };
const enableAll: ToggleDirective = { action: "enable", scope: "all" };
const disable = (name: string): ToggleDirective => ({ action: "disable", scope: "named", name });
const enable = (name: string): ToggleDirective => ({ action: "enable", scope: "named", name });

function stateAfter(tools: ToolsConfig, directives: readonly ToggleDirective[], name = "x") {
  const applied = applyToggleDirectives(tools, directives)._unsafeUnwrap();
  return resolveToolConfig(applied, name).enable;
}

describe("applyToggleDirectives: RFD 081's behaviour matrix", () => {
  // Each tool starts in the opposite state of what the directive asks for, so a flip shows up;
  // `state after` is the resolved state, or "error".
  it.each<[ToggleDirective["scope"], AllowToggle, "enable" | "disable", boolean | "error"]>([
    ["all", "any", "enable", true],
    ["all", "any", "disable", false],
    ["all", "if_named", "enable", false],
    ["all", "if_named", "disable", true],
    ["all", "if_named_or_group", "enable", false],
    ["all", "if_named_or_group", "disable", true],
    ["all", "never", "enable", false],
    ["all", "never", "disable", true],
    ["named", "any", "enable", true],
    ["named", "any", "disable", false],
    ["named", "if_named", "enable", true],
    ["named", "if_named", "disable", false],
    ["named", "if_named_or_group", "enable", true],
    ["named", "if_named_or_group", "disable", false],
    ["named", "never", "enable", "error"],
    ["named", "never", "disable", "error"],
  ])("%s × allow_toggle %s: %s → state after %s", (scope, allowToggle, action, expected) => {
    const tools: ToolsConfig = {
      x: { enable: { state: action === "disable", allow_toggle: allowToggle } },
    };
    const directive: ToggleDirective =
      scope === "all" ? { action, scope } : { action, scope, name: "x" };
    const result = applyToggleDirectives(tools, [directive]);
    if (expected === "error") {
      expect(result._unsafeUnwrapErr().message).toContain('tool "x" cannot be enabled or disabled');
    } else {
      expect(stateAfter(tools, [directive])).toEqual({
        state: expected,
        allow_toggle: allowToggle,
      });
    }
  });
});

describe("applyToggleDirectives: sequences", () => {
  const builtins: ToolsConfig = {
    ask_user: { enable: { state: true, allow_toggle: "if_named" } },
    fs_read_file: { enable: { state: true, allow_toggle: "any" } },
    git_stage_patch: { enable: { state: false, allow_toggle: "if_named" } },
    locked: { enable: { state: true, allow_toggle: "never" } },
  };

  it.each<[string, ToggleDirective[], string[]]>([
    ["no directives", [], ["ask_user", "fs_read_file", "locked"]],
    ["a bare disable all leaves if_named and never tools on", [disableAll], ["ask_user", "locked"]],
    [
      "a named disable turns an if_named tool off",
      [disable("ask_user")],
      ["fs_read_file", "locked"],
    ],
    [
      "disable all, then enable ask_user by name",
      [disableAll, disable("ask_user"), enable("ask_user")],
      ["ask_user", "locked"],
    ],
    [
      "disable all, then enable one any tool by name",
      [disableAll, enable("fs_read_file")],
      ["ask_user", "fs_read_file", "locked"],
    ],
    [
      "enable all does not reach an explicit (if_named) tool",
      [enableAll],
      ["ask_user", "fs_read_file", "locked"],
    ],
    [
      "a named enable reaches an explicit tool",
      [enable("git_stage_patch")],
      ["ask_user", "fs_read_file", "git_stage_patch", "locked"],
    ],
    [
      "later directives win",
      [enable("fs_read_file"), disable("fs_read_file")],
      ["ask_user", "locked"],
    ],
  ])("%s", (_case, directives, enabled) => {
    const applied = applyToggleDirectives(builtins, directives)._unsafeUnwrap();
    expect(enabledToolNames(applied)).toEqual(enabled);
  });

  it.each<[string, ToolsConfig, ToggleDirective[], string, string]>([
    [
      "naming a never tool",
      builtins,
      [enable("locked")],
      "conversation.tools.locked.enable.allow_toggle",
      'tool "locked" cannot be enabled or disabled: its enable.allow_toggle is "never"',
    ],
    [
      'naming a tool locked by "*"',
      { "*": { enable: { allow_toggle: "never" } }, x: {} },
      [disable("x")],
      'conversation.tools."*".enable.allow_toggle',
      'tool "x" cannot be enabled or disabled: its enable.allow_toggle is "never"',
    ],
    [
      "naming an unknown tool",
      builtins,
      [disableAll, disable("nope")],
      "conversation.tools.nope",
      'no tool named "nope" is configured, so it cannot be disabled',
    ],
    [
      'naming "*"',
      { "*": {} },
      [enable("*")],
      'conversation.tools."*"',
      'no tool named "*" is configured, so it cannot be enabled',
    ],
    [
      "naming an inherited object property",
      {},
      [enable("constructor")],
      "conversation.tools.constructor",
      'no tool named "constructor" is configured, so it cannot be enabled',
    ],
  ])("%s is an error", (_case, tools, directives, path, reason) => {
    expect(applyToggleDirectives(tools, directives)._unsafeUnwrapErr()).toEqual({
      kind: "invalid-config",
      path,
      message: `${path}: ${reason}`,
    });
  });

  it("only ever changes state, in the tool's own layer", () => {
    const tools: ToolsConfig = {
      "*": { enable: { state: true, allow_toggle: "if_named" }, run: "ask" },
      x: { run: "edit" },
    };
    const applied = applyToggleDirectives(tools, [disableAll, disable("x")])._unsafeUnwrap();
    expect(applied).toEqual({
      "*": { enable: { state: true, allow_toggle: "if_named" }, run: "ask" },
      x: { run: "edit", enable: { state: false } },
    });
    expect(stateAfter(tools, [disable("x")])).toEqual({ state: false, allow_toggle: "if_named" });
  });

  it('inherits allow_toggle from "*" when the tool does not set it', () => {
    const tools: ToolsConfig = { "*": { enable: { allow_toggle: "if_named" } }, x: {} };
    expect(stateAfter(tools, [disableAll])).toEqual({ state: true, allow_toggle: "if_named" });
  });

  it("does not mutate its input", () => {
    const snapshot = structuredClone(builtins);
    applyToggleDirectives(builtins, [disableAll, enable("ask_user"), disable("ask_user")]);
    expect(builtins).toEqual(snapshot);
  });

  it("applies over layered built-in and user config", () => {
    const user: ToolsConfig = { ask_user: { enable: { state: false } } };
    const tools = layerToolsConfigs(builtins, user);
    expect(enabledToolNames(tools)).not.toContain("ask_user");
    const applied = applyToggleDirectives(tools, [enable("ask_user")])._unsafeUnwrap();
    expect(enabledToolNames(applied)).toContain("ask_user");
  });
});

describe("enabledToolNames", () => {
  it.each<[string, ToolsConfig, string[]]>([
    ["empty", {}, []],
    ['"*" is never a tool', { "*": { enable: { state: true } } }, []],
    ["state defaults to on", { a: {}, b: { run: "ask" } }, ["a", "b"]],
    [
      'state inherited from "*"',
      { "*": { enable: { state: false } }, a: {}, b: { enable: { state: true } } },
      ["b"],
    ],
    ["explicit off", { a: { enable: { state: false, allow_toggle: "if_named" } }, b: {} }, ["b"]],
  ])("%s", (_case, tools, names) => {
    expect(enabledToolNames(tools)).toEqual(names);
  });
});
