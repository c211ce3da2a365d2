// Ctrl+D on an empty line at a prompt, in a real terminal: end of input, which RFD 082 records
// as the person's cancel. Readline closes on that key and turns the terminal's echo back on; the
// prompt must end there, not wait on while what is typed next (a secret) shows on the screen.
// Driven in a tmux server of its own.
import { afterEach, describe, expect, it } from "vitest";
import { askInTmux, HAS_TMUX, NEEDS_TMUX, type TmuxPrompt, until } from "./support/tmux.js";

let terminal: TmuxPrompt | undefined;
afterEach(() => terminal?.close());

describe.skipIf(!HAS_TMUX)(`Ctrl+D at a prompt in a terminal${NEEDS_TMUX}`, () => {
  it("ends a secret prompt as the person's cancel at once", { timeout: 40_000 }, async () => {
    terminal = askInTmux({
      kind: "question",
      tool_name: "publish",
      tool_call_id: "c1",
      inquiry_id: "c1.otp.1",
      question: { id: "otp", text: "One-time password?", answer_type: { type: "secret" } },
      controls: { remember: false, back: false, reply: false, end_turn: false },
    });
    await until(() => terminal?.screen().includes("One-time password?") === true, "the prompt");
    terminal.tmux("send-keys", "C-d");
    expect(await terminal.reply()).toEqual({ type: "cancelled" });
    expect(terminal.screen()).toContain("✖ cancelled");
  });
});
