// biome-ignore-all assist/source/organizeImports: the imports the docs show stay in their region
import type { JsonValue, Outcome } from "@jp/tool";

// #region schema
import { defineSchemaQuestion, needsInput, success } from "@jp/tool";
import { z } from "zod";

const release = defineSchemaQuestion({
  id: "release",
  text: "Which version, with what notes?",
  schema: z.object({ version: z.string().regex(/^\d+\.\d+\.\d+$/), notes: z.string().optional() }),
})._unsafeUnwrap(); // Err only for a mistake in the tool: a schema that has no JSON Schema form, a dotted id
// #endregion

// A pass of the tool, with the answers so far.
function execute(answers: Readonly<Record<string, JsonValue>>): Outcome {
  // #region pass
  const answer = release.answerFrom(answers); // { version: string; notes?: string } | undefined
  if (answer === undefined) return needsInput(release.question);
  return success(`released ${answer.version}`);
  // #endregion
}

console.log(execute({}).type); // needs_input
console.log(JSON.stringify(execute({ release: { version: "1.2.0" } })));
