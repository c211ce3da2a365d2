import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** What the scripted editor does on one run: save this text, exit with a status, or never return. */
export type EditorStep = string | { readonly exit: number } | { readonly hang: true };

/** A stand-in for `$EDITOR` that plays a script, one step per run. */
export interface ScriptedEditor {
  /** The environment to give the backend (`EDITOR` set, `VISUAL` unset). */
  readonly env: NodeJS.ProcessEnv;
  /** What the file held when each run opened it. */
  seen(): string[];
  /** The file names the editor was given. */
  files(): string[];
  cleanup(): void;
}

// The editor is a small Node script: it logs what it was given, then writes the next scripted
// text into the file (or exits with the scripted status), like a user saving and quitting.
const SCRIPT = `
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
const dir = process.env.SCRIPTED_EDITOR_DIR;
const file = process.argv[2];
appendFileSync(join(dir, "seen.jsonl"), JSON.stringify({ file, text: readFileSync(file, "utf8") }) + "\\n");
const steps = JSON.parse(readFileSync(join(dir, "steps.json"), "utf8"));
const run = readFileSync(join(dir, "seen.jsonl"), "utf8").trim().split("\\n").length - 1;
const step = steps[run];
if (step === undefined) process.exit(3);
if (step.hang) setInterval(() => {}, 1000);
else if (typeof step === "object") process.exit(step.exit);
else writeFileSync(file, step);
`;

/** Creates an editor that plays `steps` in order; a run beyond the script exits with status 3. */
export function scriptedEditor(steps: readonly EditorStep[]): ScriptedEditor {
  const dir = mkdtempSync(join(tmpdir(), "jp-editor-test-"));
  const script = join(dir, "editor.mjs");
  writeFileSync(script, SCRIPT);
  writeFileSync(join(dir, "steps.json"), JSON.stringify(steps));
  const log = (): { file: string; text: string }[] => {
    try {
      return readFileSync(join(dir, "seen.jsonl"), "utf8")
        .trim()
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => JSON.parse(line) as { file: string; text: string });
    } catch {
      return [];
    }
  };
  const { VISUAL: _visual, ...rest } = process.env;
  return {
    env: {
      ...rest,
      EDITOR: `'${process.execPath}' '${script}'`,
      SCRIPTED_EDITOR_DIR: dir,
    },
    seen: () => log().map((entry) => entry.text),
    files: () => log().map((entry) => entry.file),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
