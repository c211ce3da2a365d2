import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/** The repository root. */
export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
/** Where the snippets are. */
export const SNIPPETS = join(REPO, "docs/snippets");
/** tsx's loader, by absolute URL so a snippet can run in any directory. */
const TSX = pathToFileURL(join(REPO, "node_modules/tsx/dist/loader.mjs")).href;

/** The command that runs a snippet as a reader would (`node --import tsx file.ts`). */
export function snippetCommand(file: string): string[] {
  return [process.execPath, "--conditions=@jp/source", `--import=${TSX}`, join(SNIPPETS, file)];
}

export interface SnippetRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** The directory it ran in (a fresh temporary one). */
  readonly cwd: string;
}

/**
 * Runs a snippet in a fresh temporary directory with no terminal: in a session of its own, so
 * `/dev/tty` does not open even when the tests run in one, and nobody is there to answer.
 */
export function runSnippet(
  file: string,
  env: Readonly<Record<string, string>> = {},
): Promise<SnippetRun> {
  const cwd = mkdtempSync(join(tmpdir(), "jp-snippet-"));
  const [node, ...args] = snippetCommand(file) as [string, ...string[]];
  return new Promise((resolvePromise, reject) => {
    const child = spawn(node, args, {
      cwd,
      env: { ...process.env, ...env },
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => resolvePromise({ code, stdout, stderr, cwd }));
  });
}
