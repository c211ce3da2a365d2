import type { PromptBackend } from "@jp/coordinator";
import { expect, expectTypeOf, it } from "vitest";
import type { StandaloneWebPrompts, WebPrompts } from "../src/index.js";

it("@jp/prompt-web exports exactly its public API", async () => {
  const api = await import("../src/index.js");
  expect(Object.keys(api).sort()).toEqual([
    "DEFAULT_DISCONNECT_GRACE_MS",
    "DEFAULT_MAX_BODY_BYTES",
    "createWebPromptHandler",
    "createWebPrompts",
  ]);
});

it("hands out PromptBackends; the standalone server closes asynchronously", () => {
  expectTypeOf<ReturnType<WebPrompts["backend"]>>().toEqualTypeOf<PromptBackend>();
  expectTypeOf<StandaloneWebPrompts>().toExtend<WebPrompts>();
  expectTypeOf<StandaloneWebPrompts["close"]>().toEqualTypeOf<() => Promise<void>>();
  expectTypeOf<StandaloneWebPrompts["url"]>().toEqualTypeOf<string>();
});
