import { render } from "@inquirer/testing";
import { describe, expect, it } from "vitest";
import { keyPrompt } from "../../../src/internal/prompts/key-prompt.js";
import { safe } from "../../../src/internal/safe-text.js";

const choices = [
  { key: "y", label: safe`yes` },
  { key: "Y", label: safe`yes + remember for turn` },
  { key: "n", label: safe`no` },
];

describe("keyPrompt", () => {
  it("lists the keys on the prompt line and explains them below, the default marked", async () => {
    const { answer, events, getScreen } = await render(keyPrompt, {
      message: safe`Apply?`,
      choices,
      default: "n",
    });
    expect(getScreen()).toContain("? Apply? [y,Y,n]");
    expect(getScreen()).toContain("y yes · Y yes + remember for turn · n no (default)");
    events.keypress("y");
    await expect(answer).resolves.toBe("y");
    expect(getScreen()).toBe("✔ Apply? yes");
  });

  it.each([
    [{ name: "y" }, "y"],
    [{ name: "y", shift: true }, "Y"],
    [{ name: "n" }, "n"],
    [{ name: "enter" }, "n"],
  ])("keypress %o picks %s (uppercase is a different key)", async (key, expected) => {
    const { answer, events } = await render(keyPrompt, {
      message: safe`Apply?`,
      choices,
      default: "n",
    });
    events.keypress(key);
    await expect(answer).resolves.toBe(expected);
  });

  it("ignores other keys, and Enter without a default, with a reminder", async () => {
    const { answer, events, getScreen } = await render(keyPrompt, {
      message: safe`Run?`,
      choices,
    });
    events.keypress("x");
    events.keypress("enter");
    events.keypress({ name: "y", ctrl: true });
    expect(getScreen()).toContain("Press one of y, Y, n");
    events.keypress("n");
    await expect(answer).resolves.toBe("n");
  });
});
