import { describe, expect, it } from "vitest";
import {
  decodeOutcome,
  encodeOutcome,
  failure,
  needsInput,
  type Outcome,
  parseOutcome,
  type Question,
  success,
} from "../src/index.js";

const question: Question = {
  id: "apply_changes",
  text: "Apply?",
  answer_type: { type: "boolean" },
};

describe("decodeOutcome", () => {
  it.each<[string, unknown, Outcome]>([
    ["success", { type: "success", content: "done" }, { type: "success", content: "done" }],
    [
      "a full error",
      { type: "error", message: "boom", trace: ["cause 1"], transient: true },
      { type: "error", message: "boom", trace: ["cause 1"], transient: true },
    ],
    [
      "an error without trace or transient",
      { type: "error", message: "boom" },
      { type: "error", message: "boom", trace: [], transient: false },
    ],
    [
      "a success with an unknown field, dropping it",
      { type: "success", content: "done", note: "x" },
      { type: "success", content: "done" },
    ],
    [
      "an error with an unknown field, without trace or transient",
      { type: "error", message: "boom", note: "x" },
      { type: "error", message: "boom", trace: [], transient: false },
    ],
    ["needs_input", { type: "needs_input", question }, { type: "needs_input", question }],
    [
      "needs_input with JP's legacy question",
      {
        type: "needs_input",
        question: { ...question, pre_amble: "<diff>", answer_type: "Boolean", default: null },
      },
      { type: "needs_input", question: { ...question, context: "<diff>" } },
    ],
  ])("reads %s", (_name, json, expected) => {
    const decoded = decodeOutcome(json);
    expect(decoded.isOk() && decoded.value).toEqual(expected);
  });

  it.each<[string, unknown, string, (string | number)[]]>([
    [
      "an unknown type",
      { type: "partial" },
      'outcome.type: expected one of "success", "error", "needs_input", got "partial"',
      ["type"],
    ],
    [
      "a success without content",
      { type: "success" },
      "outcome.content: is missing (expected a string)",
      ["content"],
    ],
    [
      "a trace that is not a list of strings",
      { type: "error", message: "boom", trace: [1] },
      "outcome.trace[0]: expected a string, got number",
      ["trace", 0],
    ],
    [
      "a question with a dotted id",
      { type: "needs_input", question: { ...question, id: "a.b" } },
      'outcome.question.id: must not contain "." (it becomes one segment of the inquiry id ' +
        '<tool_call_id>.<question_id>.<attempt>), got "a.b"',
      ["question", "id"],
    ],
    ["a number", 5, "outcome: expected an object, got number", []],
    [
      "an error message that is not a string",
      { type: "error", message: 5 },
      "outcome.message: expected a string, got number",
      ["message"],
    ],
    [
      "a transient that is not a boolean",
      { type: "error", message: "boom", transient: "yes" },
      "outcome.transient: expected a boolean, got string",
      ["transient"],
    ],
    [
      "a trace with one string and one number",
      { type: "error", message: "boom", trace: ["cause", 1] },
      "outcome.trace[1]: expected a string, got number",
      ["trace", 1],
    ],
  ])("refuses %s", (_name, json, message, path) => {
    const decoded = decodeOutcome(json);
    expect(decoded.isErr() && decoded.error).toEqual({ kind: "decode", message, path });
  });
});

describe("parseOutcome", () => {
  it("parses and decodes a tool's stdout", () => {
    const parsed = parseOutcome('{"type":"success","content":"File modified successfully"}\n');
    expect(parsed.isOk() && parsed.value).toEqual({
      type: "success",
      content: "File modified successfully",
    });
  });

  it.each(["File modified successfully", "", "{", '{"type":"success"'])(
    "answers Err on non-JSON stdout %j",
    (stdout) => {
      const parsed = parseOutcome(stdout);
      expect(parsed.isErr() && parsed.error.kind).toBe("decode");
      expect(parsed.isErr() && parsed.error.message).toMatch(/^outcome: not valid JSON: /);
      expect(parsed.isErr() && parsed.error.path).toEqual([]);
    },
  );

  it("answers Err on JSON that is not an outcome", () => {
    const parsed = parseOutcome("[]");
    expect(parsed.isErr() && parsed.error.message).toBe("outcome: expected an object, got array");
  });
});

describe("constructors", () => {
  it.each<[string, Outcome, Outcome]>([
    ["success", success("done"), { type: "success", content: "done" }],
    ["failure", failure("boom"), { type: "error", message: "boom", trace: [], transient: false }],
    [
      "a transient failure with a trace",
      failure("timeout", { trace: ["connect"], transient: true }),
      { type: "error", message: "timeout", trace: ["connect"], transient: true },
    ],
    [
      "needsInput, writing the question canonically",
      needsInput({ ...question, exclusive: false, persistence: "turn" }),
      { type: "needs_input", question },
    ],
  ])("%s", (_name, outcome, expected) => {
    expect(outcome).toEqual(expected);
  });

  it("failure without options is not transient and has no trace", () => {
    const outcome = failure("boom");
    expect(outcome.transient).toBe(false);
    expect(outcome.trace).toEqual([]);
  });

  it("round-trip through encodeOutcome and decodeOutcome", () => {
    for (const outcome of [success("x"), failure("y", { trace: ["z"] }), needsInput(question)]) {
      const decoded = decodeOutcome(JSON.parse(JSON.stringify(encodeOutcome(outcome))));
      expect(decoded.isOk() && decoded.value).toEqual(outcome);
    }
  });
});
