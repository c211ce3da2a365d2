import type { JsonValue } from "@jp/conversation";

// Every text the coordinator hands back to the model or a host, in one place. The wording of the
// refusals is the seeds' (RFD 083); the other result texts are JP's own.

/** No human can answer and the policy does not allow anything else (RFD 083 / RFD 049). */
export const noHumanMessage = (tool: string, why = "no interactive terminal is available") =>
  `${tool} cannot run because ${why}. Do not retry this tool call in this turn; continue without user input or explain what information is missing.`;

/** A human-only question was configured to go to the assistant (RFD 083). */
export const assistantDeniedMessage = (tool: string) =>
  `${tool} requires a human answer and cannot be routed to the assistant. Do not retry this tool call in this turn.`;

/** A configured static answer does not fit the question (RFD 083), with what was wrong. */
export const invalidStaticAnswerMessage = (tool: string, questionId: string, detail: string) =>
  `${tool}: the configured conversation.tools.${tool}.questions.${questionId}.answer value does not match the question's answer_type. Update the configuration; do not retry. (${detail})`;

/** The LLM could not answer a tool's question. */
export const inquiryFailedMessage = (tool: string, questionText: string, error: string) =>
  `The tool '${tool}' asked a follow-up question ("${questionText}") that was routed to a secondary assistant for resolution, but the secondary assistant failed to provide a valid answer. Error: ${error}. You may retry the tool call or end the turn.`;

/**
 * The error of an LLM inquiry that its backend cancelled while the run went on: no person
 * cancelled it, and the model must not read it as the user's decline.
 */
export const inquiryCancelledByBackend = (message: string) =>
  `the inquiry backend stopped without an answer while the run was still going (${message}); the user did not cancel or decline anything`;

export const INPUT_CANCELLED = "Tool input cancelled by user.";
export const INPUT_PROMPT_FAILED = "Tool input prompt failed.";
export const EXECUTION_CANCELLED = "Tool execution cancelled.";
/** The run's deadline passed while a tool ran; never worded as the person's decision. */
export const EXECUTION_TIMED_OUT =
  "Tool execution timed out: the run's time limit passed before the tool finished. The user did not decline.";
/** The host stopped the run (a shutdown) while a tool ran. */
export const EXECUTION_INTERRUPTED =
  "Tool execution interrupted: the run was stopped before the tool finished. The user did not decline.";
export const SKIPPED_BY_CONFIGURATION = "Tool skipped by configuration.";
export const SKIPPED_BY_USER = "Tool skipped by user.";
export const SKIPPED_REMEMBERED = "Tool skipped by user (remembered).";
export const skippedWithReason = (reason: string) => `Tool skipped by user: ${reason}`;
export const permissionPromptFailed = (error: string) => `Permission prompt failed: ${error}`;
export const DELIVERY_SKIPPED_BY_CONFIGURATION = "Result delivery skipped by configuration.";
export const DELIVERY_SKIPPED_BY_USER = "Result delivery skipped by user.";

/** The tool is unknown or disabled. */
export const notAvailableMessage = (tool: string) =>
  `Tool '${tool}' is not available. It may have been available earlier in this conversation but is no longer enabled. Do not retry this tool until it is available again in the list of enabled tools.`;

/** A call's arguments are nested too deeply to be recorded: it was not run. */
export const argumentsTooDeepMessage = (tool: string, levels: number) =>
  `The call was not run: its arguments are nested more than ${levels} levels deep (arrays and objects within one another), more than a conversation can record. Call ${tool} again with its arguments nested at most ${levels} levels deep.`;

/** A tool pass threw instead of returning a result. */
export const executionFailedMessage = (tool: string, error: string) =>
  `Tool '${tool}' failed: ${error}`;

/** A result that needed approval could not be delivered without a human. */
export const deliveryDeniedMessage = (tool: string, why = "no interactive terminal is available") =>
  `${tool} ran, but its result was not delivered because ${why} to approve it. Do not retry this tool call in this turn.`;

/** A prompt's deadline passed; never worded as the person's decision. */
export const inputTimedOutMessage = (within: string | undefined) =>
  `Tool input timed out: no answer ${within === undefined ? "before the time limit" : `within ${within}`}. The user did not decline; continue without the answer or ask again later.`;

