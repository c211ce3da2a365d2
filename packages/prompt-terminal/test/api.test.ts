import type { PromptBackend } from "@jp/coordinator";
import { expect, expectTypeOf, it } from "vitest";
import type { TerminalPromptBackend } from "../src/index.js";

it("@jp/prompt-terminal exports exactly its public API", async () => {
  const api = await import("../src/index.js");
  expect(Object.keys(api).sort()).toEqual(["createTerminalPromptBackend", "neutralize"]);
});

it("the backend is a PromptBackend that can be closed", () => {
  expectTypeOf<TerminalPromptBackend>().toExtend<PromptBackend>();
  expectTypeOf<TerminalPromptBackend["close"]>().toEqualTypeOf<() => void>();
});
