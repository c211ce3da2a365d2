import type { JsonValue } from "@jp/conversation";
import type { Answers, FormProgress } from "@jp/coordinator";
import { type AnswerType, type Question, validateAnswer } from "@jp/tool";
import type { FormQuestion } from "./arguments.js";

/** Where a form stands: the next question to ask, or every answer (skipped ones `null`). */
export type FormState =
  | { readonly type: "ask"; readonly question: Question; readonly form: FormProgress }
  | { readonly type: "done"; readonly answers: Readonly<Record<string, JsonValue>> }
  | { readonly type: "invalid"; readonly id: string };

/**
 * Walks a form over the answers collected so far. A question is asked when its `when` holds on
 * the earlier answers and it has no answer yet; a question whose `when` fails is skipped and
 * answers `null`. Re-walking from scratch on every pass is what makes going back correct: once
 * an earlier answer changes, later questions are re-gated. A `multi_select` answer opens a gate
 * when it holds the same choices as `equals`, in any order.
 */
export function walkForm(questions: readonly FormQuestion[], answers: Answers): FormState {
  // Ids are the model's: one may be "constructor" or "__proto__", so only own keys count.
  const collected: Record<string, JsonValue> = {};
  const has = (id: string) => Object.hasOwn(collected, id);
  const types = new Map<string, AnswerType>();
  for (let i = 0; i < questions.length; i++) {
    const { question, when } = questions[i] as FormQuestion;
    types.set(question.id, question.answer_type);
    const gate =
      when === undefined ? undefined : has(when.question_id) ? collected[when.question_id] : null;
    if (when !== undefined && !opens(types.get(when.question_id), gate ?? null, when.equals)) {
      setOwn(collected, question.id, null);
      continue;
    }
    const answer = Object.hasOwn(answers, question.id) ? answers[question.id] : undefined;
    if (answer === undefined) {
      return { type: "ask", question, form: { index: i + 1, total: questions.length } };
    }
    // Answers arrive checked by the coordinator; this guards any other path that feeds answers.
    if (validateAnswer(question.answer_type, answer).isErr())
      return { type: "invalid", id: question.id };
    setOwn(collected, question.id, answer);
  }
  return { type: "done", answers: collected };
}

// Whether an earlier answer opens a gate: choices of a multi_select count in any order.
function opens(type: AnswerType | undefined, answer: JsonValue, equals: JsonValue): boolean {
  if (type?.type === "multi_select" && Array.isArray(answer) && Array.isArray(equals)) {
    const chosen = new Set(answer);
    return chosen.size === new Set(equals).size && equals.every((item) => chosen.has(item));
  }
  return jsonEqual(answer, equals);
}

/** Structural equality of JSON values (object key order ignored). */
export function jsonEqual(a: JsonValue, b: JsonValue): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, i) => jsonEqual(item, b[i] as JsonValue));
  }
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((key) => key in b && jsonEqual(a[key] as JsonValue, b[key] as JsonValue));
}

function setOwn(target: Record<string, JsonValue>, key: string, value: JsonValue): void {
  Object.defineProperty(target, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}
