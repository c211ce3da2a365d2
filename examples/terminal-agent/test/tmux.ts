// Drives programs in a real terminal: each screen is a tmux server of its own (a private socket
// in a temporary directory) with one 120×40 pane. Tests send keys and wait for text to appear
// by polling `capture-pane`; nothing synchronises on a fixed sleep.
import { execFile, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach } from "vitest";

/** The repository root, where `npm run demo` runs. */
export const REPO_ROOT = resolve(fileURLToPath(new URL(".", import.meta.url)), "../../..");

/** Whether a usable `tmux` is installed (the tests skip themselves otherwise). */
export const HAS_TMUX = spawnSync("tmux", ["-V"], { stdio: "ignore" }).status === 0;

/** Appended to the name of a block that needs tmux, so a skip says why in every report. */
export const NEEDS_TMUX = HAS_TMUX
  ? ""
  : " [skipped: tmux is not installed (apt-get install tmux)]";
if (!HAS_TMUX) console.warn(`skipping the terminal tests:${NEEDS_TMUX.slice(10, -1)}`);

/** How long {@link TmuxScreen.waitFor} waits by default. */
export const DEFAULT_WAIT_MS = 15_000;
const POLL_MS = 100;
const WIDTH = 120;
const HEIGHT = 40;

// The server's configuration: no user config, a plain shell, the pane kept after its program
// exits (to read the last screen), and OSC 52 accepted into a paste buffer so a test can tell
// whether a program wrote to the clipboard.
const TMUX_CONF = `
set -g default-shell /bin/sh
set -g default-terminal xterm-256color
set -g remain-on-exit on
set -g history-limit 10000
set -s escape-time 0
set -s set-clipboard on
`;

/** What to run in the pane. */
export interface StartOptions {
  /** The program and its arguments (quoted for the shell here). */
  readonly command: readonly string[];
  /** Working directory. Default: the repository root. */
  readonly cwd?: string;
  /** Extra environment; `undefined` removes a variable. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Shell text run before the command, e.g. to print a marker line. */
  readonly before?: string;
  /** A file to redirect the command's stdin from. */
  readonly stdin?: string;
}

/** Options of {@link TmuxScreen.waitFor}. */
export interface WaitOptions {
  /** Default {@link DEFAULT_WAIT_MS}. */
  readonly timeoutMs?: number;
  /** Wait until the text occurs at least this many times (in the scrollback too). Default 1. */
  readonly times?: number;
}

export type Expected = string | RegExp;

function quote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

function occurrences(text: string, expected: Expected): number {
  if (typeof expected === "string") {
    if (expected === "") return Number.POSITIVE_INFINITY;
    return text.split(expected).length - 1;
  }
  const flags = expected.flags.includes("g") ? expected.flags : `${expected.flags}g`;
  return [...text.matchAll(new RegExp(expected.source, flags))].length;
}

function describeExpected(expected: Expected): string {
  return typeof expected === "string" ? JSON.stringify(expected) : String(expected);
}

const delay = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** One program running in its own tmux server. */
export class TmuxScreen {
  readonly #socket: string;
  readonly #target: string;
  readonly #statusFile: string;
  /** A private temporary directory (the socket lives here); removed by {@link kill}. */
  readonly dir: string;
  #killed = false;

  private constructor(dir: string, name: string) {
    this.dir = dir;
    this.#socket = join(dir, "tmux.sock");
    this.#target = name;
    this.#statusFile = join(dir, "exit-status");
  }

  /** The session's name (unique per screen). */
  get name(): string {
    return this.#target;
  }

