/**
 * The model-visible description of `ask_user`: when to call it, and when not to. It is the
 * `description` (not a summary) so providers send it with every request: the usage guard only
 * works if the model reads it.
 */
export const ASK_USER_DESCRIPTION = [
  "Ask the user a typed question and receive their answer: boolean, select, multi_select, text or schema (a JSON value checked against a JSON Schema).",
  "Use only when the conversation does not provide the information you need and the user can reasonably be expected to answer.",
  "When in doubt, answer the user's original question directly; do not call ask_user for clarification you can derive from context or for confirmation of obvious next steps.",
  "For several related questions, send one call with `questions` (a form) instead of several calls; a question with `when` is asked only if an earlier answer equals the given value.",
  "The user may decline to answer: you then receive `cancelled: true` with the answers given so far. If the result also has an `error`, the user did not decline: an answer could not be taken, and `error` says why.",
  "Do not use ask_user to collect secrets (passwords, API keys, SSH passphrases): answers are returned to the model and persisted in the conversation stream.",
].join(" ");
