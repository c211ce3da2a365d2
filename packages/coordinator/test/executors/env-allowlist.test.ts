import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  createLocalCommandExecutor,
  createLocalCommandExecutorSource,
  DEFAULT_ENV_ALLOWLIST,
  type LocalCommandExecutorOptions,
  parseToolsConfig,
  resolveToolConfig,
} from "../../src/index.js";

// A real child process that prints the names and values of its environment it was asked about.
const SCRIPT = `
const names = JSON.parse(process.argv[2]);
process.stdout.write(JSON.stringify(Object.fromEntries(names.map((n) => [n, process.env[n] ?? null]))));`;

// Variables this test puts into its own process's environment, as a host's would hold them.
const HOST_ENV = {
  JP_TEST_API_KEY: "sk-host-secret-Qa17",
  JP_TEST_NAMED_BY_HOST: "host-named",
  JP_TEST_NAMED_BY_TOOL: "tool-named",
  LC_JP_TEST: "a-locale-setting",
} as const;
const ASKED = [...Object.keys(HOST_ENV), "PATH", "HOME"];

let dir: string;
beforeAll(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "jp-env-allowlist-")));
  writeFileSync(join(dir, "env.mjs"), SCRIPT);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

beforeEach(() => Object.assign(process.env, HOST_ENV));
afterEach(() => {
  for (const name of Object.keys(HOST_ENV)) delete process.env[name];
});

const command = (env?: string[]) => ({
  program: process.execPath,
  args: [join(dir, "env.mjs"), JSON.stringify(ASKED)],
  ...(env === undefined ? {} : { env }),
});

/** What the child saw of the variables it was asked about. */
async function childEnv(
  options: Partial<LocalCommandExecutorOptions> = {},
): Promise<Record<string, string | null>> {
  const executor = createLocalCommandExecutor({
    toolName: "env_tool",
    command: command(),
    root: dir,
    ...options,
  });
  const result = await executor.execute({
    call: { id: "call_1", name: "env_tool", arguments: {} },
    answers: {},
    signal: new AbortController().signal,
  });
  expect(result).toMatchObject({ type: "completed", is_error: false });
  return JSON.parse((result as { content: string }).content);
}

describe("a local command gets only an allowlist of the host's environment by default", () => {
  it("the default: PATH, HOME and LC_* pass, an API key and other names do not", async () => {
    expect(await childEnv()).toEqual({
      JP_TEST_API_KEY: null,
      JP_TEST_NAMED_BY_HOST: null,
      JP_TEST_NAMED_BY_TOOL: null,
      LC_JP_TEST: "a-locale-setting",
      PATH: process.env.PATH ?? null,
      HOME: process.env.HOME ?? null,
    });
  });

  it("the allowlist names what programs need to start, and no credentials", () => {
    expect(DEFAULT_ENV_ALLOWLIST).toEqual(expect.arrayContaining(["PATH", "HOME", "LANG", "TERM"]));
    expect(DEFAULT_ENV_ALLOWLIST.filter((n) => /KEY|TOKEN|SECRET|PASS/i.test(n))).toEqual([]);
  });

  it("inheritEnv: a list adds those names", async () => {
    expect(await childEnv({ inheritEnv: ["JP_TEST_NAMED_BY_HOST"] })).toMatchObject({
      JP_TEST_API_KEY: null,
      JP_TEST_NAMED_BY_HOST: "host-named",
      JP_TEST_NAMED_BY_TOOL: null,
    });
  });

  it("the tool's own command.env adds its names, next to the host's list", async () => {
    expect(
      await childEnv({
        command: command(["JP_TEST_NAMED_BY_TOOL"]),
        inheritEnv: ["JP_TEST_NAMED_BY_HOST"],
      }),
    ).toMatchObject({
      JP_TEST_API_KEY: null,
      JP_TEST_NAMED_BY_HOST: "host-named",
      JP_TEST_NAMED_BY_TOOL: "tool-named",
    });
  });

  it("inheritEnv: false is the default allowlist", async () => {
    expect(await childEnv({ inheritEnv: false })).toMatchObject({
      JP_TEST_API_KEY: null,
      LC_JP_TEST: "a-locale-setting",
    });
  });

  it("inheritEnv: true passes the whole environment (the explicit opt-in); the default does not", async () => {
    expect(await childEnv({ inheritEnv: true })).toMatchObject({
      JP_TEST_API_KEY: "sk-host-secret-Qa17",
      JP_TEST_NAMED_BY_HOST: "host-named",
      JP_TEST_NAMED_BY_TOOL: "tool-named",
    });
    expect(await childEnv()).toMatchObject({ JP_TEST_API_KEY: null });
  });
});

describe("command.env in conversation.tools reaches the command through the executor source", () => {
  it("a tool's configured names pass; nothing else of the host's does", async () => {
    const tools = parseToolsConfig({ env_tool: { command: command(["JP_TEST_NAMED_BY_TOOL"]) } });
    expect(tools.isOk()).toBe(true);
    const config = resolveToolConfig(tools._unsafeUnwrap(), "env_tool");
    const call = { id: "call_1", name: "env_tool", arguments: {} };
    const executor = createLocalCommandExecutorSource({ root: dir }).executorFor(call, config);
    const result = await executor?.execute({
      call,
      answers: {},
      signal: new AbortController().signal,
    });
    expect(JSON.parse((result as { content: string }).content)).toMatchObject({
      JP_TEST_API_KEY: null,
      JP_TEST_NAMED_BY_HOST: null,
      JP_TEST_NAMED_BY_TOOL: "tool-named",
    });
  });

  it("command.env must be a list of names", () => {
    const parsed = parseToolsConfig({ env_tool: { command: { program: "x", env: "JP_TEST" } } });
    expect(parsed._unsafeUnwrapErr().message).toBe(
      'conversation.tools.env_tool.command.env: expected a list, got "JP_TEST"',
    );
  });
});
