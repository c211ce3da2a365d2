import { defineProject } from "vitest/config";

export default defineProject({
  // Tests run through Vite SSR: resolve workspace packages to their sources.
  ssr: { resolve: { conditions: ["@jp/source"] } },
  test: { name: "mcp-elicitation", include: ["test/**/*.test.ts"], testTimeout: 120_000 },
});
