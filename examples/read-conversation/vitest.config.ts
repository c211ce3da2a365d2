import { defineProject } from "vitest/config";

export default defineProject({
  // Tests run through Vite SSR: resolve workspace packages to their sources.
  ssr: { resolve: { conditions: ["@jp/source"] } },
  test: { name: "read-conversation", include: ["test/**/*.test.ts"] },
});
