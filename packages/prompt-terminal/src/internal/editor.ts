import { type StdioOptions, spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AbortPromptError } from "@inquirer/core";

/** What came back from the editor. */
export type EditOutcome =
  | { readonly type: "edited"; readonly text: string }
  | { readonly type: "failed"; readonly message: string };

/** Options of {@link editInEditor}. */
export interface EditOptions {
  readonly text: string;
  /** The temporary file's suffix, e.g. `.json`, so the editor picks a syntax. */
  readonly postfix: string;
  readonly stdio: StdioOptions;
  readonly env: NodeJS.ProcessEnv;
  readonly signal: AbortSignal;
}

/**
 * Opens `$VISUAL`/`$EDITOR` (else `vi`) on a private temporary file holding `text`, much as git
 * does (`sh -c 'exec $EDITOR "$@"'`, so `EDITOR="code --wait"` works), and returns the saved text.
 * Inquirer's `editor` prompt is not used: it runs the editor on the process's own stdio, which
 * breaks when stdout is piped, and its prompt keeps reading the terminal while the editor runs.
 * An editor that exits non-zero (`:cq`, or not found) yields `failed`. An abort kills it.
 */
export async function editInEditor(options: EditOptions): Promise<EditOutcome> {
  const { text, postfix, stdio, env, signal } = options;
  const dir = await mkdtemp(join(tmpdir(), "jp-prompt-"));
  try {
    const file = join(dir, `edit${postfix}`);
    await writeFile(file, text, { mode: 0o600 });
    const command = env.VISUAL || env.EDITOR || "vi";
    const status = await runEditor(command, file, { stdio, env, signal });
    if (status !== 0) {
      return { type: "failed", message: `the editor (${command}) exited with status ${status}` };
    }
    return { type: "edited", text: await readFile(file, "utf8") };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function runEditor(
  command: string,
  file: string,
  options: { stdio: StdioOptions; env: NodeJS.ProcessEnv; signal: AbortSignal },
): Promise<number | string> {
  const { stdio, env, signal } = options;
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(new AbortPromptError({ cause: signal.reason }));
      return;
    }
    // `exec`, so that the shell becomes the editor and an abort's SIGTERM reaches the editor.
    const child = spawn("/bin/sh", ["-c", `exec ${command} "$@"`, "editor", file], { stdio, env });
    const onAbort = () => {
      child.kill("SIGTERM");
      reject(new AbortPromptError({ cause: signal.reason }));
    };
    signal.addEventListener("abort", onAbort, { once: true });
    child.once("error", (error) => {
      signal.removeEventListener("abort", onAbort);
      reject(error);
    });
    child.once("exit", (code, killedBy) => {
      signal.removeEventListener("abort", onAbort);
      resolve(code ?? killedBy ?? "unknown");
    });
  });
}
