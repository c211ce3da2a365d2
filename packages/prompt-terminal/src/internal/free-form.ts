import type { QuestionReply } from "@jp/coordinator";
import { validateAnswer } from "@jp/tool";
import { answerOrControl } from "./controls.js";
import {
  confirmEditAgain,
  editJsonOnce,
  errorLine,
  MAX_EDIT_ATTEMPTS,
  prettyJson,
} from "./json-edit.js";
import type { QuestionFlow } from "./question-prompt.js";
import { type SafeText, safe, styled } from "./safe-text.js";

// Text, secret and schema answers cannot take a control key inline (every key is input), so
// when Back / Reply / End Turn is offered a `[Answer / Back / Reply / End Turn]` menu comes
// first, and `Answer` opens the input or the editor.

/**
 * Shows the pre-prompt if any control is offered. Resolves the input prompt's message when the
 * user chose to answer, or the control's reply.
 */
async function preprompt(
  flow: Pick<QuestionFlow, "ui" | "message" | "offered">,
): Promise<SafeText | QuestionReply> {
  if (flow.offered.length === 0) return flow.message;
  const next = await answerOrControl(flow.ui, flow.message, flow.offered);
  return next === "answer" ? safe`Answer:` : next;
}

/** A text answer, echoed, pre-filled with `initial` or the default. */
export async function askText(flow: QuestionFlow<"text">): Promise<QuestionReply> {
  const message = await preprompt(flow);
  if (typeof message !== "string") return message;
  const initial = typeof flow.prefill === "string" ? flow.prefill : undefined;
  const value = await flow.ui.text({ message, initial });
  return { type: "answer", value };
}

/** A secret answer: nothing is echoed, nothing is pre-filled, nothing is printed afterwards. */
export async function askSecret(flow: QuestionFlow<"secret">): Promise<QuestionReply> {
  const message = await preprompt(flow);
  if (typeof message !== "string") return message;
  const value = await flow.ui.secret({ message });
  return { type: "answer", value };
}

/**
 * A JSON answer written in the user's editor (pre-filled with `initial` or the default) and
 * checked against the question's schema. A rejected answer is shown with its error, then the
 * menu comes back (`Answer` re-opens the editor on what was written); without a menu the editor
 * re-opens after a keypress, at most {@link MAX_EDIT_ATTEMPTS} times, then the prompt gives up
 * (`cancelled`). Emptying the file goes back to the menu.
 */
export async function askSchema(flow: QuestionFlow<"schema">): Promise<QuestionReply> {
  const { ui, answerType, offered } = flow;
  let text = flow.prefill === undefined ? "" : prettyJson(flow.prefill);
  const check = (value: unknown) => {
    const checked = validateAnswer(answerType, value);
    return checked.isErr() ? `The answer does not fit: ${checked.error.message}` : undefined;
  };
  for (let failures = 0; ; ) {
    const message = await preprompt(flow);
    if (typeof message !== "string") return message;
    if (offered.length === 0) {
      ui.print(
        safe`${styled("blue", safe`?`)} ${styled("bold", message)} ${styled("dim", safe`(opening your editor)`)}`,
      );
    }
    const round = await editJsonOnce(ui, text, check);
    if (round.type === "value") return { type: "answer", value: round.value };
    if (round.type === "invalid") text = round.text;
    if (offered.length > 0) continue;
    if (round.type === "empty") ui.print(errorLine(safe`The answer is empty: write a JSON value`));
    failures++;
    if (failures >= MAX_EDIT_ATTEMPTS) {
      ui.print(errorLine(safe`Giving up after ${failures} attempts`));
      return { type: "cancelled" };
    }
    await confirmEditAgain(ui, safe`(Ctrl+C cancels)`);
  }
}
