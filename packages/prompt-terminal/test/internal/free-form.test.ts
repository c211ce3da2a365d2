import type { QuestionReply } from "@jp/coordinator";
import type { AnswerType } from "@jp/tool";
import { describe, expect, it } from "vitest";
import { KEYS } from "../support/fake-terminal.js";
import {
  ALL_CONTROLS,
  harness,
  NO_CONTROLS,
  questionRequest,
  withEditor,
} from "../support/harness.js";

const text: AnswerType = { type: "text" };
const secret: AnswerType = { type: "secret" };

describe("text", () => {
  it("without controls asks at once, pre-filled with the default", async () => {
    const { term, ask } = harness();
    const reply = ask(
      questionRequest({ text: "Branch name?", answer_type: text, default: "main" }),
    );
    await term.waitFor("? Branch name? main");
    term.press("-2", KEYS.enter);
    await expect(reply).resolves.toEqual({ type: "answer", value: "main-2" });
  });

  it("with controls shows [Answer / Back / Reply / End Turn] first; Answer opens the input", async () => {
    const { term, ask } = harness();
    const reply = ask(
      questionRequest(
        { text: "Note?", answer_type: text },
        { controls: ALL_CONTROLS, initial: "draft" },
      ),
    );
    await term.waitFor("End Turn");
    expect(term.plain()).toContain(
      [
        "? Note?",
        "❯ a Answer (default)",
        "  ──────────",
        "  b Back",
        "  r Reply",
        "  s End Turn",
      ].join("\n"),
    );
    term.press(KEYS.enter);
    await term.waitFor("? Answer: draft");
    term.press(KEYS.backspace, KEYS.backspace, KEYS.backspace, KEYS.backspace, KEYS.backspace);
    term.press("final", KEYS.enter);
    await expect(reply).resolves.toEqual({ type: "answer", value: "final" });
  });

  it.each<[string, QuestionReply]>([
    ["b", { type: "back" }],
    ["s", { type: "end_turn" }],
  ])("pre-prompt key %s replies %o", async (key, expected) => {
    const { term, ask } = harness();
    const reply = ask(questionRequest({ answer_type: text }, { controls: ALL_CONTROLS }));
    await term.waitFor("End Turn");
    term.press(key);
    await expect(reply).resolves.toEqual(expected);
  });

  it("does not type an initial value holding control characters; shows it escaped and keeps it on Enter", async () => {
    const { term, ask } = harness();
    const reply = ask(questionRequest({ answer_type: text }, { initial: "a\rb\x03" }));
    await term.waitFor("(empty keeps");
    expect(term.plain()).toContain('(empty keeps "a\\rb\\u0003")');
    term.press(KEYS.enter);
    await expect(reply).resolves.toEqual({ type: "answer", value: "a\rb\x03" });
  });
});

describe("secret", () => {
  it("echoes nothing of what is typed, not even after submitting", async () => {
    const { term, ask } = harness();
    const reply = ask(questionRequest({ text: "API token?", answer_type: secret }));
    await term.waitFor("API token?");
    term.press("hunter2", KEYS.enter);
    await expect(reply).resolves.toEqual({ type: "answer", value: "hunter2" });
    expect(term.raw()).not.toContain("hunter2");
    expect(term.raw()).not.toMatch(/h.?u.?n.?t.?e.?r/);
    expect(term.raw()).not.toContain("*******");
  });

  it("is never pre-filled, even when a value is offered", async () => {
    const { term, ask } = harness();
    const reply = ask(questionRequest({ answer_type: secret }, { initial: "leaked" }));
    await term.waitFor("Proceed?");
    term.press(KEYS.enter);
    await expect(reply).resolves.toEqual({ type: "answer", value: "" });
    expect(term.raw()).not.toContain("leaked");
  });

  it("has the pre-prompt when controls are offered", async () => {
    const { term, ask } = harness();
    const reply = ask(questionRequest({ answer_type: secret }, { controls: ALL_CONTROLS }));
    await term.waitFor("End Turn");
    term.press("a");
    await term.waitFor("Answer:");
    term.press("s3cr3t", KEYS.enter);
    await expect(reply).resolves.toEqual({ type: "answer", value: "s3cr3t" });
    expect(term.raw()).not.toContain("s3cr3t");
  });
});

describe("schema", () => {
  const schema: AnswerType = {
    type: "schema",
    schema: {
      type: "object",
      properties: { port: { type: "integer" } },
      required: ["port"],
      additionalProperties: false,
    },
  };

  it("Answer opens the editor on a .json file holding the initial value; the saved JSON is the answer", async () => {
    const { term, ask, editor } = withEditor(['{ "port": 8080 }\n']);
    const reply = ask(
      questionRequest(
        { answer_type: schema, default: { port: 1 } },
        { controls: ALL_CONTROLS, initial: { port: 2 } },
      ),
    );
    await term.waitFor("End Turn");
    term.press("a");
    await expect(reply).resolves.toEqual({ type: "answer", value: { port: 8080 } });
    expect(editor.seen()).toEqual(['{\n  "port": 2\n}\n']);
    expect(editor.files()[0]).toMatch(/\.json$/);
  });

  it("shows why an answer is rejected, returns to the menu, and re-opens the editor on what was written", async () => {
    const { term, ask, editor } = withEditor(['{ "port": "http" }', "{ nope", '{ "port": 80 }']);
    const reply = ask(questionRequest({ answer_type: schema }, { controls: ALL_CONTROLS }));
    await term.waitFor("End Turn");
    term.press("a");
    await term.waitFor("The answer does not fit");
    await term.waitFor("End Turn");
    term.press("a");
    await term.waitFor("Not valid JSON");
    await term.waitFor("End Turn");
    term.press("a");
    await expect(reply).resolves.toEqual({ type: "answer", value: { port: 80 } });
    expect(editor.seen()).toEqual(["", '{ "port": "http" }', "{ nope"]);
  });

  it("lets the user leave with another menu option after a rejected answer", async () => {
    const { term, ask } = withEditor(["[]"]);
    const reply = ask(questionRequest({ answer_type: schema }, { controls: ALL_CONTROLS }));
    await term.waitFor("End Turn");
    term.press("a");
    await term.waitFor("End Turn");
    term.press("b");
    await expect(reply).resolves.toEqual({ type: "back" });
  });

  it("without controls opens the editor at once and again after a keypress when rejected", async () => {
    const { term, ask } = withEditor(["{}", '{"port": 1}']);
    const reply = ask(
      questionRequest({ text: "Config?", answer_type: schema }, { controls: NO_CONTROLS }),
    );
    await term.waitFor("Edit again?");
    expect(term.plain()).toContain("? Config? (opening your editor)");
    expect(term.plain()).toContain("✖ The answer does not fit");
    term.press("e");
    await expect(reply).resolves.toEqual({ type: "answer", value: { port: 1 } });
  });

  it("without controls gives up (cancelled) after five rejected answers", async () => {
    const { term, ask } = withEditor(["1", "2", "", { exit: 1 }, "5"]);
    const reply = ask(questionRequest({ answer_type: schema }));
    for (let round = 0; round < 4; round++) {
      await term.waitFor("e edit again (default)");
      term.press(KEYS.enter);
    }
    await expect(reply).resolves.toEqual({ type: "cancelled" });
    expect(term.plain()).toContain("The answer is empty");
    expect(term.plain()).toContain("exited with status 1");
    expect(term.plain()).toContain("Giving up after 5 attempts");
  });
});
