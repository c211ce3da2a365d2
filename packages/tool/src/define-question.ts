import { err, ok, type Result } from "neverthrow";
import type { QuestionError } from "./errors.js";
import { canonicalQuestion } from "./internal/canonical-question.js";
import { decodeWith } from "./internal/decode.js";
import { quoteList } from "./internal/describe.js";
import { compileSchema } from "./internal/schema-cache.js";
import { type Question, questionSchemas } from "./question.js";
import { validateAnswer } from "./validate-answer.js";

/** One refusal of {@link defineQuestion}: the field at fault and the problem, if any. */
interface Rule {
  readonly field: keyof Question;
  readonly problem: (question: Question) => string | undefined;
}

/**
 * The builder's rules, checked in order; the first problem found is reported. They are stricter
 * than decoding, which must still read what older tools wrote (a multi-line `text`, say).
 */
const RULES: readonly Rule[] = [
  { field: "id", problem: (q) => (q.id === "" ? "id must not be empty" : undefined) },
  {
    field: "id",
    problem: (q) =>
      q.id.includes(".")
        ? `id ${JSON.stringify(q.id)} must not contain "." because it becomes one segment of ` +
          "the inquiry id <tool_call_id>.<question_id>.<attempt>"
        : undefined,
  },
  { field: "text", problem: (q) => (q.text.trim() === "" ? "text must not be empty" : undefined) },
  {
    field: "text",
    problem: (q) =>
      /[\r\n]/.test(q.text)
        ? "text must be a single line; put multi-line material (a diff, a file excerpt) in `context`"
        : undefined,
  },
  { field: "answer_type", problem: optionsProblem },
  { field: "answer_type", problem: schemaProblem },
  { field: "default", problem: secretDefaultProblem },
  { field: "default", problem: defaultProblem },
];

function optionsProblem({ answer_type: answerType }: Question): string | undefined {
  if (answerType.type !== "select" && answerType.type !== "multi_select") return undefined;
  if (answerType.options.length === 0) {
    return `a ${answerType.type} question needs at least one option`;
  }
  // One pass with a set: options may come from a model, and a list of tens of thousands must not
  // take seconds to check.
  const seen = new Set<string>();
  const duplicate = answerType.options.find((option) => {
    if (seen.has(option)) return true;
    seen.add(option);
    return false;
  });
  return duplicate === undefined
    ? undefined
    : `option ${quoteList([duplicate])} is listed more than once in answer_type.options`;
}

function schemaProblem({ answer_type: answerType }: Question): string | undefined {
  if (answerType.type !== "schema") return undefined;
  const compiled = compileSchema(answerType.schema);
  return compiled.ok ? undefined : `answer_type.schema does not compile: ${compiled.message}`;
}

function secretDefaultProblem(question: Question): string | undefined {
  // A default secret would be a sensitive literal in the tool's source and in every recorded
  // question; there is no safe way to have one.
  return question.answer_type.type === "secret" && question.default !== undefined
    ? "a secret question cannot have a default: it would be a sensitive literal in the tool and the conversation log"
    : undefined;
}

function defaultProblem(question: Question): string | undefined {
  if (question.default === undefined) return undefined;
  // One set of answer rules: a default is valid exactly when it would be a valid answer.
  const checked = validateAnswer(question.answer_type, question.default);
  return checked.isErr() ? `default is not a valid answer: ${checked.error.message}` : undefined;
}

/**
 * Builds a question for a tool to ask, refusing with a clear message what decoding would let
 * through: an empty or dotted id, empty or multi-line text, missing or duplicate options, an
 * uncompilable schema, a default on a secret, or a default that is not a valid answer.
 *
 * @example
 * ```ts
 * const question = defineQuestion({
 *   id: "apply_changes",
 *   text: "Apply the patch shown above?",
 *   context: patch,
 *   answer_type: { type: "boolean" },
 *   default: true,
 * });
 * if (question.isOk()) process.stdout.write(JSON.stringify(needsInput(question.value)));
 * ```
 */
export function defineQuestion(spec: Question): Result<Question, QuestionError> {
  // The shape check first, so that the rules below can rely on the types (JavaScript callers
  // may pass anything) and work on the normalised question that is returned.
  const canonical = canonicalQuestion(spec, false);
  const decoded =
    canonical === undefined ? decodeWith(questionSchemas().shape, spec, "question") : ok(canonical);
  if (decoded.isErr()) {
    const [field] = decoded.error.path;
    return err(refusal(decoded.error.message, typeof field === "string" ? field : undefined));
  }
  const question = decoded.value;
  for (const rule of RULES) {
    const problem = rule.problem(question);
    if (problem !== undefined) return err(refusal(problem, rule.field));
  }
  return ok(question);
}

function refusal(message: string, field: string | undefined): QuestionError {
  return field === undefined
    ? { kind: "invalid-question", message }
    : { kind: "invalid-question", message, field };
}
