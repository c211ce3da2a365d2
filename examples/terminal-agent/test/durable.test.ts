// End-to-end: the demo suspended at its first question, answered by other processes (one of
// them killed with SIGKILL at random points), resumed by others, and finished in a real terminal.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { HAS_TMUX, NEEDS_TMUX, REPO_ROOT, tmuxScreens } from "./tmux.js";
import { inquiry, readWritten, searchableText, toolResult } from "./written.js";

const run = promisify(execFile);
const DEMO = [
  "--conditions=@jp/source",
  "--import",
  "tsx",
  "examples/terminal-agent/src/main.ts",
] as const;

/** Runs the demo's command line to its end; returns what it printed on stderr. */
async function demo(...args: string[]): Promise<{ code: number; stderr: string }> {
  try {
    const { stderr } = await run(process.execPath, [...DEMO, ...args], { cwd: REPO_ROOT });
    return { code: 0, stderr };
  } catch (cause) {
    const failed = cause as { code?: number; stderr?: string };
    return { code: failed.code ?? -1, stderr: failed.stderr ?? "" };
  }
}

function conversationDir(out: string): string {
  const [name] = readdirSync(out);
  if (name === undefined) throw new Error(`nothing written under ${out}`);
  return join(out, name);
}

interface Pending {
  readonly prompt_id: string;
  readonly answered: boolean;
}

async function pending(dir: string): Promise<Pending[]> {
  const { stdout } = await run(process.execPath, [...DEMO, "--pending", dir], { cwd: REPO_ROOT });
  return JSON.parse(stdout) as Pending[];
}

/** Starts `--answer` and kills it with SIGKILL after `ms`, or lets it finish first. */
function answerKilledAfter(ms: number, dir: string, id: string, reply: string): Promise<void> {
  const child: ChildProcess = spawn(process.execPath, [...DEMO, "--answer", dir, id, reply], {
    cwd: REPO_ROOT,
    stdio: "ignore",
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), ms);
  return new Promise((resolve) =>
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    }),
  );
}

const FORM: readonly (readonly [string, string])[] = [
  ["call_form.bump.1", '{"type":"answer","value":"major"}'],
  ["call_form.changelog.1", '{"type":"answer","value":true}'],
  ["call_form.entry.1", '{"type":"answer","value":"Faster widget rendering"}'],
  ["call_form.sections.1", '{"type":"answer","value":["Added","Fixed"]}'],
  ["call_publish#permission", '{"type":"run"}'],
  // Answered for the rest of the turn, as Y at the terminal does.
  ["call_publish.tag.1", '{"type":"answer","value":true,"remember":true}'],
];

describe("the demo's turn, suspended and answered from other processes", () => {
  it("suspends at each prompt; other processes answer and resume; kill -9 of an answering process loses and doubles nothing", async () => {
    const out = join(mkdtempSync(join(tmpdir(), "jp-e2e-durable-")), "out");
    const first = await demo("--suspend", "--out", out);
    expect(first.code).toBe(0);
    expect(first.stderr).toContain(
      "call_form.bump.1: Which version bump is this release? (select, 1/4)",
    );
    const dir = conversationDir(out);

    for (const [index, [id, reply]] of FORM.entries()) {
      expect((await pending(dir)).map((p) => p.prompt_id)).toEqual([id]);
      if (index === 0) {
        // An answering process killed at random points: the conversation is always readable,
        // and the prompt is answered at most once.
        for (const ms of [50, 400, 900]) {
          await answerKilledAfter(ms, dir, id, reply);
          const [after] = await pending(dir);
          expect(after?.prompt_id).toBe(id);
          if (after?.answered === true) break;
        }
      }
      const [now] = await pending(dir);
      if (now?.answered !== true) expect((await demo("--answer", dir, id, reply)).code).toBe(0);
      if (index === 0) {
        const twice = await demo("--answer", dir, id, reply);
        expect(twice.code).toBe(1);
        expect(twice.stderr).toContain("already_answered");
      }
      expect((await demo("--resume", dir, "--suspend")).code).toBe(0);
    }

    // The one-time password is a secret: never stored, so only a live prompt can take it.
    const [otp] = await pending(dir);
    expect(otp?.prompt_id).toBe("call_publish.otp.1");
    const refused = await demo(
      "--answer",
      dir,
      "call_publish.otp.1",
      '{"type":"answer","value":"482913"}',
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("secret_not_stored");
    // With nobody at the terminal, resuming leaves it pending rather than refusing it.
    expect((await demo("--resume", dir, "--non-interactive")).code).toBe(0);
    expect((await pending(dir)).map((p) => p.prompt_id)).toEqual(["call_publish.otp.1"]);

    const written = readWritten(out);
    for (const [id] of FORM.filter(([id]) => !id.endsWith("#permission"))) {
      expect(inquiry(written, id).response.outcome).toBe("answered");
    }
    expect(JSON.parse(toolResult(written, "call_form").content)).toEqual({
      bump: "major",
      changelog: true,
      entry: "Faster widget rendering",
      sections: ["Added", "Fixed"],
    });
  }, 240_000);

  describe.skipIf(!HAS_TMUX)(`finished in a real terminal${NEEDS_TMUX}`, () => {
    const tmux = tmuxScreens();

    it("the resumed turn asks for the secret at the terminal and ends with every prompt answered once", async () => {
      const out = join(mkdtempSync(join(tmpdir(), "jp-e2e-durable-")), "out");
      expect((await demo("--suspend", "--out", out)).code).toBe(0);
      const dir = conversationDir(out);
      for (const [id, reply] of FORM) {
        expect((await demo("--answer", dir, id, reply)).code).toBe(0);
        expect((await demo("--resume", dir, "--suspend")).code).toBe(0);
      }
      const screen = await tmux.start({ command: [process.execPath, ...DEMO, "--resume", dir] });
      await screen.waitFor(/\? One-time password to publish widgets@2\.0\.0/);
      await screen.type("482913");
      await screen.press("Enter");
      await screen.waitFor("Conversation written to ");
      expect(await screen.waitForExit()).toBe(0);
      const text = await screen.capture({ history: true });
      expect(text).toContain(
        "Assistant (scripted): Done. Published widgets@2.0.0. Pushed the tag v2.0.0.",
      );

      const written = readWritten(out);
      expect(inquiry(written, "call_publish.otp.1").response.outcome).toBe("redacted");
      expect(toolResult(written, "call_publish")).toEqual({
        content: "Published widgets@2.0.0. Pushed the tag v2.0.0.",
        is_error: false,
      });
      // Every request answered once; nothing left pending; the secret nowhere on disk.
      const ids = (type: string) =>
        written.events.filter((e) => e.type === type).map((e) => e.id as string);
      expect(ids("tool_call_response").sort()).toEqual(ids("tool_call_request").sort());
      expect(ids("inquiry_response")).toEqual(ids("inquiry_request"));
      expect(readFileSync(join(dir, "events.json"), "utf8")).not.toContain("pending_prompt");
      expect(searchableText(join(dir, "events.json"))).not.toContain("482913");
    }, 240_000);
  });
});
