import { render } from "@inquirer/testing";
import { describe, expect, it } from "vitest";
import { menuPrompt } from "../../../src/internal/prompts/menu-prompt.js";
import { safe } from "../../../src/internal/safe-text.js";

const items = [
  { label: safe`staging`, key: "1" },
  { label: safe`production`, key: "2" },
  { label: safe`Back`, key: "b", separated: true },
  { label: safe`End Turn`, key: "s" },
];

describe("menuPrompt", () => {
  it("starts on the default, marks it, and sets the controls apart", async () => {
    const { answer, events, getScreen } = await render(menuPrompt, {
      message: safe`Which environment?`,
      items,
      default: 1,
    });
    expect(getScreen()).toBe(
      [
        "? Which environment?",
        "  1 staging",
        "❯ 2 production (default)",
        "  ──────────",
        "  b Back",
        "  s End Turn",
        "↑↓ move · ⏎ choose · or press a key",
      ].join("\n"),
    );
    events.keypress("enter");
    await expect(answer).resolves.toBe(1);
    expect(getScreen()).toBe("✔ Which environment? production");
  });

  it("moves with the arrows, skipping the rule, and wraps around", async () => {
    const { answer, events } = await render(menuPrompt, { message: safe`Pick`, items });
    events.keypress("down");
    events.keypress("down");
    events.keypress("down");
    events.keypress("down");
    events.keypress("up");
    events.keypress("enter");
    await expect(answer).resolves.toBe(3);
  });

  it.each([
    ["1", 0],
    ["2", 1],
    ["b", 2],
    ["s", 3],
  ])("hotkey %s picks item %i at once", async (key, index) => {
    const { answer, events } = await render(menuPrompt, { message: safe`Pick`, items });
    events.keypress(key);
    await expect(answer).resolves.toBe(index);
  });

  it("ignores keys that are no hotkey", async () => {
    const { answer, events } = await render(menuPrompt, { message: safe`Pick`, items });
    events.keypress("x");
    events.keypress({ name: "b", shift: true });
    events.keypress("enter");
    await expect(answer).resolves.toBe(0);
  });
});
