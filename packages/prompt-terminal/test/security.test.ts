import type { PromptRequest } from "@jp/coordinator";
import { describe, expect, it } from "vitest";
import { escapeSequenceKinds, forbiddenCharacters } from "./support/characters.js";
import { KEYS } from "./support/fake-terminal.js";
import {
  ALL_CONTROLS,
  deliverRequest,
  harness,
  permissionRequest,
  questionRequest,
} from "./support/harness.js";

// Everything a model or tool controls is drawn on the terminal only after `neutralize`. These
// tests feed hostile strings into every field that is drawn, and check the terminal receives
// none of their escape sequences or control characters.

const PAYLOADS = {
  clipboard: "\x1b]52;c;cm0gLXJmIH4=\x07",
  hyperlink: "\x1b]8;;https://evil.example\x1b\\link\x1b]8;;\x1b\\",
  title: "\x1b]0;pwned\x1b\\",
  clear: "\x1b[2J\x1b[H",
  cursorUp: "\x1b[3A\x1b[2K",
  colour8bit: "\x9b31m",
  osc8bit: "\x9d0;x\x9c",
  reset: "\x1bc",
  dcs: "\x1bPq#0\x1b\\",
  apc: "\x1b_Gf=1\x1b\\",
  overwrite: "ok\rDENIED",
  bell: "\x07",
  backspace: "abc\b\b\b",
  bidi: "\u202etxt.exe",
  nul: "\0",
};
const HOSTILE = Object.values(PAYLOADS).join("|");
type Case = [string, (text: string) => PromptRequest, string, string[]];

const CASES: Case[] = [
  [
    "a boolean question's label, context, text and error",
    (text) =>
      questionRequest(
        { text, context: `${text}\n${text}`, answer_type: { type: "boolean" } },
        {
          prompt_label: text,
          progress: { index: 1, total: 2 },
          error: text,
          controls: ALL_CONTROLS,
        },
      ),
    "[y,Y,n,N,b,r,s]",
    ["y"],
  ],
  [
    "select options",
    (text) =>
      questionRequest({ text, answer_type: { type: "select", options: [text, `2${text}`] } }),
    "↑↓ move",
    [KEYS.enter],
  ],
  [
    "multi-select options",
    (text) =>
      questionRequest(
        { text, answer_type: { type: "multi_select", options: [text, `2${text}`] } },
        { controls: ALL_CONTROLS },
      ),
    "⏎ submit",
    [KEYS.space, KEYS.enter],
  ],
  [
    "a text question's initial value",
    (text) => questionRequest({ text: "Name?", answer_type: { type: "text" } }, { initial: text }),
    "Name?",
    [KEYS.enter],
  ],
  [
    "a permission prompt's tool, source and printed arguments",
    (text) =>
      permissionRequest({
        tool_name: text,
        tool_source: text,
        arguments: { [text]: text, list: [text] },
      }),
    "[y,Y,n,N,r,e,p]",
    ["p", "n"],
  ],
  [
    "a deliver prompt's tool name",
    (text) => deliverRequest({ tool_name: text, content: text, is_error: true }),
    "[y,n,e]",
    ["y"],
  ],
];

async function render(request: PromptRequest, ready: string, keys: string[]): Promise<string> {
  const { term, ask } = harness();
  const reply = ask(request);
  await term.waitFor(ready);
  for (const key of keys) {
    term.press(key);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  await reply;
  return term.raw();
}

describe("model-controlled text is drawn inert", () => {
  it.each(CASES)("%s", async (_what, request, ready, keys) => {
    const hostile = await render(request(HOSTILE), ready, keys);
    const harmless = await render(request("plain words ".repeat(20)), ready, keys);
    // The prompt draws the same kinds of escape sequence (colours, cursor moves) as with plain
    // words: nothing the model sent gets through.
    const expected = escapeSequenceKinds(harmless);
    const added = [...escapeSequenceKinds(hostile)].filter((kind) => !expected.has(kind));
    expect(added).toEqual([]);
    // Besides ESC (checked above), only line feeds.
    expect(forbiddenCharacters(hostile, [0x1b, 0x0a])).toEqual([]);
    for (const sequence of ["\x1b]", "\x1bP", "\x1b_", "\x1bc", "\x1b[2J", "\x1b[3A", "\x1b[H"]) {
      expect(hostile).not.toContain(sequence);
    }
    // What was neutralized stays visible as text, so the user sees something odd was sent.
    expect(hostile).toContain("\\u202etxt.exe");
    expect(hostile).toContain("ok\\rDENIED");
  });
});
