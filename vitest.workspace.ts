/** The Vitest projects of this repository, one per package. `vitest.config.ts` reads this list. */
export default [
  "packages/tool",
  "packages/conversation",
  "packages/coordinator",
  "packages/builtins",
  "packages/rpc",
  "packages/prompt-terminal",
  "packages/mcp",
  "packages/prompt-web",
  "packages/store-postgres",
  "examples/terminal-agent",
  "examples/web-turns",
  "examples/mcp-elicitation",
  "examples/read-conversation",
  "docs/snippets",
];
