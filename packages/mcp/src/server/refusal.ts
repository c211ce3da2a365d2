import type { JsonValue } from "@jp/conversation";
import type { Question } from "@jp/tool";
import type { CallToolResult } from "@modelcontextprotocol/server";
import { DECISION_META_KEY } from "../decision.js";
import { isPlainObject } from "../internal/json.js";

/** A question an MCP client answered with `decline` or `cancel`. */
export interface Refusal {
  readonly question: Pick<Question, "id" | "text">;
  readonly action: "decline" | "cancel";
  /** The response's `_meta`: a client of this SDK says there who decided. */
  readonly meta: unknown;
  /** The answers given before, for the model; secret ones are left out. */
  readonly answers: Readonly<Record<string, JsonValue>>;
  readonly secret: ReadonlySet<string>;
}

/**
 * The tool result for a declined or cancelled question. MCP's actions are the person's by
 * definition; when the client says (in `_meta`) that it decided without the person, the text
 * says so and the result is an error, so the model never reads a policy as the person's choice.
 */
export function refusalResult(refusal: Refusal): CallToolResult {
  const { question, action } = refusal;
  const decision = isPlainObject(refusal.meta) ? refusal.meta[DECISION_META_KEY] : undefined;
  const byHost = isPlainObject(decision) && decision.by === "host";
  const reason =
    isPlainObject(decision) && typeof decision.reason === "string" ? decision.reason : undefined;
  const quoted = JSON.stringify(question.text === "" ? question.id : question.text);
  let text: string;
  if (byHost) {
    const why = reason === undefined ? "" : ` (${reason})`;
    text = `The client ${action === "decline" ? "declined" : "cancelled"} the question ${quoted} without the user deciding${why}; it was not answered.`;
  } else if (action === "decline") {
    text = `The user declined to answer ${quoted}.`;
  } else {
    text = `The user dismissed the question ${quoted} without answering.`;
  }
  const shown = Object.entries(refusal.answers).filter(([id]) => !refusal.secret.has(id));
  if (shown.length > 0)
    text += `\nAnswers given before: ${JSON.stringify(Object.fromEntries(shown))}`;
  return { content: [{ type: "text", text }], isError: byHost };
}
