// The vitest configuration of a mutation run (see stryker.config.mjs): the package's own
// configuration, with the package's own name (and its subpaths) resolved to the sources being
// mutated, so a test that imports `@jp/<name>` sees the mutant as a relative import does.
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { loadConfigFromFile } from "vite";
import { mergeConfig } from "vitest/config";

const name = process.env.MUTATE_PACKAGE ?? "";
const dir = resolve(import.meta.dirname, "..", "packages", name);
const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf-8")) as {
  name: string;
  exports: Record<string, string | Record<string, string>>;
};
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const alias = Object.entries(manifest.exports).flatMap(([subpath, target]) => {
  const source = typeof target === "object" ? target["@jp/source"] : undefined;
  if (source === undefined) return [];
  const specifier = manifest.name + subpath.slice(1);
  return [{ find: new RegExp(`^${escapeRegExp(specifier)}$`), replacement: join(dir, source) }];
});
const own = await loadConfigFromFile(
  { command: "serve", mode: "test" },
  join(dir, "vitest.config.ts"),
  dir,
);
if (own === null) throw new Error(`${dir} has no vitest.config.ts`);

export default mergeConfig(own.config, { root: dir, resolve: { alias } });
