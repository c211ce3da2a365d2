import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { JsonObject } from "@jp/conversation";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Answers, Executor, ExecutorResult } from "../../src/backends/executor.js";
import type { CommandConfig, ResolvedToolConfig } from "../../src/config/schema.js";
import {
  createLocalCommandExecutor,
  createLocalCommandExecutorSource,
  type LocalCommandExecutorOptions,
} from "../../src/executors/local-command.js";

// Real child processes: small node scripts in a temp dir, run with this very node binary.
const SCRIPTS = {
  // argv: <exit code> [stdout] [stderr]; does not read its stdin.
  "emit.mjs": `
    const [code, out = "", err = ""] = process.argv.slice(2);
    process.stdout.write(out);
    process.stderr.write(err);
    process.exitCode = Number(code);`,
  // Prints what it received: its whole argv, its parsed stdin, its cwd and one env variable.
  "echo.mjs": `
    let text = "";
    process.stdin.setEncoding("utf8");
    for await (const chunk of process.stdin) text += chunk;
    process.stdout.write(JSON.stringify({
      argv: process.argv, execArgv: process.execArgv, stdin: JSON.parse(text),
      cwd: process.cwd(), env: process.env.JP_TEST_VAR ?? null,
    }));`,
  "marker.mjs": `
    import { writeFileSync } from "node:fs";
    writeFileSync("spawned", "");`,
  // argv: <pid file> [ignore-term | grandchild]; writes its pid(s), then sleeps forever.
  "sleep.mjs": `
    import { spawn } from "node:child_process";
    import { writeFileSync } from "node:fs";
    const [pidFile, mode] = process.argv.slice(2);
    if (mode === "ignore-term") process.on("SIGTERM", () => {});
    if (mode === "grandchild") {
      // The grandchild reports both pids once its SIGTERM handler is in place.
      const forever = "process.on('SIGTERM', () => {});" +
        "require('node:fs').writeFileSync(process.argv[1], JSON.stringify([+process.argv[2], process.pid]));" +
        "setInterval(() => {}, 1000);";
      spawn(process.execPath, ["-e", forever, pidFile, String(process.pid)], { stdio: "inherit" });
    } else {
      writeFileSync(pidFile, JSON.stringify([process.pid]));
    }
    setInterval(() => {}, 1000);`,
  // argv: <stdout|stderr> <bytes> [exit]; floods one stream, then sleeps forever (or exits).
  "flood.mjs": `
    const [stream, bytes, then] = process.argv.slice(2);
    (stream === "stderr" ? process.stderr : process.stdout).write("x".repeat(Number(bytes)));
    if (then !== "exit") setInterval(() => {}, 1000);`,
} as const;

type Script = keyof typeof SCRIPTS;

let dir: string;

beforeAll(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "jp-local-command-")));
  for (const [name, text] of Object.entries(SCRIPTS)) writeFileSync(join(dir, name), text);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

function nodeTool(
  script: Script,
  args: readonly string[] = [],
  extra: Partial<LocalCommandExecutorOptions> = {},
): Executor {
  return createLocalCommandExecutor({
    toolName: "my_tool",
    command: { program: process.execPath, args: [join(dir, script), ...args] },
    root: dir,
    ...extra,
  });
}

function run(
  executor: Executor,
  options: { arguments?: JsonObject; answers?: Answers; signal?: AbortSignal } = {},
): Promise<ExecutorResult> {
  return executor.execute({
    call: { id: "call_1", name: "my_tool", arguments: options.arguments ?? {} },
    answers: options.answers ?? {},
    signal: options.signal ?? new AbortController().signal,
  });
}

/** What echo.mjs received, from a completed result. */
function received(result: ExecutorResult): {
  argv: string[];
  execArgv: string[];
  stdin: JsonObject;
  cwd: string;
  env: string | null;
} {
  expect(result).toMatchObject({ type: "completed", is_error: false });
  return JSON.parse((result as { content: string }).content);
}

