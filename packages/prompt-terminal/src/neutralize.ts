/** Options of {@link neutralize}. */
export interface NeutralizeOptions {
  /**
   * Keep line feeds (and turn CRLF into LF, tabs into four spaces) because the text is a body
   * meant to span lines, such as a question's context or a tool's arguments. Otherwise line
   * breaks and tabs are shown escaped (`\n`, `\r`, `\t`), so a one-line label cannot fake extra
   * lines. Default `false`.
   */
  readonly multiline?: boolean;
}

const ESC = 0x1b;
const BEL = 0x07;
const CAN = 0x18;
const SUB = 0x1a;
/** 8-bit String Terminator; `ESC \` is its 7-bit form. */
const ST = 0x9c;

/** 8-bit introducers of the control strings ended by ST (OSC also by BEL): DCS, SOS, OSC, PM, APC. */
const C1_STRING_INTRODUCERS = new Set([0x90, 0x98, 0x9d, 0x9e, 0x9f]);
/** The same introducers in their 7-bit form, the character after ESC: `P X ] ^ _`. */
const ESC_STRING_INTRODUCERS = new Set([0x50, 0x58, 0x5d, 0x5e, 0x5f]);
const C1_CSI = 0x9b;

/** Escapes with a conventional short form; every other control becomes `\xNN`. */
const SHORT_ESCAPES: ReadonlyMap<number, string> = new Map([
  [0x09, "\\t"],
  [0x0a, "\\n"],
  [0x0d, "\\r"],
]);

// Format characters (Cf) are invisible yet change how the text around them looks: bidi
// overrides and isolates reorder it ("Trojan Source"), tag characters hide text. ZWNJ and ZWJ
// are kept because emoji sequences and several scripts need them. Line and paragraph
// separators may break lines in some terminals. Lone surrogates cannot be printed at all.
const INVISIBLE = /[\p{Cf}\u2028\u2029]|[\ud800-\udfff]/u;
const KEPT_FORMAT_CHARACTERS = new Set([0x200c, 0x200d]);

/**
 * Makes text that a model or a tool controls inert before it reaches a terminal.
 *
 * - Complete escape sequences are removed: CSI (`ESC [` … final byte, and 8-bit `0x9b`), OSC
 *   (`ESC ]` … BEL or ST, e.g. OSC 8 hyperlinks and OSC 52 clipboard writes), DCS, SOS, PM and
 *   APC strings (`ESC P`/`X`/`^`/`_` … ST, and their 8-bit forms), and the short `ESC` + one
 *   character sequences (`ESC c`, `ESC 7`, `ESC ( B`, …).
 * - Anything incomplete or unknown keeps its text but loses its power: the `ESC` is shown as
 *   `\x1b`. Every other C0 control, DEL and C1 control is shown as `\xNN` (`\t`, `\n`, `\r` in
 *   short form); with `multiline`, LF stays, CRLF becomes LF and a tab becomes four spaces.
 * - Invisible format characters (bidi overrides and isolates such as U+202E, zero-width space,
 *   BOM, tag characters, U+2028/U+2029) and lone surrogates are shown as `\u202e` / `\u{e0041}`.
 *
 * Escaping is for display only and not reversible: a literal backslash is left as it is.
 *
 * @example
 * ```ts
 * neutralize("ok\x1b]52;c;ZXZpbA==\x07 \u202edone"); // "ok \\u202edone"
 * neutralize("line 1\r\nline 2", { multiline: true }); // "line 1\nline 2"
 * ```
 */
export function neutralize(text: string, options: NeutralizeOptions = {}): string {
  const multiline = options.multiline ?? false;
  let out = "";
  let index = 0;
  while (index < text.length) {
    const code = text.codePointAt(index) ?? 0;
    const width = code > 0xffff ? 2 : 1;
    const sequenceEnd = escapeSequenceEnd(text, index, code);
    if (sequenceEnd !== undefined) {
      index = sequenceEnd;
      continue;
    }
    out += renderCharacter(text, index, code, multiline);
    index += width;
  }
  return out;
}

function renderCharacter(text: string, index: number, code: number, multiline: boolean): string {
  if (multiline) {
    if (code === 0x0a) return "\n";
    if (code === 0x09) return "    ";
    // CRLF becomes LF; a lone CR could return to the line start and overwrite what was shown.
    if (code === 0x0d && text.charCodeAt(index + 1) === 0x0a) return "";
  }
  if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) {
    return SHORT_ESCAPES.get(code) ?? `\\x${code.toString(16).padStart(2, "0")}`;
  }
  const character = String.fromCodePoint(code);
  if (code >= 0xd800 && code <= 0xdfff) return `\\u${code.toString(16)}`;
  if (INVISIBLE.test(character) && !KEPT_FORMAT_CHARACTERS.has(code)) {
    return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, "0")}`;
  }
  return character;
}

/**
 * The index just after the complete escape sequence that starts at `index`, or `undefined`
 * when none starts there (or it is incomplete, and so gets shown escaped instead).
 */
function escapeSequenceEnd(text: string, index: number, code: number): number | undefined {
  if (code === C1_CSI) return csiEnd(text, index + 1);
  if (C1_STRING_INTRODUCERS.has(code)) return controlStringEnd(text, index + 1);
  if (code !== ESC) return undefined;
  const next = text.charCodeAt(index + 1);
  if (next === 0x5b) return csiEnd(text, index + 2);
  if (ESC_STRING_INTRODUCERS.has(next)) return controlStringEnd(text, index + 2);
  return shortEscapeEnd(text, index + 1);
}

/** CSI: parameter bytes 0x30–0x3F, intermediate bytes 0x20–0x2F, then a final byte 0x40–0x7E. */
function csiEnd(text: string, start: number): number | undefined {
  let index = start;
  while (inRange(text.charCodeAt(index), 0x30, 0x3f)) index++;
  while (inRange(text.charCodeAt(index), 0x20, 0x2f)) index++;
  return inRange(text.charCodeAt(index), 0x40, 0x7e) ? index + 1 : undefined;
}

/**
 * A control string runs to BEL, ST or `ESC \`. CAN, SUB, another ESC or C1 control aborts it
 * (as terminals do), and then it counts as incomplete: its text is shown, its ESC escaped. Each
 * scan stops at the next ESC or C1 control, so neutralizing stays linear in the text's length.
 */
function controlStringEnd(text: string, start: number): number | undefined {
  for (let index = start; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === BEL || code === ST) return index + 1;
    if (code === ESC) return text.charCodeAt(index + 1) === 0x5c ? index + 2 : undefined;
    if (code === CAN || code === SUB || inRange(code, 0x80, 0x9f)) return undefined;
  }
  return undefined;
}

/**
 * `ESC` + intermediates 0x20–0x2F + a final 0x30–0x7E (nF sequences such as `ESC ( B` and
 * `ESC # 8`), or `ESC` + one character 0x30–0x7E (Fp, Fe and Fs: `ESC 7`, `ESC M`, `ESC c`).
 */
function shortEscapeEnd(text: string, start: number): number | undefined {
  let index = start;
  while (inRange(text.charCodeAt(index), 0x20, 0x2f)) index++;
  return inRange(text.charCodeAt(index), 0x30, 0x7e) ? index + 1 : undefined;
}

function inRange(code: number, low: number, high: number): boolean {
  return code >= low && code <= high;
}
