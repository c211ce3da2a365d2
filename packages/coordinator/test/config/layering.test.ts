import { describe, expect, it } from "vitest";
import { layerToolConfigs, layerToolsConfigs } from "../../src/config/layering.js";
import { parseToolsConfig, resolveToolConfig } from "../../src/config/resolve.js";
import type { ToolConfig, ToolsConfig } from "../../src/config/schema.js";

/** A built-in entry shaped like RFD 083's `ask_user`. */
const askUser = {
  source: "builtin",
  enable: { state: true, allow_toggle: "if_named" },
  run: "unattended",
  result: "unattended",
  style: { hidden: true },
  description: "Ask the user a typed question.",
  parameters: {
    question: { type: "string", description: "The question text." },
    answer_type: { type: "string", enum: ["boolean", "select", "text"] },
  },
  questions: { answer: { prompt_label: "Assistant" } },
} satisfies ToolConfig;

/** Reads a user layer the way it arrives from a config file (legacy forms become tables). */
function userLayer(json: unknown): ToolConfig {
  const tools = parseToolsConfig({ ask_user: json })._unsafeUnwrap();
  return tools.ask_user ?? {};
}

describe("layerToolConfigs: a user override over a built-in keeps the untouched built-in fields", () => {
  it.each<[string, unknown, Partial<ToolConfig>]>([
    [
      "questions.answer.prompt_label",
      { questions: { answer: { prompt_label: "AI" } } },
      { questions: { answer: { prompt_label: "AI" } } },
    ],
    [
      "questions.answer.target (prompt_label kept)",
      { questions: { answer: { target: "user" } } },
      { questions: { answer: { prompt_label: "Assistant", target: "user" } } },
    ],
    [
      "another question (answer kept)",
      { questions: { other: { answer: true } } },
      { questions: { answer: { prompt_label: "Assistant" }, other: { answer: true } } },
    ],
    [
      "enable = { state = false } (allow_toggle stays if_named)",
      { enable: { state: false } },
      { enable: { state: false, allow_toggle: "if_named" } },
    ],
    [
      "enable = false (the bool shorthand resets allow_toggle to any)",
      { enable: false },
      { enable: { state: false, allow_toggle: "any" } },
    ],
    ["run", { run: "ask" }, { run: "ask" }],
    [
      "style.inline_results (hidden kept)",
      { style: { inline_results: "off" } },
      { style: { hidden: true, inline_results: "off" } },
    ],
    [
      "one parameter's description",
      { parameters: { question: { description: "Ask." } } },
      { parameters: { ...askUser.parameters, question: { type: "string", description: "Ask." } } },
    ],
    [
      "an array inside a parameter replaces the built-in array",
      { parameters: { answer_type: { enum: ["text"] } } },
      { parameters: { ...askUser.parameters, answer_type: { type: "string", enum: ["text"] } } },
    ],
    ["source", { source: "local" }, { source: "local" }],
  ])("user sets %s", (_field, user, changed) => {
    expect(layerToolConfigs(askUser, userLayer(user))).toEqual({ ...askUser, ...changed });
  });

  it("resolves the prompt_label override with every other built-in default intact", () => {
    const tools = layerToolsConfigs(
      { ask_user: askUser },
      parseToolsConfig({
        ask_user: { questions: { answer: { prompt_label: "AI" } } },
      })._unsafeUnwrap(),
    );
    const resolved = resolveToolConfig(tools, "ask_user");
    expect(resolved).toMatchObject({
      source: "builtin",
      enable: { state: true, allow_toggle: "if_named" },
      run: "unattended",
      result: "unattended",
      style: { hidden: true },
      description: askUser.description,
      parameters: askUser.parameters,
      questions: { answer: { prompt_label: "AI" } },
    });
  });
});

describe("layerToolConfigs: field rules", () => {
  it.each<[string, ToolConfig, ToolConfig, ToolConfig]>([
    [
      "scalars replace",
      { run: "ask", summary: "a" },
      { run: "skip" },
      { run: "skip", summary: "a" },
    ],
    [
      "options merge recursively",
      { options: { a: { x: 1, y: 2 } } },
      { options: { a: { y: 3 } } },
      { options: { a: { x: 1, y: 3 } } },
    ],
    [
      "arrays replace",
      { options: { list: [1, 2] } },
      { options: { list: [3] } },
      { options: { list: [3] } },
    ],
    [
      "a scalar option replaces a table option",
      { options: { a: { x: 1 } } },
      { options: { a: "off" } },
      { options: { a: "off" } },
    ],
    [
      "a command replaces whole (no inherited args)",
      { command: { program: "cargo", args: ["check"] } },
      { command: { program: "make" } },
      { command: { program: "make" } },
    ],
    [
      "a question target map replaces whole",
      { questions: { q: { target: { model: "a", x: 1 } } } },
      { questions: { q: { target: { model: "b" } } } },
      { questions: { q: { target: { model: "b" } } } },
    ],
    [
      "a fixed answer replaces whole",
      { questions: { q: { answer: { a: 1 } } } },
      { questions: { q: { answer: { b: 2 } } } },
      { questions: { q: { answer: { b: 2 } } } },
    ],
    [
      "detached tables merge per kind",
      { detached: { run: "auto" } },
      { detached: { tool: "deny" } },
      { detached: { run: "auto", tool: "deny" } },
    ],
    [
      "a detached scalar replaces a table",
      { detached: { run: "auto" } },
      { detached: "deny" },
      { detached: "deny" },
    ],
    [
      "a detached table over a scalar fills the rest",
      { detached: "auto" },
      { detached: { run: "deny" } },
      { detached: { run: "deny", deliver: "auto", tool: "auto" } },
    ],
    [
      "unknown keys merge like options",
      { extra: { a: 1 } },
      { extra: { b: 2 } },
      { extra: { a: 1, b: 2 } },
    ],
  ])("%s", (_rule, lower, upper, expected) => {
    expect(layerToolConfigs(lower, upper)).toEqual(expected);
  });

  it("skips undefined layers and undefined values, and returns {} for no layers", () => {
    expect(layerToolConfigs()).toEqual({});
    expect(layerToolConfigs(undefined, { run: "ask" }, undefined)).toEqual({ run: "ask" });
    expect(layerToolConfigs({ run: "ask" }, { run: undefined } as unknown as ToolConfig)).toEqual({
      run: "ask",
    });
  });

  it("does not mutate its inputs", () => {
    const lower: ToolConfig = { questions: { a: { prompt_label: "x" } }, enable: { state: true } };
    const upper: ToolConfig = { questions: { a: { exclusive: true } }, enable: { state: false } };
    const snapshot = structuredClone([lower, upper]);
    layerToolConfigs(lower, upper);
    expect([lower, upper]).toEqual(snapshot);
  });

  it("keeps a __proto__ key a plain key", () => {
    const upper = JSON.parse('{"options": {"__proto__": {"polluted": true}}}') as ToolConfig;
    const layered = layerToolConfigs({ options: { a: 1 } }, upper);
    expect(Object.hasOwn(layered.options ?? {}, "__proto__")).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(layered.options)).toBe(Object.prototype);
  });
});

