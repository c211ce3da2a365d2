// A terminal that hangs up while a prompt is shown (its window closed, an SSH session dropped):
// the prompt fails as the person not reached (never as their cancel), and the process goes on. Driven in a real terminal: a
// tmux server of its own, killed while the prompt is on screen.
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

describe.skipIf(!HAS_TMUX)(`a terminal that hangs up during a prompt${NEEDS_TMUX}`, () => {
  it("rejects the prompt as the person not reached; the process does not crash", {
    timeout: 40_000,
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "jp-hangup-"));
    dirs.push(dir);
    const socket = join(dir, "tmux.sock");
    const out = join(dir, "reply.json");
    const request = JSON.stringify({
      kind: "question",
      tool_name: "deploy",
      tool_call_id: "c1",
      inquiry_id: "c1.name.1",
      question: { id: "name", text: "Which name?", answer_type: { type: "text" } },
      controls: { remember: false, back: false, reply: false, end_turn: false },
    });
    const command = [
      "ASK_SURVIVE_HANGUP=1",
      quote(process.execPath),
      "--conditions=@jp/source --import tsx",
      quote(ASK),
      quote(request),
      ">",
      quote(out),
    ].join(" ");
    const tmux = (...args: string[]) =>
      execFileSync("tmux", ["-S", socket, "-f", "/dev/null", ...args], { cwd: ROOT }).toString();
    tmux("new-session", "-d", "-x", "100", "-y", "30", `cd ${quote(ROOT)} && ${command}`);
    await until(() => tmux("capture-pane", "-p").includes("Which name?"), "the prompt");
    tmux("kill-server");
    await until(() => existsSync(out) && readFileSync(out, "utf8").includes("\n"), "the reply");
    expect(JSON.parse(readFileSync(out, "utf8"))).toEqual({
      error: "HumanUnreachableError: the terminal hung up while the prompt was shown",
    });
  });
});
