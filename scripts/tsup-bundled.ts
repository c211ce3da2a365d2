// Small runtime dependencies bundled into a package's dist, so that importing the package loads no
// CommonJS (which costs every program milliseconds of start-up: Node.js parses a CommonJS file
// for its exports before an ES module may import it). Their licenses ship beside the code.
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { Options } from "tsup";

const LICENSE_FILES = ["LICENSE", "LICENSE.md", "LICENSE.txt", "license"];

/** tsup options that bundle `names` (ESM builds preferred) and write their licenses to dist. */
export function bundled(packageDir: string, names: readonly string[]): Options {
  const require = createRequire(join(packageDir, "package.json"));
  return {
    noExternal: [...names],
    async onSuccess() {
      const notices = names.map((name) => {
        const root = dirname(require.resolve(`${name}/package.json`));
        const { version } = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
        const file = LICENSE_FILES.find((f) => {
          try {
            readFileSync(join(root, f));
            return true;
          } catch {
            return false;
          }
        });
        if (file === undefined) throw new Error(`no license file in ${name}`);
        return `## ${name} ${version}\n\n${readFileSync(join(root, file), "utf8").trim()}\n`;
      });
      writeFileSync(
        join(packageDir, "dist", "THIRD-PARTY-LICENSES.md"),
        `# Bundled in this package's dist\n\n${notices.join("\n")}`,
      );
    },
  };
}