describe("layerToolsConfigs", () => {
  const builtins: ToolsConfig = { ask_user: askUser, describe_tools: { run: "unattended" } };
  const user: ToolsConfig = {
    "*": { run: "ask", detached: "auto" },
    ask_user: { questions: { answer: { prompt_label: "AI" } } },
    fs_modify_file: { run: "edit", questions: { apply_changes: { target: "assistant" } } },
  };
  const overrides: ToolsConfig = {
    "*": { detached: { run: "deny" } },
    ask_user: { enable: { state: false } },
    fs_modify_file: { run: "unattended" },
  };

  it.each<[string, string, Partial<ToolConfig>]>([
    [
      "a built-in sits under the user's entry",
      "ask_user",
      {
        ...askUser,
        questions: { answer: { prompt_label: "AI" } },
        enable: { state: false, allow_toggle: "if_named" },
      },
    ],
    ["a built-in the user does not mention is kept", "describe_tools", { run: "unattended" }],
    [
      "a per-run override wins over the user's value, keeping the rest",
      "fs_modify_file",
      { run: "unattended", questions: { apply_changes: { target: "assistant" } } },
    ],
    [
      '"*" is layered like any tool',
      "*",
      { run: "ask", detached: { run: "deny", deliver: "auto", tool: "auto" } },
    ],
  ])("%s", (_case, name, expected) => {
    expect(layerToolsConfigs(builtins, user, overrides)[name]).toEqual(expected);
  });

  it("lists every tool of every layer, in first-seen order", () => {
    expect(Object.keys(layerToolsConfigs(builtins, user, overrides))).toEqual([
      "ask_user",
      "describe_tools",
      "*",
      "fs_modify_file",
    ]);
    expect(layerToolsConfigs(undefined, user, undefined)).toEqual(layerToolsConfigs(user));
  });

  it.each(["toString", "constructor", "valueOf", "hasOwnProperty"])(
    "keeps a tool named %s that only a lower layer configures",
    (name) => {
      const lower = JSON.parse(`{"${name}": {"run": "unattended"}}`) as ToolsConfig;
      const layered = layerToolsConfigs(lower, { other: { run: "ask" } });
      expect(Object.hasOwn(layered, name)).toBe(true);
      expect(layered[name]).toEqual({ run: "unattended" });
      expect(resolveToolConfig(layered, name).run).toBe("unattended");
      expect(parseToolsConfig(layered).isOk()).toBe(true);
    },
  );

  it("keeps a question named toString that only a lower layer configures", () => {
    const lower = JSON.parse(
      '{"t": {"questions": {"toString": {"target": "assistant"}}}}',
    ) as ToolsConfig;
    const upper: ToolsConfig = { t: { questions: { other: { target: "user" } } } };
    const layered = layerToolsConfigs(lower, upper);
    expect(layered.t?.questions).toEqual({
      toString: { target: "assistant" },
      other: { target: "user" },
    });
  });

  it("keeps a tool named __proto__ a plain key", () => {
    const lower = JSON.parse('{"__proto__": {"run": "unattended"}}') as ToolsConfig;
    const layered = layerToolsConfigs(lower, { other: { run: "ask" } });
    expect(Object.hasOwn(layered, "__proto__")).toBe(true);
    expect(Object.getPrototypeOf(layered)).toBe(Object.prototype);
    expect(resolveToolConfig(layered, "__proto__").run).toBe("unattended");
  });

  it("resolves per-run overrides over user config over built-ins", () => {
    const tools = layerToolsConfigs(builtins, user, overrides);
    expect(resolveToolConfig(tools, "fs_modify_file")).toMatchObject({
      run: "unattended",
      detached: { run: "deny", deliver: "auto", tool: "auto" },
    });
    expect(resolveToolConfig(tools, "ask_user").enable).toEqual({
      state: false,
      allow_toggle: "if_named",
    });
  });
});