async function waitForFile(path: string): Promise<string> {
  for (let i = 0; i < 250; i++) {
    if (existsSync(path)) {
      const text = readFileSync(path, "utf8");
      if (text !== "") return text;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`timed out waiting for ${path}`);
}

/** Whether `pid` still runs; a zombie (dead, not yet reaped by init) does not count. */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (cause) {
    return (cause as NodeJS.ErrnoException).code === "EPERM";
  }
  const stat = `/proc/${pid}/stat`;
  if (!existsSync(stat)) return true;
  // The state follows the parenthesised command name: "pid (comm) S …".
  return !/\)\s+Z\s/.test(readFileSync(stat, "utf8"));
}

const json = (value: unknown): string => JSON.stringify(value);
const question = { id: "apply", text: "Apply?", answer_type: { type: "boolean" } } as const;

describe("createLocalCommandExecutor: stdout protocol", () => {
  it.each<[string, string, string, string, ExecutorResult]>([
    [
      "success",
      "0",
      json({ type: "success", content: "done" }),
      "",
      { type: "completed", content: "done", is_error: false },
    ],
    [
      "a transient error",
      "1",
      json({ type: "error", message: "busy", trace: ["locked"], transient: true }),
      "",
      { type: "completed", content: json({ message: "busy", trace: ["locked"] }), is_error: true },
    ],
    [
      "a permanent error",
      "1",
      json({ type: "error", message: "no", trace: [], transient: false }),
      "",
      {
        type: "completed",
        content: json({ type: "error", message: "no", trace: [], transient: false }),
        is_error: true,
      },
    ],
    [
      "needs_input, with a source the command cannot choose",
      "0",
      json({ type: "needs_input", question, source: { source: "assistant" } }),
      "",
      { type: "needs_input", question, source: { source: "tool", name: "my_tool" } },
    ],
    [
      "plain text, exit 0",
      "0",
      "just text\n",
      "a warning",
      { type: "completed", content: "just text\n", is_error: false },
    ],
    [
      "plain text, exit 1",
      "1",
      "half done",
      "it broke",
      {
        type: "completed",
        content: json({
          message: "Tool 'my_tool' execution failed.",
          stderr: "it broke",
          stdout: "half done",
        }),
        is_error: true,
      },
    ],
  ])("%s", async (_name, code, stdout, stderr, expected) => {
    expect(await run(nodeTool("emit.mjs", [code, stdout, stderr]))).toEqual(expected);
  });
});

describe("createLocalCommandExecutor: input", () => {
  it("writes the full JSON context to stdin and runs in the root", async () => {
    const executor = nodeTool("echo.mjs", [], {
      options: { verbose: true },
      context: { conversation_id: "c1", root: "/elsewhere", action: "edit" },
    });
    const got = received(
      await run(executor, { arguments: { path: "a.txt" }, answers: { ok: true } }),
    );
    expect(got.stdin).toEqual({
      tool: {
        name: "my_tool",
        arguments: { path: "a.txt" },
        answers: { ok: true },
        options: { verbose: true },
      },
      context: { conversation_id: "c1", action: "run", root: dir },
    });
    expect(got.cwd).toBe(dir);
  });

  it("passes a model-controlled argument as one literal argv element, through no shell", async () => {
    const root = join(dir, "injection");
    mkdirSync(root);
    writeFileSync(join(root, "victim"), "");
    const hostile =
      "$(touch pwned) ; rm -rf victim && touch pwned | `touch pwned` 'single' \"double\"\nline 2 > pwned & \\";
    const executor = nodeTool("echo.mjs", ["{{tool.arguments.cmd}}", "x{{tool.arguments.cmd}}"], {
      root,
    });
    const got = received(await run(executor, { arguments: { cmd: hostile } }));
    expect(got.argv.slice(2)).toEqual([hostile, `x${hostile}`]);
    expect(existsSync(join(root, "pwned"))).toBe(false);
    expect(existsSync(join(root, "victim"))).toBe(true);
  });

  it("delivers a secret answer on stdin only, never in argv", async () => {
    const secret = "sk-live-7f3a9c-DO-NOT-LEAK";
    const executor = nodeTool("echo.mjs", [
      "{{tool.name}}",
      "{{tool.arguments}}",
      "{{tool.arguments.path}}",
      "{{context}}",
      "{{context.root}}",
    ]);
    const got = received(
      await run(executor, { arguments: { path: "p" }, answers: { api_key: secret } }),
    );
    expect(got.argv.slice(2)).toEqual([
      "my_tool",
      '{"path":"p"}',
      "p",
      json({ action: "run", root: dir }),
      dir,
    ]);
    expect(json([...got.argv, ...got.execArgv])).not.toContain(secret);
    expect(got.stdin).toMatchObject({ tool: { answers: { api_key: secret } } });
  });

  it.each(["{{tool.answers}}", "--key={{tool.answers.api_key}}", "{{tool}}"])(
    "refuses %s in argv when built",
    (template) => {
      expect(() => nodeTool("echo.mjs", [template])).toThrow(/answers can be secrets/);
    },
  );

  it("replaces the environment when `env` is given", async () => {
    const env = { JP_TEST_VAR: "from-options" };
    expect(received(await run(nodeTool("echo.mjs", [], { env }))).env).toBe("from-options");
    expect(received(await run(nodeTool("echo.mjs"))).env).toBeNull();
  });

  it("copes with a command that exits without reading a large stdin", async () => {
    const executor = nodeTool("emit.mjs", ["0", "ok"]);
    const result = await run(executor, { arguments: { blob: "y".repeat(4 * 1024 * 1024) } });
    expect(result).toEqual({ type: "completed", content: "ok", is_error: false });
  });

  it("refuses an argument holding a NUL byte as an error result", async () => {
    const result = await run(nodeTool("echo.mjs", ["{{tool.arguments.x}}"]), {
      arguments: { x: "a\u0000b" },
    });
    expect(result).toMatchObject({ type: "completed", is_error: true });
    expect((result as { content: string }).content).toMatch(/^Tool 'my_tool' could not be started/);
  });
});