/** The host stopped the run (a shutdown) before the person answered. */
export const INPUT_INTERRUPTED =
  "Tool input interrupted: the run was stopped before the user answered. The user did not decline.";

/** The prompt backend could not reach the person (a client disconnected, the terminal went away). */
export const inputUnreachableMessage = (detail: string) =>
  `Tool input prompt failed: the user could not be reached (${detail}). The user did not decline; do not retry this tool call in this turn.`;

/** The prompt backend cannot show this prompt; `detail` says what the person can answer. */
export const inputUnsupportedMessage = (detail: string) => `Tool input prompt failed: ${detail}`;

/** A permission prompt that could not be answered in time. */
export const permissionTimedOutMessage = (within: string | undefined) =>
  `Tool not run: no permission decision ${within === undefined ? "before the time limit" : `within ${within}`}. The user did not decline.`;

/** The host stopped the run before the person decided whether a tool may run. */
export const PERMISSION_INTERRUPTED =
  "Tool not run: the run was stopped before the user decided. The user did not decline.";

/** A delivery prompt that could not be answered. */
export const deliveryNotDecidedMessage = (why: string) =>
  `The tool ran, but its result was not delivered: ${why}. The user did not decline.`;

/** Why nobody was asked, as the model reads it (RFD 083's wording where it is true). */
export const DETACHED_CAUSES = {
  non_interactive: "the run is non-interactive, so no user can answer",
  no_backend: "no interactive terminal is available",
  not_reachable: "no interactive terminal is available",
} as const;

/** Why nobody was asked, as the host reads it: what decided, and where. */
export const DETACHED_CAUSES_FOR_HOSTS = {
  non_interactive: "the run is non-interactive (`nonInteractive: true`, `--non-interactive`)",
  no_backend: "no prompt backend is configured (the ToolCoordinator's `prompts` option)",
  not_reachable: "the prompt backend reports that nobody is reachable (no terminal, no client)",
} as const;

/**
 * What the model reads about answers nobody gave: the detached `defaults` policy took each
 * question's own default because no person could answer (a tool's `answeredByDefault`). Ids in
 * the order given; at most 20 are named and each value is cut to 200 characters, so the note
 * goes beside the full answers, never in their place. Never given a secret's answer.
 *
 * @example
 * answeredByDefaultNote([["env", "staging"]]);
 * // No one answered "env" (no person was available to answer); the question's default was used: "staging".
 */
export function answeredByDefaultNote(answers: readonly (readonly [string, JsonValue])[]): string {
  const why = "(no person was available to answer)";
  if (answers.length === 1) {
    const [id, value] = answers[0] as readonly [string, JsonValue];
    return `No one answered ${JSON.stringify(id)} ${why}; the question's default was used: ${valueText(value)}.`;
  }
  const shown = answers.slice(0, NOTE_LISTS_UP_TO);
  const more = answers.length - shown.length;
  const ids = listed(
    shown.map(([id]) => JSON.stringify(id)),
    more,
  );
  const values = listed(
    shown.map(([id, value]) => `${JSON.stringify(id)} = ${valueText(value)}`),
    more,
  );
  return `No one answered ${ids} ${why}; each question's default was used: ${values}.`;
}

// "a, b and c"; "a, b, c and 2 more" when `more` were left out.
function listed(items: readonly string[], more: number): string {
  const all = more > 0 ? [...items, `${more} more`] : items;
  return all.length === 1
    ? (all[0] as string)
    : `${all.slice(0, -1).join(", ")} and ${all.at(-1) as string}`;
}

// A note names this many answers at most; every one is in the result beside it.
const NOTE_LISTS_UP_TO = 20;
const NOTE_VALUE_UP_TO = 200;

// An answer as JSON text, cut to NOTE_VALUE_UP_TO code units (never inside a surrogate pair):
// the whole value is in the result beside the note.
function valueText(value: JsonValue): string {
  const text = JSON.stringify(value);
  if (text.length <= NOTE_VALUE_UP_TO) return text;
  let end = NOTE_VALUE_UP_TO - 1;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${text.slice(0, end)}…`;
}
