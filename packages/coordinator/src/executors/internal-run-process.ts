import type { ChildProcessWithoutNullStreams } from "node:child_process";

// Not part of the public API: runs one child process with bounded output, stdin and cancellation.

/** What to run, and the limits it runs under. */
export interface ProcessSpec {
  readonly program: string;
  readonly args: readonly string[];
  readonly shell: boolean;
  readonly cwd: string;
  /** The child's whole environment; `undefined` inherits this process's. */
  readonly env: Readonly<Record<string, string>> | undefined;
  /** Written to the child's stdin, which is then closed. */
  readonly stdin: string;
  readonly signal: AbortSignal;
  /** The cap on stdout and on stderr, each. */
  readonly maxOutputBytes: number;
  /** How long a child may take to exit after SIGTERM before it gets SIGKILL. */
  readonly killGraceMs: number;
}

/** How a run ended. `exited` includes deaths by signal that this module did not send. */
export type ProcessRun =
  | {
      readonly type: "exited";
      readonly code: number | null;
      readonly signal: NodeJS.Signals | null;
      readonly stdout: string;
      readonly stderr: string;
    }
  | { readonly type: "cancelled" }
  | { readonly type: "overflow"; readonly stream: "stdout" | "stderr" }
  | { readonly type: "spawn_failed"; readonly code: string | undefined; readonly message: string };

type StopReason = Extract<ProcessRun, { type: "cancelled" | "overflow" }>;

// On POSIX the child leads its own process group so that a stop reaches everything it started:
// a `sh -c` wrapper or a helper that keeps the stdout pipe open would otherwise outlive the kill.
const OWN_PROCESS_GROUP = process.platform !== "win32";

/** Runs a process to its end (or until stopped). Never rejects; an aborted signal never spawns. */
export function runProcess(spec: ProcessSpec): Promise<ProcessRun> {
  if (spec.signal.aborted) return Promise.resolve({ type: "cancelled" });
  return new Promise((resolve) => new ProcessWatch(spec, resolve).start());
}

class ProcessWatch {
  readonly #spec: ProcessSpec;
  readonly #resolve: (run: ProcessRun) => void;
  #child: ChildProcessWithoutNullStreams | undefined;
  #stopped: StopReason | undefined;
  #settled = false;
  readonly #timers: NodeJS.Timeout[] = [];
  readonly #output = {
    stdout: { chunks: [] as Buffer[], bytes: 0 },
    stderr: { chunks: [] as Buffer[], bytes: 0 },
  };
  readonly #onAbort = (): void => this.#stop({ type: "cancelled" });

  constructor(spec: ProcessSpec, resolve: (run: ProcessRun) => void) {
    this.#spec = spec;
    this.#resolve = resolve;
  }

  start(): void {
    const { program, args, shell, cwd, env, stdin, signal } = this.#spec;
    let child: ChildProcessWithoutNullStreams;
    try {
      // Loaded on first use: `node:child_process` weighs on the import of the package otherwise.
      child = process.getBuiltinModule("node:child_process").spawn(program, [...args], {
        cwd,
        env,
        shell,
        stdio: "pipe",
        detached: OWN_PROCESS_GROUP,
        windowsHide: true,
      });
    } catch (cause) {
      // Node refuses some argv synchronously, e.g. an argument holding a NUL byte.
      this.#finish({ type: "spawn_failed", code: errorCode(cause), message: describe(cause) });
      return;
    }
    this.#child = child;
    child.on("error", (cause) => {
      // After a successful spawn an `error` only reports a failed kill; `close` still follows.
      if (child.pid === undefined) {
        this.#finish({ type: "spawn_failed", code: errorCode(cause), message: describe(cause) });
      }
    });
    child.stdout.on("data", (chunk: Buffer) => this.#collect("stdout", chunk));
    child.stderr.on("data", (chunk: Buffer) => this.#collect("stderr", chunk));
    // A tool that exits without reading its input makes the write fail with EPIPE; its exit
    // status and output still decide the result.
    child.stdin.on("error", () => {});
    child.stdin.end(stdin);
    child.on("exit", () => {
      // Output still buffered in the pipes arrives before `close`; a grandchild that inherited
      // the pipes and lives on must not keep the pass waiting forever.
      this.#later(() => this.#closePipes());
    });
    child.on("close", (code, exitSignal) =>
      this.#finish(this.#stopped ?? this.#exited(code, exitSignal)),
    );
    signal.addEventListener("abort", this.#onAbort, { once: true });
  }

  #collect(stream: "stdout" | "stderr", chunk: Buffer): void {
    if (this.#stopped !== undefined) return;
    const output = this.#output[stream];
    output.bytes += chunk.length;
    if (output.bytes > this.#spec.maxOutputBytes) {
      this.#stop({ type: "overflow", stream });
      return;
    }
    output.chunks.push(chunk);
  }

  /** SIGTERM now, SIGKILL after the grace period, and give up waiting one grace period later. */
  #stop(reason: StopReason): void {
    if (this.#stopped !== undefined || this.#settled) return;
    this.#stopped = reason;
    this.#output.stdout.chunks = [];
    this.#output.stderr.chunks = [];
    this.#kill("SIGTERM");
    this.#later(() => {
      this.#kill("SIGKILL");
      this.#later(() => {
        this.#closePipes();
        this.#finish(reason);
      });
    });
  }

  #kill(signal: NodeJS.Signals): void {
    const child = this.#child;
    if (child?.pid === undefined) return;
    try {
      if (OWN_PROCESS_GROUP) process.kill(-child.pid, signal);
      else child.kill(signal);
    } catch {
      // ESRCH: the whole group has exited already.
    }
  }

  #closePipes(): void {
    this.#child?.stdout.destroy();
    this.#child?.stderr.destroy();
  }

  #exited(code: number | null, signal: NodeJS.Signals | null): ProcessRun {
    const text = (stream: "stdout" | "stderr"): string =>
      Buffer.concat(this.#output[stream].chunks).toString("utf8");
    return { type: "exited", code, signal, stdout: text("stdout"), stderr: text("stderr") };
  }

  #later(action: () => void): void {
    if (this.#settled) return;
    this.#timers.push(setTimeout(action, this.#spec.killGraceMs));
  }

  #finish(run: ProcessRun): void {
    if (this.#settled) return;
    this.#settled = true;
    for (const timer of this.#timers) clearTimeout(timer);
    this.#spec.signal.removeEventListener("abort", this.#onAbort);
    this.#resolve(run);
  }
}

function errorCode(cause: unknown): string | undefined {
  if (typeof cause !== "object" || cause === null || !("code" in cause)) return undefined;
  return typeof cause.code === "string" ? cause.code : undefined;
}

function describe(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
}
