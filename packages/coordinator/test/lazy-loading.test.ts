import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const PACKAGE = join(import.meta.dirname, "..");

/** Runs `code` (an ES module importing the package) in a fresh Node.js; which libraries it loaded. */
function loadedBy(code: string): { zod: boolean; ajv: boolean } {
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
    { cwd: PACKAGE, encoding: "utf8" },
  );
  if (child.status !== 0) throw new Error(child.stderr);
  return JSON.parse(child.stdout) as { zod: boolean; ajv: boolean };
}

describe("loading @jp/coordinator", () => {
  it("loads neither zod nor Ajv on import", () => {
    expect(loadedBy(`import "@jp/coordinator";`)).toEqual({ zod: false, ajv: false });
  }, 60_000);

  it("does not load zod to read a usual configuration", () => {
    const loaded = loadedBy(`
      import { parseToolsConfig, resolveToolConfig } from "@jp/coordinator";
      const tools = parseToolsConfig({ "*": { run: "ask" }, x: { enable: "explicit" } })._unsafeUnwrap();
      resolveToolConfig(tools, "x");
    `);
    expect(loaded.zod).toBe(false);
  }, 60_000);

  it("loads zod to explain a configuration it refuses", () => {
    const loaded = loadedBy(`
      import { parseToolsConfig } from "@jp/coordinator";
      parseToolsConfig({ x: { run: "sometimes" } })._unsafeUnwrapErr();
    `);
    expect(loaded.zod).toBe(true);
  }, 60_000);
});
