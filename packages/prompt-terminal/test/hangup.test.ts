// A terminal that hangs up while a prompt is shown (its window closed, an SSH session dropped):
// the prompt fails as the person not reached (never as their cancel), and the process goes on. Driven in a real terminal: a
// tmux server of its own, killed while the prompt is on screen.
import { afterEach, describe, expect, it } from "vitest";
import { askInTmux, HAS_TMUX, NEEDS_TMUX, type TmuxPrompt, until } from "./support/tmux.js";

let terminal: TmuxPrompt | undefined;
afterEach(() => terminal?.close());

describe.skipIf(!HAS_TMUX)(`a terminal that hangs up during a prompt${NEEDS_TMUX}`, () => {
  it("rejects the prompt as the person not reached; the process does not crash", {
    timeout: 40_000,
  }, async () => {
    terminal = askInTmux(
      {
        kind: "question",
        tool_name: "deploy",
        tool_call_id: "c1",
        inquiry_id: "c1.name.1",
        question: { id: "name", text: "Which name?", answer_type: { type: "text" } },
        controls: { remember: false, back: false, reply: false, end_turn: false },
      },
      { env: "ASK_SURVIVE_HANGUP=1", linger: false },
    );
    await until(() => terminal?.screen().includes("Which name?") === true, "the prompt");
    terminal.tmux("kill-server");
    expect(await terminal.reply()).toEqual({
      error: "HumanUnreachableError: the terminal hung up while the prompt was shown",
    });
  });
});