describe.skipIf(process.platform === "win32")("createLocalCommandExecutor: shell", () => {
  it("runs a static shell command, which reads its input from stdin", async () => {
    const executor = createLocalCommandExecutor({
      toolName: "sh_tool",
      command: { program: "cat | tr -d '\\n'", shell: true },
      root: dir,
    });
    const result = await run(executor, { arguments: { a: 1 } });
    expect(result).toMatchObject({ type: "completed", is_error: false });
    expect(JSON.parse((result as { content: string }).content)).toMatchObject({
      tool: { name: "sh_tool", arguments: { a: 1 } },
    });
  });

  it("refuses templates with shell: true", () => {
    const command = { program: "echo", args: ["{{tool.arguments.x}}"], shell: true };
    expect(() => createLocalCommandExecutor({ toolName: "t", command, root: dir })).toThrow(
      /not allowed with `shell: true`/,
    );
  });
});

describe("createLocalCommandExecutor: failures to start", () => {
  it("names a missing program", async () => {
    const program = join(dir, "no-such-program");
    const result = await run(
      createLocalCommandExecutor({ toolName: "t", command: program, root: dir }),
    );
    expect(result).toEqual({
      type: "completed",
      content: `Tool 't' could not be started: program ${json(program)} was not found (or the directory ${json(dir)} does not exist).`,
      is_error: true,
    });
  });

  it("does not split a string command on spaces", async () => {
    const command = `${process.execPath} ${join(dir, "emit.mjs")} 0 hi`;
    const result = await run(createLocalCommandExecutor({ toolName: "t", command, root: dir }));
    expect(result).toMatchObject({ type: "completed", is_error: true });
    expect((result as { content: string }).content).toContain("was not found");
  });
});

