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

describe("loading @jp/tool", () => {
  it("loads neither zod nor Ajv on import, nor to define and check well-formed questions", () => {
    const loaded = loadedBy(`
      import { defineQuestion, validateAnswer, decodeQuestion } from "@jp/tool";
      const question = defineQuestion({
        id: "go", text: "Go?", answer_type: { type: "select", options: ["a", "b"] }, default: "a",
      })._unsafeUnwrap();
      validateAnswer(question.answer_type, "b")._unsafeUnwrap();
      decodeQuestion({ id: "go", text: "Go?", answer_type: { type: "boolean" } })._unsafeUnwrap();
    `);
    expect(loaded).toEqual({ zod: false, ajv: false });
  }, 60_000);

  it("loads zod to decode a legacy question, and Ajv to check a schema answer", () => {
    const loaded = loadedBy(`
      import { decodeQuestion, validateAnswer } from "@jp/tool";
      decodeQuestion({ id: "go", text: "Go?", answer_type: "Boolean", pre_amble: "Hi" })._unsafeUnwrap();
      validateAnswer({ type: "schema", schema: { type: "integer" } }, 3)._unsafeUnwrap();
    `);
    expect(loaded).toEqual({ zod: true, ajv: true });
  }, 60_000);
});
