// End-to-end: answer types and controls beyond the demo's own run (a multi_select without
// numbers, the remember-for-turn keys one by one, schema answers), and hostile model text, in a
// real terminal.
// `packages/prompt-terminal/test/fixtures/ask.ts` asks one PromptRequest on the pane's terminal
// and prints the reply as JSON.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { PromptRequest } from "@jp/coordinator";
import type { Question } from "@jp/tool";
import { describe, expect, it } from "vitest";
import { HAS_TMUX, NEEDS_TMUX, type TmuxScreen, tmuxScreens } from "./tmux.js";

const ASK = "packages/prompt-terminal/test/fixtures/ask.ts";
const NO_CONTROLS = { remember: false, back: false, reply: false, end_turn: false };

function questionRequest(question: Question, controls = NO_CONTROLS): PromptRequest {
  return {
    kind: "question",
    tool_name: "e2e_tool",
    tool_call_id: "call_e2e",
    inquiry_id: `call_e2e.${question.id}.1`,
    question,
    controls,
  };
}

/** The last line of the screen that is a JSON object: what ask.ts printed. */
function printedReply(text: string): unknown {
  const lines = text.split("\n").filter((line) => line.startsWith("{") && line.endsWith("}"));
  const last = lines.at(-1);
  if (last === undefined) throw new Error(`no reply JSON on the screen:\n${text}`);
  return JSON.parse(last);
}

