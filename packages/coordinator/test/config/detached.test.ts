import { describe, expect, it } from "vitest";
import { layerDetached, resolveDetached } from "../../src/config/detached.js";
import type { DetachedConfig, PromptKind, ToolConfig } from "../../src/config/schema.js";

describe("resolveDetached", () => {
  // RFD 049: 1. tools.<name>.detached.<kind>  2. tools.<name>.detached  3. "*".detached.<kind>
  // 4. "*".detached  5. "deny". Each row asks for `kind` and names the level that must win.
  it.each<[string, ToolConfig | undefined, ToolConfig | undefined, PromptKind, string]>([
    [
      "1: tool per-kind beats everything",
      { detached: { run: "auto" } },
      { detached: { run: "defaults" } },
      "run",
      "auto",
    ],
    [
      "1: tool per-kind beats the defaults scalar",
      { detached: { tool: "defaults" } },
      { detached: "auto" },
      "tool",
      "defaults",
    ],
    [
      "2: tool scalar",
      { detached: "auto" },
      { detached: { deliver: "defaults" } },
      "deliver",
      "auto",
    ],
    [
      "2: tool scalar beats defaults per-kind and scalar",
      { detached: "defaults" },
      { detached: "auto" },
      "run",
      "defaults",
    ],
    [
      "3: defaults per-kind when the tool table omits the kind",
      { detached: { run: "auto" } },
      { detached: { deliver: "defaults" } },
      "deliver",
      "defaults",
    ],
    [
      "3: defaults per-kind when the tool sets no detached",
      {},
      { detached: { tool: "auto" } },
      "tool",
      "auto",
    ],
    [
      "4: defaults scalar when the tool table omits the kind",
      { detached: { run: "auto" } },
      { detached: "defaults" },
      "tool",
      "defaults",
    ],
    ["4: defaults scalar", undefined, { detached: "auto" }, "run", "auto"],
    ["5: deny when nothing is set", undefined, undefined, "run", "deny"],
    [
      "5: deny when neither table names the kind",
      { detached: { run: "auto" } },
      { detached: { tool: "auto" } },
      "deliver",
      "deny",
    ],
    ["5: deny with empty tables", { detached: {} }, { detached: {} }, "tool", "deny"],
    [
      "an explicit deny at level 1 beats auto below",
      { detached: { run: "deny" } },
      { detached: "auto" },
      "run",
      "deny",
    ],
  ])("%s", (_level, tool, defaults, kind, expected) => {
    expect(resolveDetached(tool, defaults, kind)).toBe(expected);
  });
});

describe("layerDetached", () => {
  it.each<
    [string, DetachedConfig | undefined, DetachedConfig | undefined, DetachedConfig | undefined]
  >([
    ["nothing over nothing", undefined, undefined, undefined],
    ["a scalar over nothing", undefined, "auto", "auto"],
    ["nothing over a table keeps it", { run: "auto" }, undefined, { run: "auto" }],
    ["a scalar replaces a table whole", { run: "auto", tool: "defaults" }, "deny", "deny"],
    ["a scalar replaces a scalar", "auto", "deny", "deny"],
    [
      "a table over a scalar fills the rest from the scalar",
      "auto",
      { run: "deny" },
      { run: "deny", deliver: "auto", tool: "auto" },
    ],
    [
      "tables merge per kind",
      { run: "auto", deliver: "defaults" },
      { deliver: "deny", tool: "auto" },
      { run: "auto", deliver: "deny", tool: "auto" },
    ],
    ["an empty table over a table keeps it", { run: "auto" }, {}, { run: "auto" }],
  ])("%s", (_case, lower, upper, expected) => {
    expect(layerDetached(lower, upper)).toEqual(expected);
  });

  it("gives the cascade the same answer for a scalar and its expanded table", () => {
    for (const kind of ["run", "deliver", "tool"] as const) {
      const expanded = layerDetached("auto", {});
      expect(resolveDetached({ detached: expanded }, { detached: "deny" }, kind)).toBe(
        resolveDetached({ detached: "auto" }, { detached: "deny" }, kind),
      );
    }
  });
});
