import { expect } from "vitest";
import type { SnippetRun } from "./run-snippet.js";

/**
 * How each snippet is run and what it must print; `"embed"` snippets run in embed.test.ts (against
 * a fake provider, with and without a person). A new snippet needs a row here (a test says so).
 */
export const RUNS: Readonly<Record<string, "embed" | ((run: SnippetRun) => void)>> = {
  "embed-anthropic.ts": "embed",
  "embed-openai-chat.ts": "embed",
  "embed-openai-responses.ts": "embed",
  "builtin-tool-contract.ts": (run) => expect(run.stdout).toContain("BuiltinTool contract: ok"),
  "prune-branches.ts": (run) => expect(run.stdout).toContain("prune_branches: ok"),
  "detached-refusals.ts": (run) => expect(run.stdout).toMatch(/^warn: .*cargo_fmt/m),
  "durable.ts": (run) => {
    expect(run.stdout).toContain("call_1.plan");
    expect(run.stdout).toContain("upgraded to pro");
  },
  "read-back.ts": (run) => {
    expect(run.stdout).toContain("turn_start\nchat_request\nchat_response\n");
    expect(run.stdout).toContain("turn 0: 3 events");
  },
  "inquiry-backend.ts": (run) => expect(run.stdout).toContain("deployed to eu"),
};
