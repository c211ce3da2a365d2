// The example prints a conversation that a model and its tools wrote: what it prints to the
// terminal must not act on it.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { ConversationStream, createEvent, saveConversation } from "@jp/conversation";
import { afterAll, expect, it } from "vitest";

const MAIN = fileURLToPath(new URL("../src/main.ts", import.meta.url));
const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "jp-read-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const HYPERLINK = "\u001b]8;;https://evil.example/\u0007CLICK\u001b]8;;\u0007";
const CLEAR = "\u001b[2J";
const FLIP = "\u202e";

it("shows a model's tool name, question, answer and result with no escape sequence or bidi override", async () => {
  const stream = ConversationStream.empty();
  stream.startTurn(`Go${CLEAR}`);
  stream.append(
    createEvent("tool_call_request", { id: "c1", name: `x${HYPERLINK}`, arguments: {} }),
    createEvent("inquiry_request", {
      id: "c1.q.1",
      source: { source: "tool", name: `x${HYPERLINK}` },
      question: { text: `Delete ${FLIP}elif?`, answer_type: { type: "text" } },
    }),
    createEvent("inquiry_response", { id: "c1.q.1", outcome: "answered", answer: `ok${CLEAR}` }),
    createEvent("tool_call_response", { id: "c1", content: `done\u009b31m`, is_error: false }),
  );
  const saved = await saveConversation(join(dir, "hostile"), {
    name: "hostile",
    metadata: { title: `Title${FLIP}`, last_activated_at: "2026-11-27 16:00:00.0" },
    baseConfig: undefined,
    layout: "base_config",
    stream,
  });
  expect(saved.isOk()).toBe(true);
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ["--conditions=@jp/source", "--import", "tsx", MAIN, join(dir, "hostile")],
    { cwd: ROOT },
  );
  expect(stdout).toContain("Delete \\u202eelif?");
  expect(stdout).toContain("tool xCLICK");
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
  expect(stdout).not.toMatch(/[\u001b\u0007\u009b\u202e]/);
});
