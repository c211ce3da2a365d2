import { defineProject } from "vitest/config";

export default defineProject({
  // Tests run through Vite SSR: resolve workspace packages to their sources.
  ssr: { resolve: { conditions: ["@jp/source"] } },
  test: { name: "snippets", include: ["test/**/*.test.ts"], testTimeout: 60_000 },
});
