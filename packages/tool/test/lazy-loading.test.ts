import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadedBy as loadedByIn } from "./support/loaded-by.js";

const PACKAGE = join(import.meta.dirname, "..");

const loadedBy = (code: string) => loadedByIn(PACKAGE, code);

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
