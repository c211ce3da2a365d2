import type { QuestionReply } from "@jp/coordinator";
import type { AnswerType } from "@jp/tool";
import { describe, expect, it } from "vitest";
import { KEYS } from "../support/fake-terminal.js";
import { ALL_CONTROLS, harness, NO_CONTROLS, questionRequest } from "../support/harness.js";

const boolean: AnswerType = { type: "boolean" };

describe("header", () => {
  it("shows the label and [N/M], then the context, then the rejection, then the question", async () => {
    const { term, ask } = harness();
    const reply = ask(
      questionRequest(
        { text: "Apply it?", context: "--- a/x\n+++ b/x", answer_type: boolean },
        {
          prompt_label: "Assistant",
          progress: { index: 2, total: 3 },
          error: "expected true or false",
        },
      ),
    );
    await term.waitFor("[y,n]");
    expect(term.plain()).toContain(
      [
        "Assistant [2/3]",
        "--- a/x",
        "+++ b/x",
        "✖ Previous answer rejected: expected true or false",
        "? Apply it? [y,n]",
      ].join("\n"),
    );
    term.press("y");
    await reply;
  });

  it("shows no progress for a lone question and no empty lines for absent parts", async () => {
    const { term, ask } = harness();
    const reply = ask(
      questionRequest({ answer_type: boolean }, { progress: { index: 1, total: 1 } }),
    );
    await term.waitFor("[y,n]");
    expect(term.plain().startsWith("? Proceed? [y,n]")).toBe(true);
    term.press("n");
    await reply;
  });

  it("shows the lines after the first of a multi-line question above it", async () => {
    const { term, ask } = harness();
    const reply = ask(
      questionRequest({ text: "Apply this patch?\n\n+ added", answer_type: boolean }),
    );
    await term.waitFor("[y,n]");
    expect(term.plain()).toContain("+ added\n? Apply this patch? [y,n]");
    term.press("n");
    await reply;
  });
});

describe("boolean", () => {
  it.each<[string, QuestionReply]>([
    ["y", { type: "answer", value: true }],
    ["Y", { type: "answer", value: true, remember: true }],
    ["n", { type: "answer", value: false }],
    ["N", { type: "answer", value: false, remember: true }],
    ["b", { type: "back" }],
    ["s", { type: "end_turn" }],
  ])("key %s replies %o", async (key, expected) => {
    const { term, ask } = harness();
    const reply = ask(questionRequest({ answer_type: boolean }, { controls: ALL_CONTROLS }));
    await term.waitFor("[y,Y,n,N,b,r,s]");
    expect(term.plain()).toContain(
      "y yes · Y yes + remember for turn · n no · N no + remember for turn · b Back · r Reply · s End Turn",
    );
    term.press(key);
    await expect(reply).resolves.toEqual(expected);
  });

  it("r asks for an optional message to the assistant", async () => {
    const { term, ask } = harness();
    const reply = ask(questionRequest({ answer_type: boolean }, { controls: ALL_CONTROLS }));
    await term.waitFor("[y,Y,n,N,b,r,s]");
    term.press("r");
    await term.waitFor("Reply to the assistant (optional):");
    term.press("use staging instead", KEYS.enter);
    await expect(reply).resolves.toEqual({ type: "reply", message: "use staging instead" });
  });

  it("r with an empty message replies without one", async () => {
    const { term, ask } = harness();
    const reply = ask(questionRequest({ answer_type: boolean }, { controls: ALL_CONTROLS }));
    await term.waitFor("[y,Y,n,N,b,r,s]");
    term.press("r");
    await term.waitFor("Reply to the assistant");
    term.press(KEYS.enter);
    await expect(reply).resolves.toEqual({ type: "reply" });
  });

  it("offers Y/N only with remember and b/r/s only when offered", async () => {
    const { term, ask } = harness();
    const reply = ask(
      questionRequest(
        { answer_type: boolean },
        { controls: { remember: false, back: false, reply: true, end_turn: false } },
      ),
    );
    await term.waitFor("[y,n,r]");
    term.press("Y", "N", "b", "s", "n");
    await expect(reply).resolves.toEqual({ type: "answer", value: false });
  });

  it.each<[string, Partial<Parameters<typeof questionRequest>[1]>, unknown, boolean]>([
    ["the default", {}, true, true],
    ["initial over the default", { initial: false }, true, false],
  ])("Enter takes %s", async (_what, extra, defaultValue, expected) => {
    const { term, ask } = harness();
    const reply = ask(
      questionRequest({ answer_type: boolean, default: defaultValue as boolean }, extra),
    );
    await term.waitFor(`${expected ? "yes" : "no"} (default)`);
    term.press(KEYS.enter);
    await expect(reply).resolves.toEqual({ type: "answer", value: expected });
  });
});

