import { cp } from "node:fs/promises";
import { defineConfig } from "tsup";

export default defineConfig({
  entry: ["src/index.ts"],
  format: ["esm"],
  target: "node20",
  dts: true,
  sourcemap: true,
  clean: true,
  // The page is plain JavaScript that browsers load as it is: ship its files next to the bundle.
  onSuccess: async () => {
    await cp("src/page", "dist/page", { recursive: true });
  },
});
