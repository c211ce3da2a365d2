import type { QuestionConfig, ResolvedToolConfig } from "./schema.js";

/**
 * The configuration of one question: `questions.<id>` over `questions."*"`, field by field. The
 * `"*"` entry configures every question of a tool whose question ids are not known in advance
 * (the questions of an `ask_user` form). Only the table's own entries count: a question named
 * `constructor` or `toString` never finds a member of `Object.prototype` as its configuration.
 */
export function questionConfigFor(
  config: ResolvedToolConfig,
  questionId: string,
): QuestionConfig | undefined {
  const own = ownQuestionConfig(config, questionId);
  const every = ownQuestionConfig(config, "*");
  if (every === undefined) return own;
  return own === undefined ? every : { ...every, ...own };
}

/** `questions.<id>` itself, without `"*"`. */
export function ownQuestionConfig(
  config: ResolvedToolConfig,
  questionId: string,
): QuestionConfig | undefined {
  const { questions } = config;
  return Object.hasOwn(questions, questionId) ? questions[questionId] : undefined;
}
