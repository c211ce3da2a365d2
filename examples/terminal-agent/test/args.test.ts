import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { parseDemoArgs, USAGE } from "../src/args.js";
import { REPO_ROOT } from "./tmux.js";

describe("the demo's command line", () => {
  it.each([
    [[], { kind: "run", out: undefined, resume: undefined, suspend: false, nonInteractive: false }],
    [
      ["--non-interactive", "--out", "/tmp/x"],
      { kind: "run", out: "/tmp/x", resume: undefined, suspend: false, nonInteractive: true },
    ],
    [
      ["--resume", "d", "--suspend"],
      { kind: "run", out: undefined, resume: "d", suspend: true, nonInteractive: false },
    ],
    [["--pending", "d"], { kind: "pending", dir: "d" }],
    [
      ["--answer", "d", "call_form.bump.1", '{"type":"back"}'],
      { kind: "answer", dir: "d", promptId: "call_form.bump.1", reply: '{"type":"back"}' },
    ],
    [["--help"], { kind: "help" }],
    [
      ["--postgres", "postgres://h/db", "--suspend"],
      {
        kind: "run",
        out: undefined,
        resume: undefined,
        suspend: true,
        nonInteractive: false,
        postgres: "postgres://h/db",
      },
    ],
    [
      ["--postgres", "postgres://h/db", "--pending", "17-x"],
      { kind: "pending", dir: "17-x", postgres: "postgres://h/db" },
    ],
    [
      ["--postgres", "postgres://h/db", "--answer", "17-x", "id", "{}"],
      { kind: "answer", dir: "17-x", promptId: "id", reply: "{}", postgres: "postgres://h/db" },
    ],
    [
      ["--web", "--out", "/tmp/x"],
      {
        kind: "run",
        out: "/tmp/x",
        resume: undefined,
        suspend: false,
        nonInteractive: false,
        web: true,
      },
    ],
  ])("%j", (argv, command) => {
    expect(parseDemoArgs(argv)).toEqual({ ok: true, command });
  });

  it.each([
    [["--out"], "--out needs a value"],
    [["--out", "--suspend"], "--out needs a value"],
    [["--resume"], "--resume needs a value"],
    [["--postgres"], "--postgres needs a value"],
    [
      ["--postgres", "postgres://h/db", "--out", "o"],
      "--out is a directory; with --postgres the conversation is kept in the database",
    ],
    [["--bogus"], "unknown option --bogus"],
    [["-x"], "unknown option -x"],
    [["stray"], 'unexpected argument "stray"'],
    [
      ["--answer", "d", "id"],
      "--answer needs the conversation dir, the prompt id and the reply JSON",
    ],
    [["--answer", "d", "id", "{}", "more"], 'unexpected argument "more"'],
    [
      ["--resume", "d", "--out", "o"],
      "--out is for a new conversation; --resume goes on in the one given",
    ],
    [
      ["--web", "--suspend"],
      "--web asks a person on a page; --suspend and --non-interactive ask nobody",
    ],
    [
      ["--web", "--non-interactive"],
      "--web asks a person on a page; --suspend and --non-interactive ask nobody",
    ],
  ])("refuses %j", (argv, message) => {
    expect(parseDemoArgs(argv)).toEqual({ ok: false, message });
  });

  it.each([[["--out"]], [["--frobnicate"]]])(
    "the demo exits 2 with the problem and the usage for %j, writing nothing",
    (argv) => {
      const run = spawnSync(
        process.execPath,
        [
          "--conditions=@jp/source",
          "--import",
          "tsx",
          "examples/terminal-agent/src/main.ts",
          ...argv,
        ],
        { cwd: REPO_ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] },
      );
      expect(run.status).toBe(2);
      expect(run.stderr).toContain(USAGE);
      expect(run.stdout).toBe("");
    },
  );
});
