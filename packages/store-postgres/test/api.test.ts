import type { PromptBackend } from "@jp/coordinator";
import { describe, expect, expectTypeOf, it } from "vitest";
import type { createInboxPrompts } from "../src/index.js";

describe("the public barrel", () => {
  it("exports exactly these values (additions must be deliberate)", async () => {
    expect(Object.keys(await import("../src/index.js")).sort()).toEqual([
      "InboxListener",
      "PostgresConversationStore",
      "PostgresInbox",
      "SCHEMA_VERSION",
      "createInboxPrompts",
      "exportConversation",
      "importConversation",
      "migrate",
    ]);
  });

  it("the inbox prompts are a PromptBackend the coordinator takes as they are", () => {
    expectTypeOf<ReturnType<typeof createInboxPrompts>>().toExtend<PromptBackend>();
  });
});
