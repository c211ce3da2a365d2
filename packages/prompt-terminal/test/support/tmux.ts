// A prompt asked in a real terminal: the `ask` fixture run in a tmux server of the test's own,
// its reply written to a file. For the tests of what only a terminal does (keys, resizes, a
// hang-up); they report themselves skipped, and why, where tmux is not installed.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const HAS_TMUX = spawnSync("tmux", ["-V"], { stdio: "ignore" }).status === 0;
/** Appended to a suite's name: says why it is skipped. */
export const NEEDS_TMUX = HAS_TMUX
  ? ""
  : " [skipped: tmux is not installed (apt-get install tmux)]";

const ROOT = fileURLToPath(new URL("../../../../", import.meta.url));
const ASK = fileURLToPath(new URL("../fixtures/ask.ts", import.meta.url));

export async function until(check: () => boolean, what: string, timeoutMs = 20_000) {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 100));
  }
}

const quote = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;

export interface TmuxPrompt {
  /** Runs a tmux command against this terminal; returns its output. */
  readonly tmux: (...args: string[]) => string;
  /** What the terminal shows. */
  readonly screen: () => string;
  /** The backend's reply (or error), once the fixture wrote it. */
  readonly reply: () => Promise<unknown>;
  /** Stops the terminal and removes its files. */
  readonly close: () => void;
}

/**
 * Asks `request` through the terminal backend in a new tmux window of `width` columns. `env`
 * is put before the command (`NAME=value`); the window stays open after the reply unless
 * `linger` is false.
 */
export function askInTmux(
  request: object,
  options: { readonly width?: number; readonly env?: string; readonly linger?: boolean } = {},
): TmuxPrompt {
  const dir = mkdtempSync(join(tmpdir(), "jp-tmux-"));
  const socket = join(dir, "tmux.sock");
  const out = join(dir, "reply.json");
  const command = [
    options.env ?? "",
    quote(process.execPath),
    "--conditions=@jp/source --import tsx",
    quote(ASK),
    quote(JSON.stringify(request)),
    ">",
    quote(out),
    options.linger === false ? "" : "; sleep 30",
  ]
    .filter((part) => part !== "")
    .join(" ");
  const tmux = (...args: string[]) =>
    execFileSync("tmux", ["-S", socket, "-f", "/dev/null", ...args], { cwd: ROOT }).toString();
  const close = () => {
    spawnSync("tmux", ["-S", socket, "kill-server"], { stdio: "ignore" });
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const width = String(options.width ?? 100);
    tmux("new-session", "-d", "-x", width, "-y", "30", `cd ${quote(ROOT)} && ${command}`);
  } catch (cause) {
    close();
    throw cause;
  }
  return {
    tmux,
    screen: () => tmux("capture-pane", "-p"),
    reply: async () => {
      await until(() => existsSync(out) && readFileSync(out, "utf8").includes("\n"), "the reply");
      return JSON.parse(readFileSync(out, "utf8"));
    },
    close,
  };
}
