import { describe, expect, it } from "vitest";
import { FileConversationStore, isConversationName } from "../src/index.js";

describe("isConversationName (JP's <id> or <id>-<slug>)", () => {
  it.each([
    "17727484633",
    "17727484633-preventing-rfd-summary-regeneration-churn",
    "17758406187---why",
    "17758406187-",
    "17758406187-café-déjà-vu",
    "17758406187-日本語のタイトル",
    "0",
    "92233720368",
    `17758406187-${"a".repeat(243)}`,
  ])("%s is a conversation name", (name) => {
    expect(isConversationName(name)).toBe(true);
  });

  it.each([
    ["empty", ""],
    ["parent", ".."],
    ["current", "."],
    ["traversal", "../outside"],
    ["id then traversal", "17727484633/../../outside"],
    ["nested", "17727484633/child"],
    ["backslash", "17727484633\\..\\x"],
    ["absolute", "/etc"],
    ["hidden", ".archive"],
    ["dot in the slug", "17727484633-a.b"],
    ["NUL", "17727484633-a\u0000b"],
    ["newline", "17727484633-a\nb"],
    ["space", "17727484633-a b"],
    ["no id", "notes"],
    ["sign", "+17727484633"],
    ["negative", "-17727484633"],
    ["id too large for JP", "92233720369"],
    ["longer than a file name", `17758406187-${"a".repeat(244)}`],
  ])("%s (%j) is not", (_, name) => {
    expect(isConversationName(name)).toBe(false);
  });

  it("every name create() makes is one", () => {
    const store = new FileConversationStore("/unused");
    for (const title of [
      undefined,
      "",
      "???",
      "  --Why?! (v2.0)  ",
      "Ünïcödé ✓ title",
      "a".repeat(300),
    ]) {
      const { name } = title === undefined ? store.create() : store.create({ title });
      expect(isConversationName(name), name).toBe(true);
    }
  });
});
