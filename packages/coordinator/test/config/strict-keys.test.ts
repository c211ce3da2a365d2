import { describe, expect, it } from "vitest";
import { parseToolsConfig } from "../../src/index.js";

/** The error message `parseToolsConfig` gives for `json`, or a failure when it accepts it. */
function problem(json: unknown): string {
  const parsed = parseToolsConfig(json);
  if (parsed.isOk()) throw new Error(`accepted: ${JSON.stringify(parsed.value)}`);
  return parsed.error.message;
}

const DETACHED_KEYS = 'expected one of "run", "deliver", "tool"';
const QUESTION_KEYS = 'expected one of "target", "answer", "prompt_label", "exclusive"';

describe("unknown keys in a `detached` table are configuration errors", () => {
  it.each<[string, unknown, string]>([
    [
      "`result`, the name RFD 049 warns about",
      { git: { detached: { result: "auto" } } },
      `conversation.tools.git.detached.result: unknown key (did you mean "deliver"? the prompt kind for result delivery is "deliver"); ${DETACHED_KEYS}`,
    ],
    [
      "a typo of deliver",
      { git: { detached: { delivr: "auto" } } },
      `conversation.tools.git.detached.delivr: unknown key (did you mean "deliver"?); ${DETACHED_KEYS}`,
    ],
    [
      'a key in the wrong case, under `"*"`',
      { "*": { detached: { Run: "auto" } } },
      `conversation.tools."*".detached.Run: unknown key (did you mean "run"?); ${DETACHED_KEYS}`,
    ],
    [
      "a key nothing is close to",
      { git: { detached: { zzzzzzzz: "auto" } } },
      `conversation.tools.git.detached.zzzzzzzz: unknown key; ${DETACHED_KEYS}`,
    ],
    [
      "two unknown keys next to a known one",
      { git: { detached: { run: "auto", delivr: "auto", toool: "deny" } } },
      `conversation.tools.git.detached.delivr: unknown key (did you mean "deliver"?) and 1 more unknown key(s); ${DETACHED_KEYS}`,
    ],
  ])("%s", (_name, json, message) => {
    expect(problem(json)).toBe(message);
  });

  it("the known keys and the scalar form are still accepted", () => {
    expect(
      parseToolsConfig({
        git: { detached: { run: "auto", deliver: "deny", tool: "defaults" } },
      }).isOk(),
    ).toBe(true);
    expect(parseToolsConfig({ git: { detached: "auto" } }).isOk()).toBe(true);
    expect(problem({ git: { detached: { result: "auto", run: "auto" } } })).toMatch(
      /^conversation\.tools\.git\.detached\.result: unknown key/,
    );
  });
});

describe("unknown keys under `questions.<id>` are configuration errors", () => {
  it.each<[string, unknown, string]>([
    [
      "exclusiv",
      { git: { questions: { confirm_force_push: { exclusiv: false } } } },
      `conversation.tools.git.questions.confirm_force_push.exclusiv: unknown key (did you mean "exclusive"?); ${QUESTION_KEYS}`,
    ],
    [
      "prompt_lable",
      { git: { questions: { apply: { prompt_lable: "Assistant" } } } },
      `conversation.tools.git.questions.apply.prompt_lable: unknown key (did you mean "prompt_label"?); ${QUESTION_KEYS}`,
    ],
    [
      'awnser under questions."*"',
      { git: { questions: { "*": { awnser: true } } } },
      `conversation.tools.git.questions."*".awnser: unknown key (did you mean "answer"?); ${QUESTION_KEYS}`,
    ],
    [
      "Target in the wrong case",
      { git: { questions: { apply: { Target: "user" } } } },
      `conversation.tools.git.questions.apply.Target: unknown key (did you mean "target"?); ${QUESTION_KEYS}`,
    ],
    [
      "a key nothing is close to",
      { git: { questions: { apply: { colour: "red" } } } },
      `conversation.tools.git.questions.apply.colour: unknown key; ${QUESTION_KEYS}`,
    ],
  ])("%s", (_name, json, message) => {
    expect(problem(json)).toBe(message);
  });
});
