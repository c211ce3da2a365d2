import type { JsonObject } from "@jp/conversation";
import { describe, expect, it } from "vitest";
import type { CommandConfig } from "../../src/config/schema.js";
import { planCommand, renderArgs } from "../../src/executors/internal-command-template.js";

const contextKeys = new Set(["action", "root", "conversation_id"]);
const toolArguments: JsonObject = {
  path: "a b.txt",
  count: 3,
  nested: { list: ["x", "y"] },
  text: "{{tool.name}}",
};
const input: JsonObject = {
  tool: {
    name: "fs_read",
    arguments: toolArguments,
    answers: { token: "secret" },
    options: { mode: "fast" },
  },
  context: { action: "run", root: "/repo", conversation_id: "c1" },
};

function render(command: CommandConfig): string[] {
  return renderArgs(planCommand(command, contextKeys)._unsafeUnwrap(), input);
}

describe("planCommand + renderArgs", () => {
  it("treats a string command as the program alone, without splitting it", () => {
    const plan = planCommand("/usr/bin/my tool --flag", contextKeys)._unsafeUnwrap();
    expect(plan).toEqual({ program: "/usr/bin/my tool --flag", args: [], shell: false });
  });

  it.each<[string, string, string]>([
    ["the tool name", "{{tool.name}}", "fs_read"],
    ["spaces inside the braces", "{{ tool.name }}", "fs_read"],
    ["a string argument as it is", "{{tool.arguments.path}}", "a b.txt"],
    ["a number argument as JSON", "{{tool.arguments.count}}", "3"],
    ["an object argument as JSON", "{{tool.arguments.nested}}", '{"list":["x","y"]}'],
    ["an array index", "{{tool.arguments.nested.list.1}}", "y"],
    ["an absent argument as empty", "{{tool.arguments.missing}}", ""],
    ["an inherited property as empty", "{{tool.arguments.constructor}}", ""],
    ["all arguments as JSON", "{{tool.arguments}}", JSON.stringify(toolArguments)],
    ["an option", "{{tool.options.mode}}", "fast"],
    ["the root", "{{context.root}}", "/repo"],
    ["an extra context field", "{{context.conversation_id}}", "c1"],
    [
      "text around templates",
      "--path={{tool.arguments.path}};n={{tool.arguments.count}}",
      "--path=a b.txt;n=3",
    ],
    ["a value holding a template, not re-scanned", "{{tool.arguments.text}}", "{{tool.name}}"],
  ])("renders %s", (_name, template, expected) => {
    expect(render({ program: "p", args: [template] })).toEqual([expected]);
  });

  it.each<[string, CommandConfig, RegExp]>([
    ["an empty program", "", /program` is empty/],
    [
      "a template in the program",
      { program: "{{tool.arguments.cmd}}" },
      /may not contain a template/,
    ],
    ["the answers", { program: "p", args: ["{{tool.answers}}"] }, /answers can be secrets/],
    [
      "one answer",
      { program: "p", args: ["--key={{ tool.answers.token }}"] },
      /answers can be secrets/,
    ],
    ["the whole tool object", { program: "p", args: ["{{tool}}"] }, /answers can be secrets/],
    [
      "an unknown tool field",
      { program: "p", args: ["{{tool.argument.x}}"] },
      /unknown template variable/,
    ],
    ["an unknown context field", { program: "p", args: ["{{context.workspace_id}}"] }, /unknown/],
    ["an unknown root", { program: "p", args: ["{{env.HOME}}"] }, /unknown template variable/],
    [
      "a filter expression",
      { program: "p", args: ["{{tool.name | upper}}"] },
      /unsupported template/,
    ],
    [
      "a template with shell: true",
      { program: "echo", args: ["{{tool.name}}"], shell: true },
      /not allowed with `shell: true`/,
    ],
  ])("refuses %s", (_name, command, message) => {
    const plan = planCommand(command, contextKeys);
    expect(plan.isErr()).toBe(true);
    expect(plan._unsafeUnwrapErr()).toMatch(message);
  });

  it("accepts a static shell command", () => {
    const plan = planCommand(
      { program: "jq .tool.arguments", args: ["-c"], shell: true },
      contextKeys,
    );
    expect(plan._unsafeUnwrap()).toEqual({
      program: "jq .tool.arguments",
      args: [[{ text: "-c" }]],
      shell: true,
    });
  });
});
