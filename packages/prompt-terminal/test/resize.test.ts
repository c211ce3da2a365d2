// A terminal window resized while a prompt is shown: the prompt is drawn at the new width, so
// typing does not leave copies of it on the screen, and the answer is what was typed. Driven in
// a real terminal: a tmux server of its own, its window made narrower mid-prompt.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

const HAS_TMUX = spawnSync("tmux", ["-V"], { stdio: "ignore" }).status === 0;
const NEEDS_TMUX = HAS_TMUX ? "" : " [skipped: tmux is not installed (apt-get install tmux)]";
const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const ASK = fileURLToPath(new URL("./fixtures/ask.ts", import.meta.url));

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function until(check: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 100));
  }
}

const quote = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;

describe.skipIf(!HAS_TMUX)(`a terminal resized during a prompt${NEEDS_TMUX}`, () => {
  it("draws the prompt at the new width: typing leaves no copies of it", {
    timeout: 40_000,
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "jp-resize-"));
    dirs.push(dir);
    const socket = join(dir, "tmux.sock");
    const out = join(dir, "reply.json");
    const text = "Which name should the new release of the widgets package carry, please?";
    const request = JSON.stringify({
      kind: "question",
      tool_name: "deploy",
      tool_call_id: "c1",
      inquiry_id: "c1.name.1",
      question: { id: "name", text, answer_type: { type: "text" } },
      controls: { remember: false, back: false, reply: false, end_turn: false },
    });
    const command = [
      quote(process.execPath),
      "--conditions=@jp/source --import tsx",
      quote(ASK),
      quote(request),
      ">",
      quote(out),
      "; sleep 30",
    ].join(" ");
    const tmux = (...args: string[]) =>
      execFileSync("tmux", ["-S", socket, "-f", "/dev/null", ...args], { cwd: ROOT }).toString();
    try {
      tmux("new-session", "-d", "-x", "120", "-y", "30", `cd ${quote(ROOT)} && ${command}`);
      await until(() => tmux("capture-pane", "-p").includes("Which name"), "the prompt");
      tmux("resize-window", "-t", "0", "-x", "40", "-y", "30");
      await until(() => tmux("display", "-p", "#{pane_width}").trim() === "40", "the resize");
      // One key at a time, each drawn before the next: every key redraws the prompt.
      let typed = "";
      for (const key of ["a", "b", "c", "d", "e"]) {
        tmux("send-keys", "-l", key);
        typed += key;
        await until(() => tmux("capture-pane", "-p").includes(`? ${typed}`), `the key ${key}`);
      }
      const screen = tmux("capture-pane", "-p");
      expect(screen.split("? Which name").length - 1).toBe(1);
      tmux("send-keys", "Enter");
      await until(() => existsSync(out) && readFileSync(out, "utf8").includes("\n"), "the reply");
      expect(JSON.parse(readFileSync(out, "utf8"))).toEqual({ type: "answer", value: "abcde" });
    } finally {
      spawnSync("tmux", ["-S", socket, "kill-server"], { stdio: "ignore" });
    }
  });
});