  /** Starts `options.command` in a new detached 120×40 session. */
  static async start(name: string, dir: string, options: StartOptions): Promise<TmuxScreen> {
    const screen = new TmuxScreen(dir, name);
    const conf = join(dir, "tmux.conf");
    writeFileSync(conf, TMUX_CONF);
    // The server copies its environment from the client that starts it: that is the pane's.
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const key of Object.keys(env)) {
      if (key.startsWith("VITEST") || key.startsWith("TMUX")) delete env[key];
    }
    env.TERM = "xterm-256color";
    for (const [key, value] of Object.entries(options.env ?? {})) {
      if (value === undefined) delete env[key];
      else env[key] = value;
    }
    const redirect = options.stdin === undefined ? "" : ` < ${quote(options.stdin)}`;
    const program = `${options.command.map(quote).join(" ")}${redirect}`;
    // The shell records the exit status itself: this tmux does not always reap a pane's
    // process (it stays a zombie), so `#{pane_dead_status}` may never be filled in.
    const status = quote(screen.#statusFile);
    const record = `echo $? > ${status}.tmp && mv ${status}.tmp ${status}`;
    const shell = `${options.before === undefined ? "" : `${options.before}; `}${program}; ${record}`;
    await screen.#tmux(
      ["-f", conf, "new-session", "-d", "-s", name, "-x", String(WIDTH), "-y", String(HEIGHT)],
      ["-c", options.cwd ?? REPO_ROOT, shell],
      env,
    );
    return screen;
  }

  #tmux(args: readonly string[], rest: readonly string[] = [], env?: NodeJS.ProcessEnv) {
    return new Promise<string>((done, fail) => {
      execFile(
        "tmux",
        ["-S", this.#socket, ...args, ...rest],
        { env: env ?? process.env, maxBuffer: 16 * 1024 * 1024 },
        (error, stdout, stderr) => {
          if (error) fail(new Error(`tmux ${args.join(" ")} failed: ${stderr || error.message}`));
          else done(stdout);
        },
      );
    });
  }

  /**
   * The pane's text with wrapped lines joined and trailing blanks removed: the visible screen,
   * or with `history` everything since the program started (scrollback included). With
   * `attributes`, tmux's SGR sequences for colours and styles are included.
   */
  async capture(
    options: { readonly history?: boolean; readonly attributes?: boolean } = {},
  ): Promise<string> {
    const range = options.history === true ? ["-S", "-"] : [];
    const attributes = options.attributes === true ? ["-e"] : [];
    const text = await this.#tmux([
      "capture-pane",
      "-p",
      "-J",
      ...attributes,
      "-t",
      this.#target,
      ...range,
    ]);
    return text
      .split("\n")
      .map((line) => line.trimEnd())
      .join("\n")
      .trimEnd();
  }

  /** Presses keys by tmux name: `Enter`, `Escape`, `Space`, `Down`, `C-c`, or one character. */
  async press(...keys: readonly string[]): Promise<void> {
    await this.#tmux(["send-keys", "-t", this.#target, ...keys]);
  }

  /** Types text literally (no key names). */
  async type(text: string): Promise<void> {
    await this.#tmux(["send-keys", "-t", this.#target, "-l", "--", text]);
  }

  /**
   * Polls the pane (scrollback included) until `expected` occurs `times` times, and resolves
   * the whole text then. Fails after the deadline, or soon after the program exited without
   * showing it, with the last screen in the message.
   */
  async waitFor(expected: Expected, options: WaitOptions = {}): Promise<string> {
    const { timeoutMs = DEFAULT_WAIT_MS, times = 1 } = options;
    const deadline = Date.now() + timeoutMs;
    let exitedAt: number | undefined;
    for (;;) {
      const text = await this.capture({ history: true });
      if (occurrences(text, expected) >= times) return text;
      // Output may still be on its way when the pane dies: look once more, then give up.
      if (exitedAt === undefined && (await this.exitStatus()) !== undefined) exitedAt = Date.now();
      const gaveUp = exitedAt !== undefined && Date.now() - exitedAt > 500;
      if (gaveUp || Date.now() > deadline) {
        const why = gaveUp ? "the program exited" : `${timeoutMs} ms passed`;
        const count = times > 1 ? ` ${times} times` : "";
        throw new Error(
          `tmux session ${this.#target}: ${describeExpected(expected)} did not appear${count} (${why}).\n` +
            `--- last screen (with scrollback) ---\n${text}\n--- end of screen ---`,
        );
      }
      await delay(POLL_MS);
    }
  }

  /** The program's exit status once it has exited, else `undefined`. */
  async exitStatus(): Promise<number | undefined> {
    try {
      return Number(readFileSync(this.#statusFile, "utf8").trim());
    } catch {
      return undefined;
    }
  }

  /** Waits for the program to exit and resolves its exit status. */
  async waitForExit(timeoutMs = DEFAULT_WAIT_MS): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const status = await this.exitStatus();
      if (status !== undefined) return status;
      if (Date.now() > deadline) {
        const text = await this.capture({ history: true });
        throw new Error(
          `tmux session ${this.#target}: the program did not exit within ${timeoutMs} ms.\n` +
            `--- last screen (with scrollback) ---\n${text}\n--- end of screen ---`,
        );
      }
      await delay(POLL_MS);
    }
  }

  /** The pane's title (set by OSC 0/2). */
  async paneTitle(): Promise<string> {
    return (
      await this.#tmux(["display-message", "-p", "-t", this.#target, "#{pane_title}"])
    ).trim();
  }

  /** The names of the paste buffers (an OSC 52 clipboard write creates one). */
  async pasteBuffers(): Promise<string[]> {
    const listed = await this.#tmux(["list-buffers", "-F", "#{buffer_name}"]);
    return listed.split("\n").filter((line) => line !== "");
  }

  /** Kills the tmux server (and the program) and removes the private directory. Idempotent. */
  async kill(): Promise<void> {
    if (this.#killed) return;
    this.#killed = true;
    await this.#tmux(["kill-server"]).catch(() => {});
    rmSync(this.dir, { recursive: true, force: true });
  }
}

let counter = 0;

/**
 * Screens for the tests of the calling `describe`: every screen started through it is killed
 * after each test, whatever the outcome.
 */
export function tmuxScreens() {
  const live = new Set<TmuxScreen>();
  afterEach(async () => {
    const screens = [...live];
    live.clear();
    await Promise.all(screens.map((screen) => screen.kill()));
  });

  async function start(options: StartOptions & { readonly dir?: string }): Promise<TmuxScreen> {
    const dir = options.dir ?? mkdtempSync(join(tmpdir(), "jp-e2e-tmux-"));
    const name = `jp-e2e-${process.pid}-${++counter}`;
    const screen = await TmuxScreen.start(name, dir, options);
    live.add(screen);
    return screen;
  }

  return {
    start,
    /**
     * Runs `npm run demo`'s command with `--out` a fresh directory, which the returned `out`
     * names (removed after the test with the screen).
     */
    async demo(args: readonly string[] = []): Promise<{ screen: TmuxScreen; out: string }> {
      const dir = mkdtempSync(join(tmpdir(), "jp-e2e-demo-"));
      const out = join(dir, "out");
      const screen = await start({
        dir,
        command: [
          process.execPath,
          "--conditions=@jp/source",
          "--import",
          "tsx",
          "examples/terminal-agent/src/main.ts",
          ...args,
          "--out",
          out,
        ],
      });
      return { screen, out };
    },
  };
}
