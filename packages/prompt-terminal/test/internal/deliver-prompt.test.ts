import type { DeliverReply } from "@jp/coordinator";
import { describe, expect, it } from "vitest";
import { KEYS } from "../support/fake-terminal.js";
import { deliverRequest, harness, withEditor } from "../support/harness.js";
import type { EditorStep } from "../support/scripted-editor.js";

const MENU = "[y,n,e]";

describe("deliver prompt", () => {
  it("asks `Deliver <tool> result to assistant?` with y as the default", async () => {
    const { term, ask } = harness();
    const reply = ask(deliverRequest());
    await term.waitFor(MENU);
    expect(term.plain()).toContain(`? Deliver fs_read_file result to assistant? ${MENU}`);
    expect(term.plain()).toContain("y deliver (default) · n skip · e edit");
    term.press(KEYS.enter);
    await expect(reply).resolves.toEqual({ type: "deliver" });
  });

  it("says `error result` for a failed tool", async () => {
    const { term, ask } = harness();
    const reply = ask(deliverRequest({ is_error: true }));
    await term.waitFor("Deliver fs_read_file error result to assistant?");
    term.press("n");
    await reply;
  });

  it.each<[string, DeliverReply]>([
    ["y", { type: "deliver" }],
    ["n", { type: "skip" }],
  ])("key %s replies %o", async (key, expected) => {
    const { term, ask } = harness();
    const reply = ask(deliverRequest());
    await term.waitFor(MENU);
    term.press(key);
    await expect(reply).resolves.toEqual(expected);
  });

  it("e edits the result; the final newline an editor adds is taken off again", async () => {
    const { term, ask, editor } = withEditor(["shorter contents\n"]);
    const reply = ask(deliverRequest());
    await term.waitFor(MENU);
    term.press("e");
    await expect(reply).resolves.toEqual({ type: "edit", content: "shorter contents" });
    expect(editor.seen()).toEqual(["file contents\n"]);
  });

  it.each<[string, EditorStep]>([
    ["emptied", "\n"],
    ["unchanged", "file contents\n"],
  ])("e with the result %s delivers the original", async (_what, step) => {
    const { term, ask } = withEditor([step]);
    const reply = ask(deliverRequest());
    await term.waitFor(MENU);
    term.press("e");
    await expect(reply).resolves.toEqual({ type: "deliver" });
  });

  it("e with a failed editor goes back to the keys", async () => {
    const { term, ask } = withEditor([{ exit: 2 }]);
    const reply = ask(deliverRequest());
    await term.waitFor(MENU);
    term.press("e");
    await term.waitFor("exited with status 2; the edit was discarded");
    await term.waitFor(MENU);
    term.press("n");
    await expect(reply).resolves.toEqual({ type: "skip" });
  });

  it("mode edit opens the editor first", async () => {
    const { term, ask } = withEditor(["edited\n"]);
    const reply = ask(deliverRequest({ mode: "edit", content: "original\n" }));
    await expect(reply).resolves.toEqual({ type: "edit", content: "edited\n" });
    expect(term.plain()).not.toContain(MENU);
  });
});
