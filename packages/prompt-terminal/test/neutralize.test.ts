import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { neutralize } from "../src/index.js";
import { forbiddenCharacters } from "./support/characters.js";

const LF = 0x0a;

// [what, input, single-line output, multiline output (when it differs)]
type Row = readonly [string, string, string, string?];

const SEQUENCES_REMOVED: Row[] = [
  ["SGR colour", "\x1b[31mred\x1b[0m", "red"],
  ["CSI erase display", "a\x1b[2Jb", "ab"],
  ["CSI cursor up (overwrite earlier lines)", "\x1b[1A\x1b[2Kfake", "fake"],
  ["CSI private mode (hide cursor)", "\x1b[?25lx", "x"],
  ["CSI with an intermediate (cursor shape)", "\x1b[1 qx", "x"],
  ["CSI device status report (reply injection)", "\x1b[6nx", "x"],
  ["8-bit CSI", "\x9b31mred", "red"],
  ["OSC 52 clipboard, BEL-terminated", "ok\x1b]52;c;ZXZpbA==\x07!", "ok!"],
  ["OSC 52 clipboard, ST-terminated", "ok\x1b]52;c;ZXZpbA==\x1b\\!", "ok!"],
  ["OSC 8 hyperlink", "\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\", "click"],
  ["OSC 0 window title", "\x1b]0;pwned\x07x", "x"],
  ["8-bit OSC ended by 8-bit ST", "\x9d0;title\x9cx", "x"],
  ["8-bit OSC ended by BEL", "\x9d52;c;AAAA\x07x", "x"],
  ["DCS (sixel)", "\x1bPq#0;2;0;0;0\x1b\\x", "x"],
  ["8-bit DCS", "\x90q\x9cx", "x"],
  ["APC (kitty graphics)", "\x1b_Gf=100;AAAA\x1b\\x", "x"],
  ["PM", "\x1b^private\x1b\\x", "x"],
  ["SOS", "\x1bXstring\x1b\\x", "x"],
  ["8-bit APC", "\x9fdata\x9cx", "x"],
  ["RIS full reset", "\x1bcx", "x"],
  ["DECSC save cursor", "\x1b7x\x1b8", "x"],
  ["reverse index", "\x1bMx", "x"],
  ["charset designation (nF)", "\x1b(0x\x1b(B", "x"],
  ["DECALN screen fill (nF)", "\x1b#8x", "x"],
  ["stray ST", "a\x1b\\b", "ab"],
  ["ESC then a CSI", "\x1b\x1b[31mx", "\\x1bx"],
];

const INCOMPLETE_SHOWN: Row[] = [
  ["unterminated OSC", "\x1b]52;c;AAAA", "\\x1b]52;c;AAAA"],
  ["OSC aborted by CAN", "\x1b]0;x\x18y", "\\x1b]0;x\\x18y"],
  ["OSC aborted by SUB", "\x1b]0;x\x1ay", "\\x1b]0;x\\x1ay"],
  ["OSC cut by a CSI", "\x1b]0;a\x1b[31mb", "\\x1b]0;ab"],
  ["unterminated 8-bit DCS", "\x90qdata", "\\x90qdata"],
  ["incomplete CSI", "\x1b[31", "\\x1b[31"],
  ["CSI broken by a line feed", "\x1b[3\n1m", "\\x1b[3\\n1m", "\\x1b[3\n1m"],
  ["incomplete 8-bit CSI", "\x9b31", "\\x9b31"],
  ["lone ESC at the end", "abc\x1b", "abc\\x1b"],
  ["ESC before a non-ASCII character", "\x1bé", "\\x1bé"],
  ["ESC + intermediate at the end (incomplete nF)", "a\x1b ", "a\\x1b "],
];

const CONTROLS_ESCAPED: Row[] = [
  ["BEL", "ding\x07", "ding\\x07"],
  ["backspaces (overstrike)", "abc\b\b\bxyz", "abc\\x08\\x08\\x08xyz"],
  ["NUL", "a\0b", "a\\x00b"],
  ["vertical tab and form feed", "a\x0b\x0cb", "a\\x0b\\x0cb"],
  ["SI/SO (charset shift)", "a\x0e\x0fb", "a\\x0e\\x0fb"],
  ["DEL", "a\x7fb", "a\\x7fb"],
  ["C1 NEL", "a\x85b", "a\\x85b"],
  ["C1 controls without a sequence", "\x80\x8d\x9a", "\\x80\\x8d\\x9a"],
  ["CR overwrite trick", "safe\rEVIL", "safe\\rEVIL", "safe\\rEVIL"],
  ["line feed", "a\nb", "a\\nb", "a\nb"],
  ["CRLF", "a\r\nb", "a\\r\\nb", "a\nb"],
  ["tab", "a\tb", "a\\tb", "a    b"],
  ["sequences inside a body", "x\n\x1b[2Jy", "x\\ny", "x\ny"],
];

const INVISIBLE_ESCAPED: Row[] = [
  ["RLO (Trojan Source)", "a\u202eb", "a\\u202eb"],
  ["LRE, RLE, PDF, LRO", "\u202a\u202b\u202c\u202d", "\\u202a\\u202b\\u202c\\u202d"],
  ["bidi isolates", "\u2066\u2067\u2068\u2069", "\\u2066\\u2067\\u2068\\u2069"],
  ["LRM, RLM, ALM", "\u200e\u200f\u061c", "\\u200e\\u200f\\u061c"],
  ["zero-width space", "pay\u200bpal", "pay\\u200bpal"],
  ["BOM / zero-width no-break space", "\ufeffx", "\\ufeffx"],
  ["line and paragraph separators", "a\u2028b\u2029c", "a\\u2028b\\u2029c"],
  ["tag characters (hidden text)", "hi\u{e0041}\u{e0042}", "hi\\u{e0041}\\u{e0042}"],
  ["lone surrogates", "a\ud800b\udc00", "a\\ud800b\\udc00"],
];

const KEPT: Row[] = [
  ["plain ASCII", "Apply the migration? (y/n)", "Apply the migration? (y/n)"],
  ["accents, CJK, emoji", "café 日本語 ✔ 🎉", "café 日本語 ✔ 🎉"],
  ["emoji ZWJ sequence", "👩\u200d💻", "👩\u200d💻"],
  ["ZWNJ (Persian)", "می\u200cخواهم", "می\u200cخواهم"],
  ["backslashes as they are", "C:\\path\\x1b", "C:\\path\\x1b"],
  ["empty", "", ""],
];

describe("neutralize", () => {
  describe.each([
    ["complete escape sequences are removed", SEQUENCES_REMOVED],
    ["incomplete sequences keep their text, ESC escaped", INCOMPLETE_SHOWN],
    ["control characters are escaped", CONTROLS_ESCAPED],
    ["invisible format characters are escaped", INVISIBLE_ESCAPED],
    ["ordinary text is kept", KEPT],
  ])("%s", (_title, rows) => {
    const cases = rows.map(([what, input, singleLine, multiline = singleLine]) => ({
      what,
      input,
      singleLine,
      multiline,
    }));
    it.each(cases)("$what", ({ input, singleLine, multiline }) => {
      expect(neutralize(input)).toBe(singleLine);
      expect(neutralize(input, { multiline: true })).toBe(multiline);
    });
  });

  const anyText = fc.string({ unit: "binary", maxLength: 80 });
  it("leaves no control, C1 or bidi character in any text", () => {
    fc.assert(
      fc.property(anyText, (text) => {
        expect(forbiddenCharacters(neutralize(text))).toEqual([]);
        expect(forbiddenCharacters(neutralize(text, { multiline: true }), [LF])).toEqual([]);
      }),
    );
  });

  it("leaves no escape sequence even in text built from sequence fragments", () => {
    const fragment = fc.constantFrom(
      "\x1b",
      "[",
      "]",
      "P",
      "_",
      "^",
      "X",
      "\\",
      "\x07",
      "\x9b",
      "\x9c",
      "\x9d",
      "\x18",
      "31m",
      ";",
      "52",
      "c",
      "\n",
      "\r",
      "x",
    );
    fc.assert(
      fc.property(fc.array(fragment, { maxLength: 40 }), (parts) => {
        const shown = neutralize(parts.join(""), { multiline: true });
        expect(forbiddenCharacters(shown, [LF])).toEqual([]);
      }),
    );
  });

  it("is idempotent", () => {
    fc.assert(
      fc.property(anyText, fc.boolean(), (text, multiline) => {
        const once = neutralize(text, { multiline });
        expect(neutralize(once, { multiline })).toBe(once);
      }),
    );
  });

  it("stays linear on adversarial input", () => {
    const hostile =
      "\x1b]".repeat(50_000) +
      `\x1b]${"a".repeat(1000)}`.repeat(200) +
      `\x9b${"1".repeat(1000)}`.repeat(200) +
      `\x1bP${"q".repeat(1000)}\x18`.repeat(200);
    const started = performance.now();
    const shown = neutralize(hostile);
    expect(performance.now() - started).toBeLessThan(2000);
    expect(shown.startsWith("\\x1b]\\x1b]")).toBe(true);
  });
});