describe("createLocalCommandExecutor: cancellation and limits", { timeout: 10_000 }, () => {
  it("never spawns with an already-aborted signal", async () => {
    const root = join(dir, "aborted");
    mkdirSync(root);
    const result = await run(nodeTool("marker.mjs", [], { root }), { signal: AbortSignal.abort() });
    expect(result).toEqual({
      type: "completed",
      content: "Tool execution cancelled.",
      is_error: true,
    });
    expect(existsSync(join(root, "spawned"))).toBe(false);
  });

  it.each<[string, unknown, string]>([
    [
      "a deadline",
      new DOMException("The operation timed out.", "TimeoutError"),
      "Tool execution timed out: the run's time limit passed before the tool finished. The user did not decline.",
    ],
    [
      "a shutdown",
      new Error("SIGTERM: shutting down"),
      "Tool execution interrupted: the run was stopped before the tool finished. The user did not decline.",
    ],
  ])("stopped by %s, never tells the model it was cancelled", async (_name, reason, content) => {
    const root = join(dir, `stopped-${content.length}`);
    mkdirSync(root);
    const result = await run(nodeTool("marker.mjs", [], { root }), {
      signal: AbortSignal.abort(reason),
    });
    expect(result).toEqual({ type: "completed", content, is_error: true });
  });

  it.each<[string, string, number]>([
    ["a process that exits on SIGTERM", "plain", 1],
    ["a process that ignores SIGTERM", "ignore-term", 1],
    ["a process whose grandchild holds the pipes", "grandchild", 2],
  ])("kills %s within the grace period", async (_name, mode, processes) => {
    if (mode === "grandchild" && process.platform === "win32") return;
    const pidFile = join(dir, `pids-${mode}`);
    const controller = new AbortController();
    const pending = run(nodeTool("sleep.mjs", [pidFile, mode], { killGraceMs: 300 }), {
      signal: controller.signal,
    });
    const pids = JSON.parse(await waitForFile(pidFile)) as number[];
    expect(pids).toHaveLength(processes);
    const started = Date.now();
    controller.abort();
    expect(await pending).toEqual({
      type: "completed",
      content: "Tool execution cancelled.",
      is_error: true,
    });
    expect(Date.now() - started).toBeLessThan(2_000);
    // A killed grandchild closes its pipes a moment before it is a zombie.
    for (const pid of pids) await vi.waitFor(() => expect(isAlive(pid)).toBe(false));
  });

  it.each(["stdout", "stderr"])("stops a process whose %s exceeds the cap", async (stream) => {
    const executor = nodeTool("flood.mjs", [stream, "50000"], {
      maxOutputBytes: 1000,
      killGraceMs: 300,
    });
    expect(await run(executor)).toEqual({
      type: "completed",
      content: `Tool 'my_tool' output exceeded 1000 bytes on ${stream}; the process was stopped.`,
      is_error: true,
    });
  });

  it("keeps output of exactly the cap", async () => {
    const executor = nodeTool("flood.mjs", ["stdout", "1000", "exit"], { maxOutputBytes: 1000 });
    expect(await run(executor)).toEqual({
      type: "completed",
      content: "x".repeat(1000),
      is_error: false,
    });
  });
});

describe("createLocalCommandExecutorSource", () => {
  const source = createLocalCommandExecutorSource({ root: dir });
  const call = { id: "call_1", name: "my_tool", arguments: {} };

  function config(command: CommandConfig | undefined): ResolvedToolConfig {
    return {
      name: "my_tool",
      source: "local",
      enable: { state: true, allow_toggle: "any" },
      command,
      description: undefined,
      parameters: {},
      run: "ask",
      result: "unattended",
      cancellation_response: "rejected",
      style: { hidden: false },
      questions: {},
      options: { level: 2 },
      detached: { run: "deny", deliver: "deny", tool: "deny" },
    };
  }

  it("has no executor for a tool without a command", () => {
    expect(source.executorFor(call, config(undefined))).toBeUndefined();
  });

  it("runs a configured command with the tool's options", async () => {
    const executor = source.executorFor(
      call,
      config({ program: process.execPath, args: [join(dir, "echo.mjs")] }),
    );
    expect(executor).toBeDefined();
    const got = received(await run(executor as Executor));
    expect(got.stdin).toMatchObject({ tool: { name: "my_tool", options: { level: 2 } } });
  });

  it("reports an unusable command as the tool's error", async () => {
    const executor = source.executorFor(call, config({ program: "p", args: ["{{tool.answers}}"] }));
    const result = await run(executor as Executor);
    expect(result).toMatchObject({ type: "completed", is_error: true });
    expect((result as { content: string }).content).toMatch(
      /^Tool 'my_tool' has an invalid command: \{\{tool\.answers\}\} is not allowed/,
    );
  });
});
