// The embedding snippets of the README and docs/production.md, run as they are written against a
// fake provider: with nobody at a terminal, and (under tmux) with a person answering.
import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FileConversationStore, type StreamEvent } from "@jp/conversation";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HAS_TMUX, NEEDS_TMUX, tmuxScreens } from "../../../examples/terminal-agent/test/tmux.js";
import { FAKE_DONE, type FakeProvider, startFakeProvider } from "./fake-provider.js";
import { runSnippet, snippetCommand } from "./run-snippet.js";

let provider: FakeProvider;
beforeAll(async () => {
  provider = await startFakeProvider();
});
afterAll(() => provider.close());

/** The events of the one conversation a snippet saved under `<cwd>/.jp/conversations`. */
async function savedEvents(cwd: string): Promise<StreamEvent[]> {
  const store = new FileConversationStore(join(cwd, ".jp/conversations"));
  const names = readdirSync(store.root);
  expect(names).toHaveLength(1);
  const loaded = await store.load(names[0] as string);
  return [...loaded._unsafeUnwrap().stream.events];
}

const EMBEDS = ["embed-anthropic.ts", "embed-openai-chat.ts", "embed-openai-responses.ts"];

describe.each(EMBEDS)("%s", (file) => {
  it("runs with nobody at a terminal: ask_user is refused honestly, the turn ends, it is saved", async () => {
    const run = await runSnippet(file, provider.env);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const events = await savedEvents(run.cwd);
    expect(events.map((e) => e.type)).toEqual([
      "turn_start",
      "chat_request",
      "tool_call_request",
      "inquiry_request",
      "inquiry_response",
      "tool_call_response",
      "chat_response",
    ]);
    expect(events[4]).toMatchObject({ outcome: "cancelled", reason: "no_prompt_backend" });
    expect(events.at(-1)).toMatchObject({ message: expect.stringContaining(FAKE_DONE) });
  });
});

describe.skipIf(!HAS_TMUX)(`embed-anthropic.ts in a terminal (tmux)${NEEDS_TMUX}`, () => {
  const screens = tmuxScreens();

  it("asks the person, records the answer and gives it to the model", async () => {
    const dir = mkdtempSync(join(tmpdir(), "jp-snippet-tmux-"));
    const screen = await screens.start({
      dir,
      cwd: dir,
      command: snippetCommand("embed-anthropic.ts"),
      env: provider.env,
    });
    await screen.waitFor("Which version bump is next?");
    await screen.press("2");
    expect(await screen.waitForExit()).toBe(0);
    const events = await savedEvents(dir);
    const answered = events.find((e) => e.type === "inquiry_response");
    expect(answered).toMatchObject({ outcome: "answered", answer: "minor" });
    expect(events.at(-1)).toMatchObject({ message: expect.stringContaining('"minor"') });
  });
});
