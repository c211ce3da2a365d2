import { defineConfig } from "tsup";
import { bundled } from "../../scripts/tsup-bundled.js";

export default defineConfig({
  entry: { index: "src/index.ts", "testing/index": "src/testing/index.ts" },
  format: ["esm"],
  target: "node20",
  dts: true,
  sourcemap: true,
  clean: true,
  // One file per entry: the testing entry keeps its own copy of what it shares with the main one.
  splitting: false,
  ...bundled(import.meta.dirname, ["neverthrow", "eventemitter3", "fastest-levenshtein"]),
});
