import type { DeliverPromptRequest, DeliverReply } from "@jp/coordinator";
import { errorLine } from "./json-edit.js";
import type { KeyChoice } from "./prompts/key-prompt.js";
import { type SafeText, safe, styled, untrusted } from "./safe-text.js";
import type { TerminalUi } from "./terminal-ui.js";

/** What a key does: resolve a reply, or `undefined` to ask again. */
type Action = (ui: TerminalUi, request: DeliverPromptRequest) => Promise<DeliverReply | undefined>;

interface DeliverKey extends KeyChoice {
  readonly action: Action;
}

/** JP's result-delivery keys; `y` is the default. */
const DELIVER_KEYS: readonly DeliverKey[] = [
  { key: "y", label: safe`deliver`, action: async () => ({ type: "deliver" }) },
  { key: "n", label: safe`skip`, action: async () => ({ type: "skip" }) },
  { key: "e", label: safe`edit`, action: editResult },
];

/** `Deliver fs_read_file result to assistant?` (`error result` for a failed tool). */
export function deliverMessage(request: DeliverPromptRequest): SafeText {
  const name = styled("cyan", untrusted(request.tool_name));
  const what = request.is_error ? safe`error result` : safe`result`;
  return safe`Deliver ${name} ${what} to assistant?`;
}

/**
 * Asks whether a tool's result goes to the assistant: `y` (default) deliver, `n` skip, `e` edit
 * it in the editor. Mode `edit` opens the editor first.
 */
export async function askDeliver(
  ui: TerminalUi,
  request: DeliverPromptRequest,
): Promise<DeliverReply> {
  const message = deliverMessage(request);
  if (request.mode === "edit") {
    ui.print(safe`${message} ${styled("dim", safe`(opening the result in your editor)`)}`);
    const edited = await editResult(ui, request);
    if (edited !== undefined) return edited;
  }
  for (;;) {
    const key = await ui.keys({ message, choices: DELIVER_KEYS, default: "y" });
    const chosen = DELIVER_KEYS.find((choice) => choice.key === key);
    if (chosen === undefined) throw new Error(`unexpected key ${JSON.stringify(key)}`);
    const reply = await chosen.action(ui, request);
    if (reply !== undefined) return reply;
  }
}

/**
 * The result in the editor. An emptied or unchanged file keeps the original (`deliver`); a
 * failed editor returns to the keys (`undefined`). Editors add a final newline on save, so one
 * is added before and taken off after when the original had none.
 */
async function editResult(
  ui: TerminalUi,
  request: DeliverPromptRequest,
): Promise<DeliverReply | undefined> {
  const original = request.content;
  const endsInNewline = original.endsWith("\n");
  const outcome = await ui.edit(endsInNewline ? original : `${original}\n`, ".txt");
  if (outcome.type === "failed") {
    ui.print(errorLine(safe`${untrusted(outcome.message)}; the edit was discarded`));
    return undefined;
  }
  const edited =
    !endsInNewline && outcome.text.endsWith("\n") ? outcome.text.slice(0, -1) : outcome.text;
  if (edited.trim() === "" || edited === original) return { type: "deliver" };
  return { type: "edit", content: edited };
}
