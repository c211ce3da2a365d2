import type { JsonValue } from "@jp/tool";
import { type SafeText, safe, styled, untrusted } from "./safe-text.js";
import type { TerminalUi } from "./terminal-ui.js";

/** How many invalid submissions in a row an editor loop accepts before giving up. */
export const MAX_EDIT_ATTEMPTS = 5;

/** One round in the JSON editor. */
export type JsonEditRound =
  | { readonly type: "value"; readonly value: JsonValue }
  /** The user emptied the file: "take me back". */
  | { readonly type: "empty" }
  /** The editor failed (non-zero exit, e.g. `:cq`); the edit is discarded. */
  | { readonly type: "failed" }
  /** Not JSON, or rejected by `check`; `text` is what the user wrote, to edit again. */
  | { readonly type: "invalid"; readonly text: string };

/**
 * Opens the editor on `text` as a `.json` file, parses what comes back and checks it; prints
 * the problem if there is one. `check` returns an error message or `undefined`.
 */
export async function editJsonOnce(
  ui: TerminalUi,
  text: string,
  check: (value: JsonValue) => string | undefined,
): Promise<JsonEditRound> {
  const outcome = await ui.edit(text, ".json");
  if (outcome.type === "failed") {
    ui.print(errorLine(safe`${untrusted(outcome.message)}; the edit was discarded`));
    return { type: "failed" };
  }
  if (outcome.text.trim() === "") return { type: "empty" };
  let value: JsonValue;
  try {
    value = JSON.parse(outcome.text) as JsonValue;
  } catch (cause) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    ui.print(errorLine(safe`Not valid JSON: ${untrusted(reason)}`));
    return { type: "invalid", text: outcome.text };
  }
  const problem = check(value);
  if (problem === undefined) return { type: "value", value };
  ui.print(errorLine(untrusted(problem)));
  return { type: "invalid", text: outcome.text };
}

/** Waits for the user to ask for the editor again, so the error stays readable until then. */
export async function confirmEditAgain(ui: TerminalUi, hint: SafeText): Promise<void> {
  await ui.keys({
    message: safe`Edit again? ${styled("dim", hint)}`,
    choices: [{ key: "e", label: safe`edit again` }],
    default: "e",
  });
}

/** A red `✖ message` line. */
export function errorLine(message: SafeText): SafeText {
  return styled("red", safe`✖ ${message}`);
}

/** Pretty JSON, as written to the editor and printed with `p`. */
export function prettyJson(value: JsonValue): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}
