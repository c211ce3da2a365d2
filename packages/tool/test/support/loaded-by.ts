// Shared by the lazy-loading tests of @jp/tool, @jp/coordinator and @jp/builtins.
import { spawnSync } from "node:child_process";

/** Which of the heavy libraries a fresh Node.js had loaded. */
export interface Loaded {
  readonly zod: boolean;
  readonly ajv: boolean;
}

/**
 * Runs `code` (an ES module importing workspace packages from their sources) in a fresh Node.js
 * started in `packageDir`, and says which of zod and Ajv it loaded.
 */
export function loadedBy(packageDir: string, code: string): Loaded {
  const script = `
    import { createRequire } from "node:module";
    ${code}
    const cached = Object.keys(createRequire(import.meta.url).cache);
    process.stdout.write(JSON.stringify({
      // zod registers its global configuration when it loads.
      zod: "__zod_globalConfig" in globalThis,
      ajv: cached.some((path) => path.includes("/node_modules/ajv/")),
    }));
  `;
  const child = spawnSync(
    process.execPath,
    ["--conditions=@jp/source", "--import", "tsx", "--input-type=module", "-e", script],
    { cwd: packageDir, encoding: "utf8" },
  );
  if (child.status !== 0) throw new Error(child.stderr);
  return JSON.parse(child.stdout) as Loaded;
}
