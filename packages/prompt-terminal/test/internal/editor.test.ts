import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { editInEditor } from "../../src/internal/editor.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A shell-script editor: `body` runs with the file as `$1` (and the editor's own args before). */
function shellEditor(body: string): string {
  const dir = mkdtempSync(join(tmpdir(), "jp-editor-unit-"));
  dirs.push(dir);
  const script = join(dir, "edit.sh");
  writeFileSync(script, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  return script;
}

function edit(env: NodeJS.ProcessEnv, text = "before\n", postfix = ".json") {
  return editInEditor({
    text,
    postfix,
    stdio: "ignore",
    env: { PATH: process.env.PATH, ...env },
    signal: new AbortController().signal,
  });
}

describe("editInEditor", () => {
  it("returns what the editor saved", async () => {
    const editor = shellEditor('printf "after" > "$1"');
    await expect(edit({ EDITOR: editor })).resolves.toEqual({ type: "edited", text: "after" });
  });

  it("runs EDITOR through the shell, so it may carry arguments", async () => {
    const editor = shellEditor('printf "%s" "$1" > "$2"');
    await expect(edit({ EDITOR: `${editor} --wait` })).resolves.toEqual({
      type: "edited",
      text: "--wait",
    });
  });

  it("prefers VISUAL over EDITOR", async () => {
    const visual = shellEditor('printf "visual" > "$1"');
    const editor = shellEditor('printf "editor" > "$1"');
    await expect(edit({ VISUAL: visual, EDITOR: editor })).resolves.toEqual({
      type: "edited",
      text: "visual",
    });
  });

  it("writes a private temporary file with the postfix, and removes it afterwards", async () => {
    const log = join(mkdtempSync(join(tmpdir(), "jp-editor-unit-")), "seen");
    dirs.push(join(log, ".."));
    const editor = shellEditor(`echo "$1" > '${log}'; stat -c %a "$1" >> '${log}'`);
    await edit({ EDITOR: editor });
    const [file = "", mode] = readFileSync(log, "utf8").trim().split("\n");
    expect(file).toMatch(/\.json$/);
    expect(mode).toBe("600");
    expect(existsSync(file)).toBe(false);
  });

  it.each([
    ["exits non-zero", "exit 1", "exited with status 1"],
    ["cannot be found", undefined, "exited with status 127"],
  ])("fails when the editor %s", async (_what, body, message) => {
    const editor = body === undefined ? "/nonexistent/editor" : shellEditor(body);
    const outcome = await edit({ EDITOR: editor });
    expect(outcome.type).toBe("failed");
    expect(outcome.type === "failed" && outcome.message).toContain(message);
  });
});
