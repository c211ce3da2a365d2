import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadedBy as loadedByIn } from "../../tool/test/support/loaded-by.js";

const PACKAGE = join(import.meta.dirname, "..");

const loadedBy = (code: string) => loadedByIn(PACKAGE, code);

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
