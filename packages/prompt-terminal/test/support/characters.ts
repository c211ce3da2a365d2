const ESC = "\u001b";

/** Whether a code point must never reach the terminal from model text. */
function isForbidden(code: number): boolean {
  return (
    code < 0x20 ||
    (code >= 0x7f && code <= 0x9f) ||
    (code >= 0x202a && code <= 0x202e) ||
    (code >= 0x2066 && code <= 0x2069) ||
    [0x200b, 0x2028, 0x2029, 0xfeff].includes(code)
  );
}

/**
 * The controls (C0, DEL, C1) and invisible characters (bidi controls, zero-width space, BOM,
 * line/paragraph separators) in `text`, as `U+XXXX`, except the code points in `allowed`.
 */
export function forbiddenCharacters(text: string, allowed: readonly number[] = []): string[] {
  const found = new Set<string>();
  for (const character of text) {
    const code = character.codePointAt(0) ?? 0;
    if (isForbidden(code) && !allowed.includes(code)) {
      found.add(`U+${code.toString(16).padStart(4, "0")}`);
    }
  }
  return [...found];
}

/**
 * The kinds of escape sequence in `raw`: a CSI with its numbers generalised (a cursor move to
 * another column is the same kind), anything else as ESC + the next character.
 */
export function escapeSequenceKinds(raw: string): Set<string> {
  const kinds = new Set<string>();
  for (let index = raw.indexOf(ESC); index >= 0; index = raw.indexOf(ESC, index + 1)) {
    const rest = raw.slice(index + 1, index + 64);
    const csi = /^\[[0-?]*[ -/]*[@-~]/.exec(rest);
    kinds.add(ESC + (csi === null ? rest.slice(0, 1) : csi[0].replace(/\d+/g, "N")));
  }
  return kinds;
}
