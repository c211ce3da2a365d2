import type { PromptRequest } from "@jp/coordinator";
import { describe, expect, it } from "vitest";
import { planAskUser, SIMPLE_QUESTION_RULES } from "../src/simple-prompts.js";
import { question, REQUESTS } from "./support.js";

const plan = (request: PromptRequest) => planAskUser(request)._unsafeUnwrap();

describe("planAskUser: what a simple client can be asked", () => {
  it.each<[string, PromptRequest, string[] | undefined]>([
    ["boolean", REQUESTS.boolean, ["yes", "no"]],
    ["select", REQUESTS.select, ["red", "blue"]],
    ["text", REQUESTS.text, undefined],
    ["permission (ask)", REQUESTS.permission, ["run", "skip"]],
    ["deliver (ask)", REQUESTS.deliver, ["deliver", "skip"]],
  ])("%s → choices %j", (_name, request, choices) => {
    expect(plan(request).choices).toEqual(choices);
  });

  it.each<[string, PromptRequest, RegExp]>([
    ["multi_select", REQUESTS.multiSelect, /several choices/],
    ["secret", REQUESTS.secret, /hidden input/],
    ["schema", REQUESTS.schema, /structured JSON/],
    ["permission (edit)", REQUESTS.permissionEdit, /edit mode/],
    ["deliver (edit)", REQUESTS.deliverEdit, /edit mode/],
  ])("%s → refused, with the reason", (_name, request, reason) => {
    expect(planAskUser(request)._unsafeUnwrapErr()).toMatch(reason);
  });

  it("names what this person can answer when it refuses a question", () => {
    expect(planAskUser(REQUESTS.multiSelect)._unsafeUnwrapErr()).toBe(
      "this person can only answer boolean, select and text questions: a multi_select question takes several choices, and their client returns a single answer",
    );
  });

  it.each<[string, PromptRequest, string[] | undefined]>([
    ["jp leaves choices out for free text", REQUESTS.text, undefined],
    ["a select keeps its options", REQUESTS.select, ["red", "blue"]],
  ])("dialect: %s", (_name, request, choices) => {
    expect(plan(request).choices).toEqual(choices);
  });

  it("dialect opal: always sends choices, [] for free text, as Opal's own server does", () => {
    expect(planAskUser(REQUESTS.text, "opal")._unsafeUnwrap().choices).toEqual([]);
    expect(planAskUser(REQUESTS.boolean, "opal")._unsafeUnwrap().choices).toEqual(["yes", "no"]);
  });

  it("has a rule for every answer type", () => {
    expect(Object.keys(SIMPLE_QUESTION_RULES).sort()).toEqual([
      "boolean",
      "multi_select",
      "schema",
      "secret",
      "select",
      "text",
    ]);
  });
});

describe("answers read back", () => {
  it.each<[string, PromptRequest, string, unknown]>([
    ["yes", REQUESTS.boolean, "yes", { type: "answer", value: true }],
    ["Y (any case, trimmed)", REQUESTS.boolean, " Y ", { type: "answer", value: true }],
    ["false", REQUESTS.boolean, "false", { type: "answer", value: false }],
    [
      "an unknown word (left to the coordinator)",
      REQUESTS.boolean,
      "maybe",
      { type: "answer", value: "maybe" },
    ],
    [
      "constructor (no prototype lookups)",
      REQUESTS.boolean,
      "constructor",
      { type: "answer", value: "constructor" },
    ],
    ["a choice, verbatim", REQUESTS.select, "blue", { type: "answer", value: "blue" }],
    ["free text, verbatim", REQUESTS.text, "  spaced  ", { type: "answer", value: "  spaced  " }],
    ["run", REQUESTS.permission, "run", { type: "run" }],
    ["yes for run", REQUESTS.permission, "yes", { type: "run" }],
    ["no for skip", REQUESTS.permission, "n", { type: "skip" }],
    ["deliver", REQUESTS.deliver, "Deliver", { type: "deliver" }],
    ["skip a delivery", REQUESTS.deliver, "skip", { type: "skip" }],
  ])("%s", (_name, request, answer, expected) => {
    expect(plan(request).decode(answer)._unsafeUnwrap()).toEqual(expected);
  });

  it("refuses a word that means nothing for a two-way prompt", () => {
    expect(plan(REQUESTS.deliver).decode("run")._unsafeUnwrapErr()).toBe(
      'expected "deliver" or "skip", got "run"',
    );
  });
});

describe("the question text", () => {
  it("is the question's text, after its context, with the label and the retry reason", () => {
    const request: PromptRequest = {
      ...question("colour", { type: "select", options: ["red"] }),
      prompt_label: "Sub-agent",
      error: "the answer must be one of the options",
    };
    request.question.context = "We are painting the shed.";
    expect(plan(request).question).toBe(
      "We are painting the shed.\n\nSub-agent: What about colour?\n\n(the answer must be one of the options)",
    );
  });

  it("shows a permission's arguments and a delivery's content", () => {
    expect(plan({ ...REQUESTS.permission, tool_source: "local" }).question).toBe(
      'Run the tool "shell" (local) with arguments {"cmd":"ls"}?',
    );
    expect(plan({ ...REQUESTS.deliver, is_error: true }).question).toBe(
      'Deliver this error result of the tool "shell" to the assistant?\n\nfile.txt',
    );
  });
});