describe("select", () => {
  const select: AnswerType = { type: "select", options: ["staging", "production", "dev"] };

  it("lists the options with number keys and the offered controls with b/r/s", async () => {
    const { term, ask } = harness();
    const reply = ask(
      questionRequest({ text: "Where?", answer_type: select }, { controls: ALL_CONTROLS }),
    );
    await term.waitFor("End Turn");
    expect(term.plain()).toContain(
      [
        "? Where?",
        "❯ 1 staging",
        "  2 production",
        "  3 dev",
        "  ──────────",
        "  b Back",
        "  r Reply",
        "  s End Turn",
      ].join("\n"),
    );
    term.press("2");
    await expect(reply).resolves.toEqual({ type: "answer", value: "production" });
  });

  it.each<[string, string[], QuestionReply]>([
    ["arrows and Enter", [KEYS.down, KEYS.down, KEYS.enter], { type: "answer", value: "dev" }],
    ["b", ["b"], { type: "back" }],
    ["s", ["s"], { type: "end_turn" }],
  ])("%s", async (_what, keys, expected) => {
    const { term, ask } = harness();
    const reply = ask(questionRequest({ answer_type: select }, { controls: ALL_CONTROLS }));
    await term.waitFor("End Turn");
    term.press(...keys);
    await expect(reply).resolves.toEqual(expected);
  });

  it("starts on initial, else the default; Back hidden when not offered", async () => {
    const { term, ask } = harness();
    const reply = ask(
      questionRequest(
        { answer_type: select, default: "dev" },
        { initial: "production", controls: { ...ALL_CONTROLS, back: false } },
      ),
    );
    await term.waitFor("End Turn");
    expect(term.plain()).toContain("❯ 2 production (default)");
    expect(term.plain()).not.toContain("Back");
    term.press("b", KEYS.enter);
    await expect(reply).resolves.toEqual({ type: "answer", value: "production" });
  });
});

describe("multi_select", () => {
  const multi: AnswerType = { type: "multi_select", options: ["cheese", "ham", "olives"] };

  it("submits the checked options, pre-checked from the default", async () => {
    const { term, ask } = harness();
    const reply = ask(questionRequest({ answer_type: multi, default: ["ham"] }));
    await term.waitFor("⏎ submit");
    expect(term.plain()).not.toContain("esc");
    term.press(KEYS.space, "3", KEYS.enter);
    await expect(reply).resolves.toEqual({ type: "answer", value: ["cheese", "ham", "olives"] });
  });

  it("Esc opens [Answer / Back / Reply / End Turn]; Back replies back", async () => {
    const { term, ask } = harness();
    const reply = ask(questionRequest({ answer_type: multi }, { controls: ALL_CONTROLS }));
    await term.waitFor("esc Back / Reply / End Turn");
    term.press(KEYS.escape);
    await term.waitFor("s End Turn");
    term.press("b");
    await expect(reply).resolves.toEqual({ type: "back" });
  });

  it("Answer returns to the list with the checks kept", async () => {
    const { term, ask } = harness();
    const reply = ask(
      questionRequest(
        { answer_type: multi },
        { initial: ["olives"], controls: { ...NO_CONTROLS, end_turn: true } },
      ),
    );
    await term.waitFor("esc End Turn");
    term.press("1", KEYS.escape);
    await term.waitFor("s End Turn");
    term.press("a");
    await term.waitFor("◉ 1 cheese");
    term.press(KEYS.enter);
    await expect(reply).resolves.toEqual({ type: "answer", value: ["cheese", "olives"] });
  });
});
