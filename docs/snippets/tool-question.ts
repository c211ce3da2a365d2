// biome-ignore-all assist/source/organizeImports: the imports the docs show stay in their region
import type { JsonValue } from "@jp/tool";

// A tool's input: the patch it would apply, and the answers it was re-run with.
const patch = "--- a/README.md\n+++ b/README.md\n@@ -1 +1 @@\n-# jp\n+# JP\n";
const answers: Readonly<Record<string, JsonValue>> = { apply_changes: true };
const applyPatch = (diff: string) => `applied ${diff.split("\n").length - 1} lines`;

// #region question
import { defineQuestion, needsInput, success, validateAnswer } from "@jp/tool";

const question = defineQuestion({
  id: "apply_changes",
  text: "Apply the patch shown above?", // one line; multi-line material goes in `context`
  context: patch,
  answer_type: { type: "boolean" },
  default: true,
});
if (question.isErr()) throw new Error(question.error.message); // a bug in the tool

const answer = answers.apply_changes;
if (answer === undefined) {
  // Ask, and get re-run with `answers.apply_changes` set.
  process.stdout.write(JSON.stringify(needsInput(question.value)));
} else {
  const checked = validateAnswer(question.value.answer_type, answer);
  if (checked.isErr()) {
    console.error(checked.error.message); // e.g. expected true or false, got "yes"
  } else if (checked.value === true) {
    process.stdout.write(JSON.stringify(success(applyPatch(patch))));
  }
}
// #endregion
