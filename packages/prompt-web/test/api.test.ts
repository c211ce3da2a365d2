import type { PromptBackend } from "@jp/coordinator";
import type { PostgresInbox } from "@jp/store-postgres";
import { expect, expectTypeOf, it } from "vitest";
import type { PostgresInboxLike, StandaloneWebPrompts, WebPrompts } from "../src/index.js";

it("@jp/prompt-web exports exactly its public API", async () => {
  const api = await import("../src/index.js");
  expect(Object.keys(api).sort()).toEqual([
    "DEFAULT_DISCONNECT_GRACE_MS",
    "DEFAULT_FILE_POLL_MS",
    "DEFAULT_MAX_BODY_BYTES",
    "DEFAULT_POSTGRES_MAX_PROMPTS",
    "DEFAULT_POSTGRES_POLL_MS",
    "createWebPromptHandler",
    "createWebPrompts",
    "fileInboxSource",
    "postgresInboxSource",
  ]);
});

it("hands out PromptBackends; the standalone server closes asynchronously", () => {
  expectTypeOf<ReturnType<WebPrompts["backend"]>>().toEqualTypeOf<PromptBackend>();
  expectTypeOf<StandaloneWebPrompts>().toExtend<WebPrompts>();
  expectTypeOf<StandaloneWebPrompts["close"]>().toEqualTypeOf<() => Promise<void>>();
  expectTypeOf<StandaloneWebPrompts["url"]>().toEqualTypeOf<string>();
});

it("postgresInboxSource takes @jp/store-postgres's PostgresInbox as it is", () => {
  expectTypeOf<PostgresInbox>().toExtend<PostgresInboxLike>();
});
