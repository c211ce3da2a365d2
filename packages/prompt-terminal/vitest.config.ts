import { defineProject } from "vitest/config";

export default defineProject({
  // Tests run through Vite SSR: resolve workspace packages to their sources.
  ssr: { resolve: { conditions: ["@jp/source"] } },
  test: {
    name: "prompt-terminal",
    include: ["test/**/*.test.ts"],
    environment: "node",
    // Some tests start a real editor process; on a loaded machine that takes seconds. The limits
    // only bound a broken test's wait: a passing test does not wait for them.
    testTimeout: 20_000,
    expect: { poll: { timeout: 10_000 } },
  },
});
