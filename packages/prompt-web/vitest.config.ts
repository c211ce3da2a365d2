import { defineProject } from "vitest/config";

export default defineProject({
  // Tests run through Vite SSR: resolve workspace packages to their sources.
  ssr: { resolve: { conditions: ["@jp/source"] } },
  test: {
    name: "prompt-web",
    include: ["test/**/*.test.ts"],
    environment: "node",
    // A browser test file launches one Chromium and walks many prompts through it.
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
