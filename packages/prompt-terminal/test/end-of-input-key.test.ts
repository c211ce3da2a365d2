// Ctrl+D on an empty line at a prompt, in a real terminal: end of input, which RFD 082 records
// as the person's cancel. Readline closes on that key and turns the terminal's echo back on; the
// prompt must end there, not wait on while what is typed next (a secret) shows on the screen.
// Driven in a tmux server of its own.
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

describe.skipIf(!HAS_TMUX)(`Ctrl+D at a prompt in a terminal${NEEDS_TMUX}`, () => {
  it("ends a secret prompt as the person's cancel at once", { timeout: 40_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "jp-eof-"));
    dirs.push(dir);
    const socket = join(dir, "tmux.sock");
    const out = join(dir, "reply.json");
    const request = JSON.stringify({
      kind: "question",
      tool_name: "publish",
      tool_call_id: "c1",
      inquiry_id: "c1.otp.1",
      question: { id: "otp", text: "One-time password?", answer_type: { type: "secret" } },
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
      tmux("new-session", "-d", "-x", "100", "-y", "30", `cd ${quote(ROOT)} && ${command}`);
      await until(() => tmux("capture-pane", "-p").includes("One-time password?"), "the prompt");
      tmux("send-keys", "C-d");
      await until(() => existsSync(out) && readFileSync(out, "utf8").includes("\n"), "the reply");
      expect(JSON.parse(readFileSync(out, "utf8"))).toEqual({ type: "cancelled" });
      expect(tmux("capture-pane", "-p")).toContain("✖ cancelled");
    } finally {
      spawnSync("tmux", ["-S", socket, "kill-server"], { stdio: "ignore" });
    }
  });
});
