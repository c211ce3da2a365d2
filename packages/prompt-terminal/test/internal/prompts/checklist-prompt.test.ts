import { render } from "@inquirer/testing";
import { describe, expect, it } from "vitest";
import { checklistPrompt } from "../../../src/internal/prompts/checklist-prompt.js";
import { safe } from "../../../src/internal/safe-text.js";

const options = [safe`cheese`, safe`ham`, safe`olives`];

describe("checklistPrompt", () => {
  it("toggles with space and numbers, submits with Enter", async () => {
    const { answer, events, getScreen } = await render(checklistPrompt, {
      message: safe`Toppings?`,
      options,
      checked: [false, true, false],
    });
    expect(getScreen()).toContain("◉ 2 ham");
    expect(getScreen()).not.toContain("esc");
    events.keypress("space");
    events.keypress("3");
    events.keypress("2");
    events.keypress("enter");
    await expect(answer).resolves.toEqual({ type: "submit", checked: [true, false, true] });
    expect(getScreen()).toBe("✔ Toppings? cheese, olives");
  });

  it.each([
    ["a", [false, true, false], [true, true, true]],
    ["a", [true, true, true], [false, false, false]],
    ["i", [false, true, false], [true, false, true]],
  ])("%s on %o gives %o", async (key, checked, expected) => {
    const { answer, events } = await render(checklistPrompt, {
      message: safe`Toppings?`,
      options,
      checked,
    });
    events.keypress(key);
    events.keypress("enter");
    await expect(answer).resolves.toEqual({ type: "submit", checked: expected });
  });

  it("leaves on Esc with the current state when a menu is behind it, and says so", async () => {
    const { answer, events, getScreen } = await render(checklistPrompt, {
      message: safe`Toppings?`,
      options,
      checked: [false, false, false],
      escapeHint: safe`Back / Reply / End Turn`,
    });
    expect(getScreen()).toContain("esc Back / Reply / End Turn");
    events.keypress("down");
    events.keypress("space");
    events.keypress("escape");
    await expect(answer).resolves.toEqual({ type: "escape", checked: [false, true, false] });
  });

  it("ignores Esc when there is no menu to open", async () => {
    const { answer, events } = await render(checklistPrompt, {
      message: safe`Toppings?`,
      options,
      checked: [true, false, false],
    });
    events.keypress("escape");
    events.keypress("enter");
    await expect(answer).resolves.toEqual({ type: "submit", checked: [true, false, false] });
  });
});
