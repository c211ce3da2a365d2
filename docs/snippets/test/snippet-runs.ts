import { expect } from "vitest";
import type { SnippetRun } from "./run-snippet.js";

/**
 * How each snippet is run and what it must print; `"embed"` snippets run in embed.test.ts (against
 * a fake provider, with and without a person); `"typecheck"` snippets are the blocks a package
 * README marks not runnable (they need a PostgreSQL server, a UI process, a browser): the root
 * tsconfig type-checks them and nothing runs them. A new snippet needs a row here (a test says so).
 */
export const RUNS: Readonly<Record<string, "embed" | "typecheck" | ((run: SnippetRun) => void)>> = {
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
  "observability.ts": (run) => {
    expect(run.stdout).toContain("deploy: awaiting_input\n");
    expect(run.stdout).toContain("deploy: completed\n");
    expect(run.stdout).toMatch(
      /span jp\.question: route=human outcome=answered, the person took \d+ ms/,
    );
    expect(run.stdout).toContain("span execute_tool deploy: completed");
    expect(run.stdout).not.toContain("staging"); // the answer is in no span
  },
  "coordinator-example.ts": (run) => {
    expect(run.stdout).toContain("prune_branches completed\npruned 3 merged branches false\n");
    expect(run.stdout).toContain("deployed: true");
  },
  "coordinator-testing.ts": (run) => expect(run.stdout).toContain("testing kit: ok"),
  "tool-question.ts": (run) =>
    expect(run.stdout).toBe('{"type":"success","content":"applied 5 lines"}'),
  "tool-schema-question.ts": (run) =>
    expect(run.stdout).toBe('needs_input\n{"type":"success","content":"released 1.2.0"}\n'),
  "conversation-store.ts": (run) => {
    expect(run.stdout).toContain("Tool call was interrupted.");
    expect(run.stdout).toContain("repaired: 1 inserted; saved: true");
  },
  "postgres-store.ts": "typecheck",
  "postgres-inbox-prompts.ts": "typecheck",
  "prompt-terminal.ts": "typecheck",
  "rpc-agent.ts": "typecheck",
  "rpc-client.ts": "typecheck",
  "rpc-opal.ts": "typecheck",
  "web-prompts.ts": "typecheck",
  "web-prompts-mount.ts": "typecheck",
  "web-prompts-inbox.ts": "typecheck",
  // Against the fake provider, with nobody at a terminal: ask_user is refused, the turn ends.
  "builtins-embed.ts": (run) => expect(run.stdout).toContain("saved: true, 7 events"),
};
