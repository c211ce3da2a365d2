// A terminal window resized while a prompt is shown: the prompt is drawn at the new width, so
// typing does not leave copies of it on the screen, and the answer is what was typed. Driven in
// a real terminal: a tmux server of its own, its window made narrower mid-prompt.
import { afterEach, describe, expect, it } from "vitest";
import { askInTmux, HAS_TMUX, NEEDS_TMUX, type TmuxPrompt, until } from "./support/tmux.js";

let terminal: TmuxPrompt | undefined;
afterEach(() => terminal?.close());

describe.skipIf(!HAS_TMUX)(`a terminal resized during a prompt${NEEDS_TMUX}`, () => {
  it("draws the prompt at the new width: typing leaves no copies of it", {
    timeout: 40_000,
  }, async () => {
    const text = "Which name should the new release of the widgets package carry, please?";
    const shown = askInTmux(
      {
        kind: "question",
        tool_name: "deploy",
        tool_call_id: "c1",
        inquiry_id: "c1.name.1",
        question: { id: "name", text, answer_type: { type: "text" } },
        controls: { remember: false, back: false, reply: false, end_turn: false },
      },
      { width: 120 },
    );
    terminal = shown;
    const { tmux, screen } = shown;
    await until(() => screen().includes("Which name"), "the prompt");
    tmux("resize-window", "-t", "0", "-x", "40", "-y", "30");
    await until(() => tmux("display", "-p", "#{pane_width}").trim() === "40", "the resize");
    // One key at a time, each drawn before the next: every key redraws the prompt.
    let typed = "";
    for (const key of ["a", "b", "c", "d", "e"]) {
      tmux("send-keys", "-l", key);
      typed += key;
      await until(() => screen().includes(`? ${typed}`), `the key ${key}`);
    }
    expect(screen().split("? Which name").length - 1).toBe(1);
    tmux("send-keys", "Enter");
    expect(await shown.reply()).toEqual({ type: "answer", value: "abcde" });
  });
});
