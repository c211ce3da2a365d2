import { defineProject } from "vitest/config";

export default defineProject({
  // Tests run through Vite SSR: resolve workspace packages to their sources.
  ssr: { resolve: { conditions: ["@jp/source"] } },
  test: {
    name: "store-postgres",
    include: ["test/**/*.test.ts"],
    environment: "node",
    // One initdb for the run; each test file starts its own server from a copy of it.
    globalSetup: ["test/support/global-setup.ts"],
    // Some tests start child processes and restart the server.
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