describe.skipIf(!HAS_TMUX).sequential(`prompt-terminal answer types in tmux${NEEDS_TMUX}`, () => {
  const tmux = tmuxScreens();

  /** Writes the request into a fresh directory and asks it (request on stdin). */
  async function ask(
    request: PromptRequest,
    options: { env?: Record<string, string | undefined>; before?: string; dir?: string } = {},
  ): Promise<TmuxScreen> {
    const dir = options.dir ?? mkdtempSync(join(tmpdir(), "jp-e2e-ask-"));
    const file = join(dir, "request.json");
    writeFileSync(file, JSON.stringify(request));
    return tmux.start({
      dir,
      command: [process.execPath, "--conditions=@jp/source", "--import", "tsx", ASK, "-"],
      stdin: file,
      ...(options.env === undefined ? {} : { env: options.env }),
      ...(options.before === undefined ? {} : { before: options.before }),
    });
  }

  async function reply(screen: TmuxScreen): Promise<unknown> {
    await screen.waitFor(/^\{"type":/m);
    expect(await screen.waitForExit()).toBe(0);
    return printedReply(await screen.capture({ history: true }));
  }

  it("multi_select: a number and Space toggle two options, Enter submits both", async () => {
    const screen = await ask(
      questionRequest({
        id: "toppings",
        text: "Which toppings?",
        answer_type: { type: "multi_select", options: ["cheese", "olives", "basil"] },
      }),
    );
    await screen.waitFor("space toggle · a all · i invert · ⏎ submit");
    await screen.waitFor("❯ ◯ 1 cheese");
    await screen.press("1");
    await screen.waitFor("❯ ◉ 1 cheese");
    await screen.press("Down");
    await screen.waitFor("❯ ◯ 2 olives");
    await screen.press("Down");
    await screen.waitFor("❯ ◯ 3 basil");
    await screen.press("Space");
    await screen.waitFor("❯ ◉ 3 basil");
    const checked = await screen.capture();
    expect(checked).toContain("  ◯ 2 olives");
    await screen.press("Enter");

    expect(await reply(screen)).toEqual({ type: "answer", value: ["cheese", "basil"] });
    expect(await screen.capture({ history: true })).toContain("✔ Which toppings? cheese, basil");
  });

  it.each([
    ["Y", { type: "answer", value: true, remember: true }, "yes + remember for turn"],
    ["N", { type: "answer", value: false, remember: true }, "no + remember for turn"],
    ["y", { type: "answer", value: true }, "yes"],
  ])(
    "a yes/no question that may be reused this turn: %s answers %j",
    async (key, expected, shown) => {
      const screen = await ask(
        questionRequest(
          { id: "tag", text: "Push the tag?", answer_type: { type: "boolean" } },
          { ...NO_CONTROLS, remember: true },
        ),
      );
      await screen.waitFor("? Push the tag? [y,Y,n,N]");
      await screen.press(key);
      expect(await reply(screen)).toEqual(expected);
      expect(await screen.capture({ history: true })).toContain(`✔ Push the tag? ${shown}`);
    },
  );

  it("a yes/no question that may not be reused offers no remember keys: Y is not an answer", async () => {
    const screen = await ask(
      questionRequest({ id: "tag", text: "Push the tag?", answer_type: { type: "boolean" } }),
    );
    await screen.waitFor("? Push the tag? [y,n]");
    await screen.press("Y");
    await screen.press("n");
    expect(await reply(screen)).toEqual({ type: "answer", value: false });
  });

  it("schema: $EDITOR gets the default as a .json file; its JSON is the answer", async () => {
    const dir = mkdtempSync(join(tmpdir(), "jp-e2e-ask-"));
    const log = join(dir, "editor-log.json");
    const editor = join(dir, "editor.mjs");
    // A stand-in for the user's editor: notes what it was given, saves a new value, exits 0.
    writeFileSync(
      editor,
      [
        'import { readFileSync, writeFileSync } from "node:fs";',
        "const file = process.argv[2];",
        `writeFileSync(${JSON.stringify(log)}, JSON.stringify({ file, text: readFileSync(file, "utf8") }));`,
        'writeFileSync(file, JSON.stringify({ name: "api", port: 8080 }, null, 2) + "\\n");',
      ].join("\n"),
    );
    const screen = await ask(
      questionRequest({
        id: "service",
        text: "Service settings",
        answer_type: {
          type: "schema",
          schema: {
            type: "object",
            properties: { name: { type: "string" }, port: { type: "integer", minimum: 1 } },
            required: ["name", "port"],
            additionalProperties: false,
          },
        },
        default: { name: "web", port: 80 },
      }),
      { dir, env: { EDITOR: `'${process.execPath}' '${editor}'`, VISUAL: undefined } },
    );

    expect(await reply(screen)).toEqual({ type: "answer", value: { name: "api", port: 8080 } });
    expect(await screen.capture({ history: true })).toContain(
      "? Service settings (opening your editor)",
    );
    const seen = JSON.parse(readFileSync(log, "utf8")) as { file: string; text: string };
    expect(seen.file).toMatch(/\.json$/);
    expect(JSON.parse(seen.text)).toEqual({ name: "web", port: 80 });
  });

  it("hostile text: escape sequences are removed or shown escaped, never acted on", async () => {
    const screen = await ask(
      questionRequest({
        id: "deploy",
        text: "Deploy \x1b[2Jnow\x1b]0;pwned\x07?\x1b]52;c;ZXZpbA==\x07 \x1b[31mred\r\u202etxet\x1b[1",
        context: "Context \x1b]0;pwned\x07one\r\nline two\rX \x1b[2J\u202e end",
        answer_type: {
          type: "select",
          options: [
            "safe",
            "opt \x1b[31mred\x1b[0m",
            "bidi \u202eesrever",
            "osc \x1b]52;c;ZXZpbA==\x07clip",
          ],
        },
      }),
      // A known title first: were the OSC 0 obeyed, the title would change from it.
      { before: "printf '\\033]2;e2e-title\\007E2E-MARKER-BEFORE-PROMPT\\n'" },
    );
    await screen.waitFor("↑↓ move · ⏎ choose · or press a key");
    // The control: this tmux does take titles from programs.
    expect(await screen.paneTitle()).toBe("e2e-title");

    const shown = await screen.capture();
    // \x1b[2J did not clear the screen: the line printed before the prompt is still visible.
    expect(shown).toContain("E2E-MARKER-BEFORE-PROMPT");
    // Complete sequences are gone; CR, U+202E and the incomplete CSI are shown escaped.
    expect(shown).toContain("Context one\nline two\\rX \\u202e end");
    expect(shown).toContain("? Deploy now? red\\r\\u202etxet\\x1b[1");
    expect(shown).toContain("❯ 1 safe\n  2 opt red\n  3 bidi \\u202eesrever\n  4 osc clip");
    for (const leaked of ["pwned", "ZXZpbA", "52;c", "[31m", "[2J"]) {
      expect(shown).not.toContain(leaked);
    }
    // Nothing is drawn red: the prompt uses no red, and the model's \x1b[31m was removed.
    // (capture-pane -e writes each colour as its own SGR sequence, red as ESC [31m.)
    const styled = await screen.capture({ attributes: true });
    const redLines = styled.split("\n").filter((line) => line.includes("\u001b[31m"));
    expect(redLines).toEqual([]);

    await screen.press("1");
    expect(await reply(screen)).toEqual({ type: "answer", value: "safe" });
    expect(await screen.paneTitle()).toBe("e2e-title");
    // OSC 52 would have made a paste buffer (the server runs with set-clipboard on).
    expect(await screen.pasteBuffers()).toEqual([]);
    expect(await screen.capture({ history: true })).not.toContain("pwned");
  });
});
