import type { Question } from "@jp/tool";
import { DECISION_META_KEY } from "../decision.js";
import { isPlainObject } from "../internal/json.js";
import type { Asker, ElicitResponse } from "./elicitation.js";

/** MCP's error code for a request that needs pages opened first (2025-11-25). */
export const URL_ELICITATION_REQUIRED = -32042;

/** Rounds of pages one call may need before it is given up. */
export const MAX_PAGE_ROUNDS = 3;

/** The options of the question asked once the pages are open. */
export const PAGE_DONE_CHOICES = ["continue", "cancel"] as const;

/** The base id of that question. */
export const PAGE_DONE_ID = "page_done";

/**
 * The elicitations of a `URLElicitationRequiredError` (`-32042`, 2025-11-25): a server answers
 * `tools/call` with it when the person must first do something on its pages (sign in, pay), each
 * page an elicitation in URL mode. `undefined` for any other failure. Never throws.
 */
export function pagesRequired(error: unknown): readonly unknown[] | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const { code, data } = error as { code?: unknown; data?: unknown };
  if (code !== URL_ELICITATION_REQUIRED || !isPlainObject(data)) return undefined;
  const { elicitations } = data;
  return Array.isArray(elicitations) && elicitations.length > 0 ? elicitations : undefined;
}

/** The question asked once the pages are open: the call is sent again when the person is done. */
export function pageDoneQuestion(id: string, asker: Asker, hosts: readonly string[]): Question {
  const where = hosts.length === 1 ? `the page on ${hosts[0]}` : `the pages on ${hosts.join(", ")}`;
  return {
    id,
    text: `Continue once you are done on ${where}.`,
    context: `MCP server "${asker.server}" needs this before it can run its tool "${asker.tool}"; its tool is called again when you continue.`,
    answer_type: { type: "select", options: [...PAGE_DONE_CHOICES] },
    exclusive: true,
    persistence: "none",
  };
}

/** Why the call does not go on after a round of pages, for the model; `undefined` if it does. */
export function pagesRefused(
  responses: readonly ElicitResponse[],
  hosts: readonly string[],
): string | undefined {
  const refused = responses.find((response) => response.action !== "accept");
  if (refused === undefined) return undefined;
  const where = hosts.join(", ");
  const decision = refused._meta?.[DECISION_META_KEY] as
    | { readonly by?: unknown; readonly reason?: unknown }
    | undefined;
  if (decision?.reason === "backend_error") {
    return `it needs a page opened first (on ${where}); the user agreed, but the page could not be opened`;
  }
  return decision?.by === "person"
    ? `it needs a page opened first (on ${where}), and the user declined to open it`
    : `it needs a page opened first (on ${where}), and it was not opened (the user was not asked or did not decide)`;
}
