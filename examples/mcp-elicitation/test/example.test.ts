// End to end: the example as a user runs it. With --non-interactive as a child process (the
// server must hear an honest decline by the host), and answered with keys in a real terminal
// under tmux (the server must hear the person's answers, a decline and a cancel each as such).
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import {
  FileConversationStore,
  type InquiryResponse,
  type StreamEvent,
  type ToolCallResponse,
} from "@jp/conversation";
import { afterEach, describe, expect, it } from "vitest";
// The terminal-agent example's tmux driver: one private tmux server per screen.
import { HAS_TMUX, NEEDS_TMUX, REPO_ROOT, tmuxScreens } from "../../terminal-agent/test/tmux.js";

const MAIN = "examples/mcp-elicitation/src/main.ts";
const COMMAND = [process.execPath, "--conditions=@jp/source", "--import", "tsx", MAIN];
const run = promisify(execFile);
const STARTUP_MS = 45_000;

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function outDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "jp-mcp-example-"));
  dirs.push(dir);
  return join(dir, "out");
}

/** The one conversation written under `out`, as its events. */
async function written(out: string): Promise<readonly StreamEvent[]> {
  const [name, ...others] = readdirSync(out);
  expect(others).toEqual([]);
  const loaded = await new FileConversationStore(out).load(name as string);
  return loaded._unsafeUnwrap().stream.events;
}

/** `[inquiry id, answer or "cancelled:<reason>"]` for every recorded inquiry response. */
function answers(events: readonly StreamEvent[]): [string, unknown][] {
  return events
    .filter((e): e is InquiryResponse => e.type === "inquiry_response")
    .map((e) => [
      e.id,
      e.outcome === "answered"
        ? e.answer
        : e.outcome === "cancelled"
          ? `cancelled:${e.reason}`
          : e.outcome,
    ]);
}

function resultOf(events: readonly StreamEvent[], id: string): string | undefined {
  const found = events.find(
    (e): e is ToolCallResponse => e.type === "tool_call_response" && e.id === id,
  );
  return found?.content;
}

describe("npm run example:mcp -- --non-interactive", () => {
  it("tells the server an honest decline by the host, records why, and writes the conversation", async () => {
    const out = outDir();
    const { stdout, stderr } = await run(
      COMMAND[0] as string,
      [...COMMAND.slice(1), "--non-interactive", "--out", out],
      { cwd: REPO_ROOT },
    );
    expect(stderr).toContain('Connected to MCP server "bistro": book_table on 2025-11-25');
    expect(stderr).toContain("pay_deposit on 2026-07-28");
    // What the server itself heard: a decline that says the host made it, never the person.
    expect(stderr).toContain(
      "[bistro server] book_table was told: decline (decided by the host, no_prompt_backend)",
    );
    expect(stderr).not.toContain("decided by the person");
    expect(stdout).toContain("--- Transcript (");
    expect(stdout).toContain("Cancelled (no_prompt_backend)");
    expect(stdout).toContain("Assistant (scripted): No table was booked.");

    const events = await written(out);
    expect(answers(events)).toEqual([["call_book.respond.1", "cancelled:no_prompt_backend"]]);
    expect(resultOf(events, "call_book")).toContain("non-interactive");
    expect(events.some((e) => e.type === "tool_call_request" && e.name === "pay_deposit")).toBe(
      false,
    );
  });

  it("refuses an unknown option with the usage, before starting any server", async () => {
    const failed = await run(COMMAND[0] as string, [...COMMAND.slice(1), "--bogus"], {
      cwd: REPO_ROOT,
    }).catch((error: { code: number; stderr: string }) => error);
    expect(failed).toMatchObject({ code: 2 });
    expect((failed as { stderr: string }).stderr).toContain("usage: npm run example:mcp");
    expect((failed as { stderr: string }).stderr).not.toContain("Connected");
  });
});

describe.skipIf(!HAS_TMUX).sequential(`npm run example:mcp in tmux${NEEDS_TMUX}`, () => {
  const tmux = tmuxScreens();

  async function start() {
    const out = outDir();
    const screen = await tmux.start({ command: [...COMMAND, "--out", out] });
    return { screen, out };
  }

  it("the person fills the pushed form and declines the input-required round; the server hears each", async () => {
    const { screen, out } = await start();
    // Two server processes start first: allow for a loaded machine.
    await screen.waitFor('MCP server "bistro" asks this while running its tool "book_table"', {
      timeoutMs: STARTUP_MS,
    });
    await screen.waitFor("❯ 1 accept");
    await screen.press("1");
    await screen.waitFor("? Name for the booking");
    await screen.press("a");
    await screen.waitFor("? Answer:");
    await screen.type("Ada Lovelace");
    await screen.press("Enter");
    await screen.waitFor("? Where would you like to sit?");
    await screen.press("2");
    await screen.waitFor("? Do you need a high chair?");
    await screen.press("n");
    await screen.waitFor("[bistro server] book_table was told: accept (decided by the person)");
    await screen.waitFor('MCP server "bistro" asks this while running its tool "pay_deposit"');
    await screen.waitFor("Pay it with the card on file?");
    await screen.press("2");
    const text = await screen.waitFor("Conversation written to ");
    expect(await screen.waitForExit()).toBe(0);
    expect(text).toContain(
      "[bistro server] pay_deposit was retried with: decline (decided by the person) (booking B-1042, from requestState)",
    );
    expect(text).toContain("under Ada Lovelace. Reference B-1042.");
    expect(text).toContain(
      "Assistant (scripted): The table is booked (B-1042); no deposit was paid.",
    );

    const events = await written(out);
    expect(answers(events)).toEqual([
      ["call_book.respond.1", "accept"],
      ["call_book.name.1", "Ada Lovelace"],
      ["call_book.seating.1", "On the terrace"],
      ["call_book.high_chair.1", false],
      ["call_deposit.respond.1", "decline"],
    ]);
    expect(resultOf(events, "call_book")).toContain("on the terrace, under Ada Lovelace");
    expect(resultOf(events, "call_deposit")).toContain(
      "No deposit paid for B-1042: the client answered decline (decided by the person)",
    );
  });

  it("Ctrl+C at the server's question is the person's cancel, not a decline", async () => {
    const { screen, out } = await start();
    await screen.waitFor("❯ 1 accept", { timeoutMs: STARTUP_MS });
    await screen.press("C-c");
    const text = await screen.waitFor("Conversation written to ");
    expect(await screen.waitForExit()).toBe(0);
    expect(text).toContain(
      "[bistro server] book_table was told: cancel (decided by the person, user)",
    );
    expect(answers(await written(out))).toEqual([["call_book.respond.1", "cancelled:user"]]);
  });
});
