import type { QuestionConfig, ResolvedToolConfig } from "./schema.js";

/**
 * The configuration of one question: `questions.<id>` over `questions."*"`, field by field. The
 * `"*"` entry configures every question of a tool whose question ids are not known in advance
 * (the questions of an `ask_user` form).
 */
export function questionConfigFor(
  config: ResolvedToolConfig,
  questionId: string,
): QuestionConfig | undefined {
  const own = config.questions[questionId];
  const every = config.questions["*"];
  if (every === undefined) return own;
  return own === undefined ? every : { ...every, ...own };
}
