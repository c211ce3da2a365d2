import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import {
  createRpcPromptBackend,
  type RpcError,
  type RpcPromptBackend,
  type RpcPromptBackendOptions,
} from "../src/index.js";

/** The repository root: `--import tsx` resolves from here (tsx is a root devDependency). */
export const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));

/** The scripted UI client of the two-process tests. */
export const FIXTURE_CLIENT = fileURLToPath(new URL("./fixtures/client.ts", import.meta.url));

/** A client that speaks only Opal's protocol, written without this package. */
export const OPAL_CLIENT = fileURLToPath(new URL("./fixtures/opal-client.mjs", import.meta.url));

/** The example UI client (examples/rpc-client), which imports `@jp/rpc` by its package name. */
export const EXAMPLE_CLIENT = fileURLToPath(
  new URL("../../../examples/rpc-client/src/main.ts", import.meta.url),
);

/** Time for a child to start (tsx compiles on the fly) and say hello; generous for slow CI. */
export const STARTUP_MS = 20_000;

/** A real child process running a client script, and the backend that talks to it. */
export interface ChildSession {
  readonly child: ChildProcessWithoutNullStreams;
  readonly backend: RpcPromptBackend;
  /** Everything the child wrote to stderr, for failure messages. */
  readonly stderr: () => string;
  /** Resolves once the child's stderr contains `text` (the fixture logs `showing <call id>`). */
  readonly stderrIncludes: (text: string) => Promise<void>;
  /** Protocol errors the backend saw. */
  readonly protocolErrors: RpcError[];
  /** Ends the session: closes the backend, ends the child's stdin, kills it if still running. */
  readonly stop: () => Promise<void>;
}

/**
 * Spawns `node --conditions=@jp/source --import tsx <script> …args` and connects a backend to
 * its stdout/stdin. Resolves once the client has said hello; rejects (with its stderr) if not.
 */
export async function spawnClient(
  script: string,
  args: readonly string[],
  options: Partial<RpcPromptBackendOptions> = {},
): Promise<ChildSession> {
  const child = spawn(
    process.execPath,
    ["--conditions=@jp/source", "--import", "tsx", script, ...args],
    { cwd: REPO_ROOT, stdio: ["pipe", "pipe", "pipe"] },
  );
  let stderr = "";
  const watchers = new Set<() => void>();
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (chunk: string) => {
    stderr += chunk;
    for (const watch of [...watchers]) watch();
  });
  const stderrIncludes = (text: string) =>
    new Promise<void>((resolve) => {
      const watch = () => {
        if (!stderr.includes(text)) return;
        watchers.delete(watch);
        resolve();
      };
      watchers.add(watch);
      watch();
    });
  const protocolErrors: RpcError[] = [];
  const backend = createRpcPromptBackend({
    input: child.stdout,
    output: child.stdin,
    sessionId: "session-1",
    handshakeTimeoutMs: STARTUP_MS,
    onProtocolError: (error) => protocolErrors.push(error),
    ...options,
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async () => {
    backend.close();
    child.stdin.end();
    const timer = setTimeout(() => child.kill("SIGKILL"), 2000);
    await exited;
    clearTimeout(timer);
  };
  if (!(await backend.waitForClient({ timeoutMs: STARTUP_MS }))) {
    await stop();
    throw new Error(`the client did not connect; its stderr:\n${stderr}`);
  }
  return { child, backend, stderr: () => stderr, stderrIncludes, protocolErrors, stop };
}
