/**
 * Foreign JSON did not decode. `path` locates the problem inside the decoded value (empty for the
 * root); `message` names that path and the reason, e.g.
 * `question.answer_type.options[1]: expected a string, got number`.
 */
export interface DecodeError {
  readonly kind: "decode";
  readonly message: string;
  readonly path: (string | number)[];
}

/**
 * An answer did not fit its answer type (`invalid-answer`), or the answer type itself is unusable,
 * e.g. its JSON Schema does not compile (`invalid-schema`: the tool's fault, not the answerer's).
 * Messages are fit to show to a model so it can correct itself; for secrets they never hold the value.
 */
export interface AnswerError {
  readonly kind: "invalid-answer" | "invalid-schema";
  readonly message: string;
}

/** `defineQuestion` refused a question; `field` names the offending top-level field. */
export interface QuestionError {
  readonly kind: "invalid-question";
  readonly message: string;
  readonly field?: string;
}
