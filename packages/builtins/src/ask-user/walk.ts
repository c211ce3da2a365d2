import type { JsonValue } from "@jp/conversation";
import { type Answers, answersAddedSince, type FormProgress } from "@jp/coordinator";
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
  return new FormWalk(questions).next(answers);
}

/**
 * One call's walk of a form, pass after pass. When a pass's answers are the previous pass's plus
 * new ones (the coordinator says so, see `answersAddedSince`), the walk goes on from the question
 * it stopped at instead of from the first: every earlier answer, gate and check is unchanged. After
 * Back, or with answers from anywhere else, it walks from the start, as {@link walkForm} does.
 */
export class FormWalk {
  readonly #questions: readonly FormQuestion[];
  readonly #types = new Map<string, AnswerType>();
  /** The answers of the last pass, the question the walk stopped at, and what it collected. */
  #seen: Answers | undefined;
  #index = 0;
  // Ids are the model's: one may be "constructor" or "__proto__", so only own keys count.
  #collected: Record<string, JsonValue> = {};
  // The questions the walk skipped (their `when` failed): their `null` is no answer.
  #skipped = new Set<string>();

  constructor(questions: readonly FormQuestion[]) {
    this.#questions = questions;
    // A `when` names an earlier question only, so one table of every type serves every gate.
    for (const { question } of questions) this.#types.set(question.id, question.answer_type);
  }

  /** Where the form stands with `answers`. */
  next(answers: Answers): FormState {
    if (this.#seen === undefined || answersAddedSince(answers, this.#seen) === undefined) {
      this.#index = 0;
      this.#collected = {};
      this.#skipped = new Set();
    }
    this.#seen = answers;
    const collected = this.#collected;
    const has = (id: string) => Object.hasOwn(collected, id);
    const questions = this.#questions;
    for (; this.#index < questions.length; this.#index++) {
      const { question, when } = questions[this.#index] as FormQuestion;
      const gate =
        when === undefined ? undefined : has(when.question_id) ? collected[when.question_id] : null;
      if (
        when !== undefined &&
        !opens(this.#types.get(when.question_id), gate ?? null, when.equals)
      ) {
        setOwn(collected, question.id, null);
        this.#skipped.add(question.id);
        continue;
      }
      const answer = Object.hasOwn(answers, question.id) ? answers[question.id] : undefined;
      if (answer === undefined) {
        return {
          type: "ask",
          question,
          form: { index: this.#index + 1, total: questions.length },
        };
      }
      // Answers arrive checked by the coordinator; this guards any other path that feeds answers.
      if (validateAnswer(question.answer_type, answer).isErr()) {
        // Nothing of this walk is reused: the next pass starts over.
        this.#seen = undefined;
        return { type: "invalid", id: question.id };
      }
      setOwn(collected, question.id, answer);
    }
    return { type: "done", answers: collected };
  }

  /**
   * The form's questions, in order, that the last walk took an answer for from `answers` and
   * that `among` names (it did not skip them).
   */
  answeredAmong(among: ReadonlySet<string>): string[] {
    if (among.size === 0) return [];
    const ids: string[] = [];
    for (let i = 0; i < this.#index && i < this.#questions.length; i++) {
      const { id } = (this.#questions[i] as FormQuestion).question;
      if (among.has(id) && !this.#skipped.has(id)) ids.push(id);
    }
    return ids;
  }
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
  // Own keys only: `in` would find `b.__proto__` (Object.prototype, which reads as `{}`) for an
  // answer that has a `"__proto__"` key, and open a gate that should stay shut.
  return keys.every(
    (key) => Object.hasOwn(b, key) && jsonEqual(a[key] as JsonValue, b[key] as JsonValue),
  );
}

function setOwn(target: Record<string, JsonValue>, key: string, value: JsonValue): void {
  Object.defineProperty(target, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}
