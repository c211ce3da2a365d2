// The example client of examples/rpc-client, answering on a real terminal (a tmux server of the
// test's own): a secret typed at one prompt must not come back at the next through the line
// editor's history (the up arrow).
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

const HAS_TMUX = spawnSync("tmux", ["-V"], { stdio: "ignore" }).status === 0;
const NEEDS_TMUX = HAS_TMUX ? "" : " [skipped: tmux is not installed (apt-get install tmux)]";
const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const DEMO = fileURLToPath(new URL("./fixtures/demo-agent.ts", import.meta.url));
const OVERLAP = fileURLToPath(new URL("./fixtures/overlap-agent.ts", import.meta.url));

const dirs: string[] = [];
const servers: (() => void)[] = [];
afterEach(() => {
  for (const stop of servers.splice(0)) stop();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function until(check: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 100));
  }
}

const quote = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;

/**
 * The demo agent and the example client in a tmux server of their own: the first two prompts
 * are answered from the script, the secret and the permission prompt on the terminal.
 */
function demoOnTerminal() {
  return onTerminal(`${quote(DEMO)} yes eu-west`);
}

/** An agent script (quoted, with its arguments) and the example client, in their own tmux. */
function onTerminal(agent: string) {
  const dir = mkdtempSync(join(tmpdir(), "jp-rpc-tty-"));
  dirs.push(dir);
  const socket = join(dir, "tmux.sock");
  const tmux = (...args: string[]) =>
    execFileSync("tmux", ["-S", socket, "-f", "/dev/null", ...args], { cwd: ROOT }).toString();
  const command = `${quote(process.execPath)} --conditions=@jp/source --import tsx ${agent}; sleep 30`;
  tmux("new-session", "-d", "-x", "120", "-y", "30", `cd ${quote(ROOT)} && ${command}`);
  servers.push(() => spawnSync("tmux", ["-S", socket, "kill-server"]));
  return { tmux, screen: () => tmux("capture-pane", "-p", "-J") };
}

describe.skipIf(!HAS_TMUX)(`examples/rpc-client on a terminal${NEEDS_TMUX}`, () => {
  it("a secret typed at one prompt is not offered again by the up arrow at the next", {
    timeout: 60_000,
  }, async () => {
    const { tmux, screen } = demoOnTerminal();
    await until(() => screen().includes("API token?"), "the secret prompt");
    tmux("send-keys", "-l", "hunter2-token");
    tmux("send-keys", "Enter");
    await until(() => screen().includes("Run shell"), "the permission prompt");
    tmux("send-keys", "Up");
    await new Promise((done) => setTimeout(done, 500));
    const shown = screen();
    expect(shown).not.toContain("hunter2-token");
    // Cleared and answered, the prompt takes what was typed.
    tmux("send-keys", "C-u");
    tmux("send-keys", "-l", "skip");
    tmux("send-keys", "Enter");
    await until(() => screen().includes("permission shell:"), "the demo's last reply");
    expect(screen()).toContain('permission shell: {"type":"skip"}');
  });
  it("closed at one prompt (Ctrl-D), cancels that one and fails those after it, which nobody saw", {
    timeout: 60_000,
  }, async () => {
    const { tmux, screen } = demoOnTerminal();
    await until(() => screen().includes("API token?"), "the secret prompt");
    tmux("send-keys", "C-d");
    await until(() => screen().includes("permission shell:"), "the demo's last reply");
    expect(screen()).toContain('question token: {"type":"cancelled"}');
    expect(screen()).toMatch(
      /permission shell: failed \(.*the terminal was closed before this prompt/,
    );
  });

  it("prompts that overlap are asked one after the other: the secret is not echoed, the next one is answered", {
    timeout: 60_000,
  }, async () => {
    const { tmux, screen } = onTerminal(quote(OVERLAP));
    await until(() => screen().includes("API token?"), "the secret prompt");
    // The second prompt waits off screen until the first is answered.
    expect(screen()).not.toContain("Your name?");
    tmux("send-keys", "-l", "hunter2-token");
    tmux("send-keys", "Enter");
    await until(() => screen().includes("Your name?"), "the second prompt");
    tmux("send-keys", "-l", "Ada");
    tmux("send-keys", "Enter");
    await until(() => screen().includes("question name:"), "the agent's last reply");
    expect(screen()).toContain('question name: {"type":"answer","value":"Ada"}');
    expect(screen()).toContain("question token: (secret answer)");
    expect(screen()).not.toContain("hunter2-token");
  });
});
