import { defineConfig } from "tsup";
import { bundled } from "../../scripts/tsup-bundled.js";

export default defineConfig({
  entry: ["src/index.ts"],
  format: ["esm"],
  target: "node20",
  dts: true,
  sourcemap: true,
  clean: true,
  ...bundled(import.meta.dirname, ["neverthrow"]),
});
