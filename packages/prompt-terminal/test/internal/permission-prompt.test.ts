import type { PermissionReply } from "@jp/coordinator";
import { describe, expect, it } from "vitest";
import { KEYS } from "../support/fake-terminal.js";
import { harness, permissionRequest, withEditor } from "../support/harness.js";
import type { EditorStep } from "../support/scripted-editor.js";

const MENU = "[y,Y,n,N,r,e,p]";

describe("permission prompt", () => {
  it("asks `Run <source> tool <name>?` and explains every key", async () => {
    const { term, ask } = harness();
    const reply = ask(permissionRequest());
    await term.waitFor(MENU);
    expect(term.plain()).toContain(`? Run local tool fs_modify_file? ${MENU}`);
    expect(term.plain()).toContain(
      "y run · Y run + remember for turn · n skip · N skip + remember for turn · r skip and reply · e edit arguments · p print arguments",
    );
    term.press("y");
    await reply;
  });

  it.each([
    [{ tool_source: "builtin" }, "Run built-in tool fs_modify_file?"],
    [{ tool_source: "mcp" }, "Run mcp tool fs_modify_file?"],
    [{ tool_source: undefined }, "Run tool fs_modify_file?"],
  ])("names the source %o: %s", async (extra, message) => {
    const { term, ask } = harness();
    const request = permissionRequest();
    const reply = ask({ ...request, ...extra } as typeof request);
    await term.waitFor(message);
    term.press("n");
    await reply;
  });

  it.each<[string, PermissionReply]>([
    ["y", { type: "run" }],
    ["Y", { type: "run", remember: true }],
    ["n", { type: "skip" }],
    ["N", { type: "skip", remember: true }],
  ])("key %s replies %o", async (key, expected) => {
    const { term, ask } = harness();
    const reply = ask(permissionRequest());
    await term.waitFor(MENU);
    term.press(key);
    await expect(reply).resolves.toEqual(expected);
  });

  it("has no default: Enter alone does not run the tool", async () => {
    const { term, ask } = harness();
    const reply = ask(permissionRequest());
    await term.waitFor(MENU);
    term.press(KEYS.enter);
    await term.waitFor("Press one of");
    term.press("n");
    await expect(reply).resolves.toEqual({ type: "skip" });
  });

  it("r skips with the reason typed", async () => {
    const { term, ask } = harness();
    const reply = ask(permissionRequest());
    await term.waitFor(MENU);
    term.press("r");
    await term.waitFor("Reason for skipping (optional):");
    term.press("wrong file", KEYS.enter);
    await expect(reply).resolves.toEqual({ type: "skip", reason: "wrong file" });
  });

  it("p prints the arguments as pretty JSON, then asks again", async () => {
    const { term, ask } = harness();
    const reply = ask(permissionRequest());
    await term.waitFor(MENU);
    term.press("p");
    await term.waitFor(MENU);
    expect(term.plain()).toContain(
      '{\n  "path": "src/main.ts",\n  "lines": [\n    1,\n    2\n  ]\n}',
    );
    term.press("y");
    await expect(reply).resolves.toEqual({ type: "run" });
  });

  it("e edits the arguments as JSON", async () => {
    const { term, ask, editor } = withEditor(['{ "path": "src/other.ts" }']);
    const reply = ask(permissionRequest());
    await term.waitFor(MENU);
    term.press("e");
    await expect(reply).resolves.toEqual({ type: "edit", arguments: { path: "src/other.ts" } });
    expect(editor.seen()).toEqual([
      '{\n  "path": "src/main.ts",\n  "lines": [\n    1,\n    2\n  ]\n}\n',
    ]);
    expect(editor.files()[0]).toMatch(/\.json$/);
  });

  it("e with arguments saved unchanged asks again: quitting the editor does not run the tool", async () => {
    const { term, ask } = withEditor(['{"path":"src/main.ts","lines":[1,2]}']);
    const reply = ask(permissionRequest());
    await term.waitFor(MENU);
    term.press("e");
    await term.waitFor("The arguments are unchanged.");
    await term.waitFor(MENU);
    term.press("n");
    await expect(reply).resolves.toEqual({ type: "skip" });
  });

  it("mode edit with arguments saved unchanged asks before running", async () => {
    const { term, ask } = withEditor(['{"path":"src/main.ts","lines":[1,2]}']);
    const reply = ask(permissionRequest({ mode: "edit" }));
    await term.waitFor(MENU);
    term.press("y");
    await expect(reply).resolves.toEqual({ type: "run" });
  });

  it("e with invalid JSON or a non-object shows the error and edits again", async () => {
    const { term, ask, editor } = withEditor(["{ broken", "[1]", '{"path":"x"}']);
    const reply = ask(permissionRequest());
    await term.waitFor(MENU);
    term.press("e");
    await term.waitFor("Not valid JSON");
    await term.waitFor("empty the file to go back");
    term.press("e");
    await term.waitFor("The arguments must be a JSON object");
    await term.waitFor("e edit again (default)");
    term.press(KEYS.enter);
    await expect(reply).resolves.toEqual({ type: "edit", arguments: { path: "x" } });
    expect(editor.seen().slice(1)).toEqual(["{ broken", "[1]"]);
  });

  it.each<[string, EditorStep]>([
    ["an emptied file", "  \n"],
    ["a failed editor", { exit: 1 }],
  ])("e with %s goes back to the keys", async (_what, step) => {
    const { term, ask } = withEditor([step]);
    const reply = ask(permissionRequest());
    await term.waitFor(MENU);
    term.press("e");
    await term.waitFor(MENU);
    term.press("n");
    await expect(reply).resolves.toEqual({ type: "skip" });
  });

  it("mode edit opens the editor first", async () => {
    const { term, ask, editor } = withEditor(['{"path":"y"}']);
    const reply = ask(permissionRequest({ mode: "edit" }));
    await expect(reply).resolves.toEqual({ type: "edit", arguments: { path: "y" } });
    expect(editor.seen()).toHaveLength(1);
    expect(term.plain()).toContain(
      "Run local tool fs_modify_file? (opening the arguments in your editor)",
    );
    expect(term.plain()).not.toContain(MENU);
  });

  it("mode edit with an emptied file falls back to the keys", async () => {
    const { term, ask } = withEditor([""]);
    const reply = ask(permissionRequest({ mode: "edit" }));
    await term.waitFor(MENU);
    term.press("Y");
    await expect(reply).resolves.toEqual({ type: "run", remember: true });
  });
});
