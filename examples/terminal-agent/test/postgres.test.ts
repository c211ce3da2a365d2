// End-to-end against PostgreSQL: the demo's turn kept in a throwaway server (`--postgres <url>`),
// suspended at each prompt, answered through the inbox by other processes, resumed by others,
// and finished in a real terminal, where the secret is typed; the secret is then searched for in
// everything the server keeps.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { FileConversationStore } from "@jp/conversation";
import { exportConversation, migrate, PostgresConversationStore } from "@jp/store-postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createTemplate,
  postgresMissing,
  startServer,
  type TestServer,
} from "../../../packages/store-postgres/test/support/postgres.js";
import { HAS_TMUX, NEEDS_TMUX, REPO_ROOT, tmuxScreens } from "./tmux.js";
import { inquiry, readWritten, toolResult } from "./written.js";

const run = promisify(execFile);
const DEMO = [
  "--conditions=@jp/source",
  "--import",
  "tsx",
  "examples/terminal-agent/src/main.ts",
] as const;

const FORM: readonly (readonly [string, string])[] = [
  ["call_form.bump.1", '{"type":"answer","value":"major"}'],
  ["call_form.changelog.1", '{"type":"answer","value":true}'],
  ["call_form.entry.1", '{"type":"answer","value":"Faster widget rendering"}'],
  ["call_form.sections.1", '{"type":"answer","value":["Added","Fixed"]}'],
  ["call_publish#permission", '{"type":"run"}'],
  ["call_publish.tag.1", '{"type":"answer","value":true,"remember":true}'],
];

const SKIPPED = postgresMissing === undefined ? "" : ` [skipped: ${postgresMissing}]`;

describe.skipIf(postgresMissing !== undefined)(
  `the demo with --postgres, against a throwaway server${SKIPPED}`,
  () => {
    let server: TestServer;
    let template: string;
    beforeAll(async () => {
      template = await createTemplate();
      server = await startServer(template); // every statement logged, for the secret scan
    }, 60_000);
    afterAll(async () => {
      await server?.stop();
      if (template !== undefined) rmSync(template, { recursive: true, force: true });
    });

    /** Runs the demo against the server to its end. */
    async function demo(...args: string[]) {
      try {
        const { stdout, stderr } = await run(
          process.execPath,
          [...DEMO, "--postgres", server.url, ...args],
          { cwd: REPO_ROOT },
        );
        return { code: 0, stdout, stderr };
      } catch (cause) {
        const failed = cause as { code?: number; stdout?: string; stderr?: string };
        return {
          code: failed.code ?? -1,
          stdout: failed.stdout ?? "",
          stderr: failed.stderr ?? "",
        };
      }
    }

    async function pending(name: string) {
      const listed = await demo("--pending", name);
      expect(listed.code).toBe(0);
      return JSON.parse(listed.stdout) as { prompt_id: string; answered: boolean; state: string }[];
    }

    /** Suspends a new turn and answers and resumes the form from other processes. */
    async function suspendedAtTheSecret(): Promise<string> {
      const first = await demo("--suspend");
      expect(first.code).toBe(0);
      const name = /--resume (\S+)/.exec(first.stderr)?.[1] as string;
      expect(first.stderr).toContain(`npm run demo -- --postgres ${server.url} --answer ${name}`);
      for (const [index, [id, reply]] of FORM.entries()) {
        expect(await pending(name)).toMatchObject([
          { prompt_id: id, answered: false, state: "suspended" },
        ]);
        expect((await demo("--answer", name, id, reply)).code).toBe(0);
        if (index === 0) {
          // The inbox takes one answer per prompt.
          const twice = await demo("--answer", name, id, reply);
          expect(twice.code).toBe(1);
          expect(twice.stderr).toContain("already_answered");
        }
        expect((await demo("--resume", name, "--suspend")).code).toBe(0);
      }
      return name;
    }

    it("suspends, is answered through the inbox and resumed by other processes; the secret is refused there", async () => {
      const name = await suspendedAtTheSecret();
      expect((await pending(name)).map((p) => p.prompt_id)).toEqual(["call_publish.otp.1"]);
      const refused = await demo(
        "--answer",
        name,
        "call_publish.otp.1",
        '{"type":"answer","value":"482913"}',
      );
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain("secret_not_stored");
      // With nobody at the terminal, resuming leaves the secret pending rather than refusing it.
      expect((await demo("--resume", name, "--non-interactive")).code).toBe(0);
      expect((await pending(name)).map((p) => p.prompt_id)).toEqual(["call_publish.otp.1"]);
      expect(await server.holds("482913")).toEqual([]);

      // What the store holds, exported to JP's layout: every answer recorded once.
      const out = mkdtempSync(join(tmpdir(), "jp-e2e-pg-"));
      const pool = server.pool({ max: 2 });
      (await migrate(pool))._unsafeUnwrap();
      (
        await exportConversation({
          files: new FileConversationStore(out),
          postgres: new PostgresConversationStore(pool),
          name,
        })
      )._unsafeUnwrap();
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

    it("a conversation name that is not in the database, and a server that is not there, are errors", async () => {
      const missing = await demo("--resume", "17000000000-nowhere");
      expect(missing.code).toBe(1);
      expect(missing.stderr).toContain("Could not load 17000000000-nowhere");
      const down = await run(
        process.execPath,
        [...DEMO, "--postgres", "postgres://postgres@127.0.0.1:1/postgres", "--pending", "1-x"],
        { cwd: REPO_ROOT },
      ).catch((cause: { code?: number; stderr?: string }) => cause);
      expect((down as { code?: number }).code).toBe(1);
      expect((down as { stderr?: string }).stderr).toContain("Could not open the store");
    }, 60_000);

    describe.skipIf(!HAS_TMUX)(`finished in a real terminal${NEEDS_TMUX}`, () => {
      const tmux = tmuxScreens();

      it("the resumed turn asks for the secret at the terminal; the turn ends and the secret is nowhere in the server", async () => {
        const name = await suspendedAtTheSecret();
        const screen = await tmux.start({
          command: [process.execPath, ...DEMO, "--postgres", server.url, "--resume", name],
        });
        await screen.waitFor(/\? One-time password to publish widgets@2\.0\.0/);
        await screen.type("482913");
        await screen.press("Enter");
        await screen.waitFor(`Conversation written to PostgreSQL as ${name}`);
        expect(await screen.waitForExit()).toBe(0);
        expect(await screen.capture({ history: true })).toContain(
          "Assistant (scripted): Done. Published widgets@2.0.0. Pushed the tag v2.0.0.",
        );
        expect(await pending(name)).toEqual([]);
        // pg_dump, the server log with every statement and its parameters, every data file.
        expect(await server.holds("482913")).toEqual([]);
      }, 240_000);
    });
  },
);
