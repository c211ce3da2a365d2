import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { build } from "esbuild";

const run = promisify(execFile);
const REPO = join(import.meta.dirname, "../../../..");

/**
 * The worker script bundled once with the workspace sources (other packages stay imports), so a
 * worker process starts in about 0.1 s instead of compiling TypeScript for a second.
 */
export async function bundleWorker(): Promise<string> {
  const dir = join(REPO, "node_modules", ".cache", "jp-store-postgres");
  mkdirSync(dir, { recursive: true });
  const outfile = join(dir, `worker-${process.pid}.mjs`);
  await build({
    entryPoints: [join(import.meta.dirname, "../fixtures/worker.ts")],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    conditions: ["@jp/source"],
    logLevel: "error",
    plugins: [
      {
        name: "workspace-only",
        setup(b) {
          b.onResolve({ filter: /^[^./]/ }, (args) =>
            args.path.startsWith("@jp/") ? undefined : { path: args.path, external: true },
          );
        },
      },
    ],
  });
  return outfile;
}

/** Runs the worker to its end; its stdout's last line, parsed. */
export async function runWorker(worker: string, args: string[]): Promise<unknown> {
  const { stdout } = await run(process.execPath, [worker, ...args], {
    maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(stdout.trim().split("\n").at(-1) as string);
}

/** Starts the worker and resolves with the process and its first line of output. */
export function startWorker(
  worker: string,
  args: string[],
): Promise<{ child: ChildProcess; line: unknown }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [worker, ...args], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const end = out.indexOf("\n");
      if (end >= 0) resolve({ child, line: JSON.parse(out.slice(0, end)) });
    });
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`the worker exited (${code}) before printing`)));
  });
}
