import type { PromptRequest, QuestionPromptRequest } from "@jp/coordinator";
import type { AnswerType } from "@jp/tool";
import { describe, expect, it } from "vitest";
import { checkReply, fieldProblems } from "../src/internal/reply-check.js";

const ALL = { remember: true, back: true, reply: true, end_turn: true };
const NONE = { remember: false, back: false, reply: false, end_turn: false };

function question(
  answer_type: AnswerType,
  controls: QuestionPromptRequest["controls"] = NONE,
): QuestionPromptRequest {
  return {
    kind: "question",
    tool_name: "ask_user",
    tool_call_id: "call_1",
    inquiry_id: "call_1.q.1",
    question: { id: "q", text: "Q?", answer_type },
    controls,
  };
}

const PERMISSION: PromptRequest = {
  kind: "permission",
  tool_name: "shell",
  tool_call_id: "call_1",
  arguments: { cmd: "ls" },
  mode: "ask",
};
const DELIVER: PromptRequest = {
  kind: "deliver",
  tool_name: "shell",
  tool_call_id: "call_1",
  content: "out",
  is_error: false,
  mode: "ask",
};

const SCHEMA: AnswerType = {
  type: "schema",
  schema: {
    type: "object",
    properties: { age: { type: "integer" }, name: { type: "string" } },
    required: ["name"],
  },
};

describe("accepted replies", () => {
  it.each<[string, PromptRequest, unknown]>([
    ["a boolean", question({ type: "boolean" }), { type: "answer", value: false }],
    [
      "a remembered boolean",
      question({ type: "boolean" }, ALL),
      { type: "answer", value: true, remember: true },
    ],
    [
      "a select option",
      question({ type: "select", options: ["a", "b"] }),
      { type: "answer", value: "b" },
    ],
    [
      "no option of a multi_select",
      question({ type: "multi_select", options: ["a", "b"] }),
      { type: "answer", value: [] },
    ],
    ["empty text", question({ type: "text" }), { type: "answer", value: "" }],
    ["a secret", question({ type: "secret" }), { type: "answer", value: "hunter2" }],
    ["a schema answer", question(SCHEMA), { type: "answer", value: { name: "Ada", age: 36 } }],
    ["Back, offered", question({ type: "text" }, ALL), { type: "back" }],
    ["Reply with a message", question({ type: "text" }, ALL), { type: "reply", message: "wait" }],
    ["Reply without one", question({ type: "text" }, ALL), { type: "reply" }],
    ["End Turn, offered", question({ type: "text" }, ALL), { type: "end_turn" }],
    ["cancel, never offered but always allowed", question({ type: "text" }), { type: "cancelled" }],
    ["run", PERMISSION, { type: "run", remember: true }],
    ["skip with a reason", PERMISSION, { type: "skip", reason: "not now" }],
    ["edited arguments", PERMISSION, { type: "edit", arguments: { cmd: "pwd" } }],
    ["deliver", DELIVER, { type: "deliver" }],
    ["an edited result", DELIVER, { type: "edit", content: "shorter" }],
  ])("%s", (_, request, body) => {
    expect(checkReply(request, body)).toEqual({ ok: true, reply: body });
  });

  it("passes an answer on when the question's own schema does not compile (the tool's fault)", () => {
    const broken = question({ type: "schema", schema: { type: "no-such-type" } });
    expect(checkReply(broken, { type: "answer", value: 1 }).ok).toBe(true);
  });
});

describe("refused replies", () => {
  it.each<[string, PromptRequest, unknown, string]>([
    ["not an object", question({ type: "text" }), "yes", "not a question reply"],
    ["an unknown type", question({ type: "text" }), { type: "maybe" }, "not a question reply"],
    [
      "a permission reply to a question",
      question({ type: "text" }),
      { type: "run" },
      "not a question reply",
    ],
    [
      "edit arguments that are not an object",
      PERMISSION,
      { type: "edit", arguments: [1] },
      "not a permission reply",
    ],
    [
      "an edited result that is not text",
      DELIVER,
      { type: "edit", content: 5 },
      "not a deliver reply",
    ],
    [
      "Back, not offered",
      question({ type: "text" }),
      { type: "back" },
      "Back is not offered for this question",
    ],
    [
      "Reply, not offered",
      question({ type: "text" }),
      { type: "reply" },
      "Reply is not offered for this question",
    ],
    [
      "End Turn, not offered",
      question({ type: "text" }),
      { type: "end_turn" },
      "End Turn is not offered for this question",
    ],
    [
      "remember, not offered",
      question({ type: "boolean" }),
      { type: "answer", value: true, remember: true },
      "remember for this turn is not offered for this question",
    ],
    [
      "a boolean as text",
      question({ type: "boolean" }),
      { type: "answer", value: "yes" },
      'expected true or false, got "yes"',
    ],
    [
      "an option not offered",
      question({ type: "select", options: ["a", "b"] }),
      { type: "answer", value: "c" },
      'expected one of "a", "b", got "c"',
    ],
    [
      "a choice twice",
      question({ type: "multi_select", options: ["a", "b"] }),
      { type: "answer", value: ["a", "a"] },
      'item 1: "a" is chosen twice; each choice may appear only once',
    ],
  ])("%s", (_, request, body, message) => {
    const checked = checkReply(request, body);
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(checked.problem.message).toContain(message);
  });

  it("never quotes a secret: a wrongly typed secret is described by its type only", () => {
    const checked = checkReply(question({ type: "secret" }), {
      type: "answer",
      value: { password: "hunter2" },
    });
    expect(checked).toEqual({ ok: false, problem: { message: "expected a string, got object" } });
  });

  it("locates schema problems by field, as JSON pointers", () => {
    const checked = checkReply(question(SCHEMA), { type: "answer", value: { age: 1.5 } });
    expect(checked.ok).toBe(false);
    if (checked.ok) return;
    expect(checked.problem.fields).toEqual([
      { path: "", message: "must have required property 'name'" },
      { path: "/age", message: "must be integer" },
    ]);
  });
});

describe("fieldProblems", () => {
  it.each<[string, string, { path: string; message: string }[]]>([
    [
      "several fields",
      "does not match the JSON Schema: /a: must be integer; /b/0: must be string",
      [
        { path: "/a", message: "must be integer" },
        { path: "/b/0", message: "must be string" },
      ],
    ],
    [
      "the root",
      "does not match the JSON Schema: (root): must be object",
      [{ path: "", message: "must be object" }],
    ],
    [
      "more than shown",
      "does not match the JSON Schema: /a: must be integer (and 3 more)",
      [{ path: "/a", message: "must be integer" }],
    ],
    [
      "another message",
      "expected a JSON object",
      [{ path: "", message: "expected a JSON object" }],
    ],
  ])("%s", (_, message, expected) => {
    expect(fieldProblems(message)).toEqual(expected);
  });
});
