import type { QuestionControls, QuestionReply } from "@jp/coordinator";
import type { MenuItem } from "./prompts/menu-prompt.js";
import { type SafeText, safe } from "./safe-text.js";
import type { TerminalUi } from "./terminal-ui.js";

type ControlName = "back" | "reply" | "end_turn";

/** A way to leave a question without answering it (RFD D30 "Cancel UX"), and its key. */
export interface Control {
  readonly name: ControlName;
  readonly key: string;
  readonly label: SafeText;
}

/** The controls in the order they are shown; a control appears only when the request offers it. */
const CONTROLS: readonly Control[] = [
  { name: "back", key: "b", label: safe`Back` },
  { name: "reply", key: "r", label: safe`Reply` },
  { name: "end_turn", key: "s", label: safe`End Turn` },
];

/** The controls `controls` offers (Back is not offered on a form's first question). */
export function offeredControls(controls: QuestionControls): readonly Control[] {
  return CONTROLS.filter((control) => controls[control.name]);
}

/** The control with this key, if offered. */
export function controlByKey(offered: readonly Control[], key: string): Control | undefined {
  return offered.find((control) => control.key === key);
}

/** Menu rows for the offered controls, set apart from what comes before them. */
export function controlMenuItems(offered: readonly Control[]): MenuItem[] {
  return offered.map((control, index) => ({
    label: control.label,
    key: control.key,
    separated: index === 0,
  }));
}

/** The reply a control stands for; `Reply` first asks for an optional message. */
export async function controlReply(ui: TerminalUi, control: Control): Promise<QuestionReply> {
  switch (control.name) {
    case "back":
      return { type: "back" };
    case "end_turn":
      return { type: "end_turn" };
    case "reply": {
      const message = await ui.text({ message: safe`Reply to the assistant (optional):` });
      return message.trim() === "" ? { type: "reply" } : { type: "reply", message };
    }
  }
}

/**
 * The `[Answer / Back / Reply / End Turn]` pre-prompt of text, secret and schema questions (and
 * the Esc menu of multi-select). Resolves `"answer"` or the chosen control's reply.
 */
export async function answerOrControl(
  ui: TerminalUi,
  message: SafeText,
  offered: readonly Control[],
): Promise<"answer" | QuestionReply> {
  const items: MenuItem[] = [{ label: safe`Answer`, key: "a" }, ...controlMenuItems(offered)];
  const picked = await ui.menu({ message, items, default: 0 });
  const control = offered[picked - 1];
  return control === undefined ? "answer" : controlReply(ui, control);
}
