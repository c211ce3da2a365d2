// Mutation testing of one package against its own tests (StrykerJS):
//   npm run mutate -- <package> [more stryker options]
// The report is written to reports/mutation/<package>.html and .json.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";

const [name, ...rest] = process.argv.slice(2);
const root = join(import.meta.dirname, "..");
if (name === undefined || !existsSync(join(root, "packages", name, "src"))) {
  console.error("usage: npm run mutate -- <package> (a directory under packages/, e.g. tool)");
  process.exit(2);
}
const run = spawnSync("npx", ["stryker", "run", "stryker.config.mjs", ...rest], {
  cwd: root,
  stdio: "inherit",
  env: { ...process.env, MUTATE_PACKAGE: name },
});
process.exit(run.status ?? 1);
