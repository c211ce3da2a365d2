// Every TypeScript or JavaScript block in the README, docs/ and the packages' READMEs is a snippet
// file here, shown as it is: so each block is type-checked (the root tsconfig includes
// docs/snippets) and run (a test of this folder runs every snippet). A block is tied to its file by
// a comment on the line before it:
//   <!-- snippet: docs/snippets/file.ts -->          the whole file
//   <!-- snippet: docs/snippets/file.ts#name -->     the lines between `// #region name` and `// #endregion`
// A package README may instead say why a block cannot run here (it needs a PostgreSQL server, an
// MCP server, a UI in another process, …):
//   <!-- not-runnable: the reason -->
// and, on the line after it, may still tie the block to a snippet file, which is then type-checked
// (its row in snippet-runs.ts is "typecheck") but not run:
//   <!-- not-runnable: the reason -->
//   <!-- snippet: docs/snippets/file.ts#name -->
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO, SNIPPETS } from "./run-snippet.js";
import { RUNS } from "./snippet-runs.js";

const CODE_FENCE = /^```(ts|typescript|js|javascript|mjs|tsx)\s*$/;
const MARKER = /^<!-- snippet: (\S+?)(?:#(\S+))? -->$/;
const NOT_RUNNABLE = /^<!-- not-runnable: (.*\S.*) -->$/;

/** The packages' READMEs, which npm shows. */
const PACKAGE_READMES = readdirSync(join(REPO, "packages"))
  .map((dir) => `packages/${dir}/README.md`)
  .filter((path) => existsSync(join(REPO, path)));

/** The examples' READMEs. */
const EXAMPLE_READMES = readdirSync(join(REPO, "examples"))
  .map((dir) => `examples/${dir}/README.md`)
  .filter((path) => existsSync(join(REPO, path)));

/** The markdown files whose code blocks must be snippets. */
const DOCS = [
  "README.md",
  ...readdirSync(join(REPO, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`),
  ...PACKAGE_READMES,
  ...EXAMPLE_READMES,
];

interface Block {
  readonly doc: string;
  readonly line: number;
  readonly code: string;
  readonly marker: { readonly file: string; readonly region: string | undefined } | undefined;
  /** Why the block cannot run, when it is marked not runnable. */
  readonly notRunnable: string | undefined;
}

function blocks(doc: string): Block[] {
  const lines = readFileSync(join(REPO, doc), "utf8").split("\n");
  const found: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!CODE_FENCE.test(lines[i] as string)) continue;
    const end = lines.findIndex((line, j) => j > i && line.startsWith("```"));
    const marker = MARKER.exec(lines[i - 1] ?? "");
    // A not-runnable block tied to a snippet file has its reason on the line before the marker.
    const reasonLine = marker === null ? lines[i - 1] : lines[i - 2];
    found.push({
      doc,
      line: i + 1,
      code: lines.slice(i + 1, end).join("\n"),
      marker: marker === null ? undefined : { file: marker[1] as string, region: marker[2] },
      notRunnable: NOT_RUNNABLE.exec(reasonLine ?? "")?.[1],
    });
    i = end;
  }
  return found;
}

/** The text a marker names: the file, or one region of it. */
function snippetText(file: string, region: string | undefined): string {
  const text = readFileSync(join(REPO, file), "utf8").replace(/\n$/, "");
  if (region === undefined) return text;
  const lines = text.split("\n");
  const start = lines.findIndex((line) => line.trim() === `// #region ${region}`);
  const end = lines.findIndex((line, i) => i > start && line.trim() === "// #endregion");
  if (start === -1 || end === -1) throw new Error(`${file} has no region "${region}"`);
  const body = lines.slice(start + 1, end);
  const indent = Math.min(
    ...body.filter((l) => l.trim() !== "").map((l) => l.length - l.trimStart().length),
  );
  return body.map((line) => line.slice(indent)).join("\n");
}

const ALL = DOCS.flatMap(blocks);

const RUNNABLE = ALL.filter((block) => block.notRunnable === undefined);
const NOT_RUN = ALL.filter((block) => block.notRunnable !== undefined);

describe("every code block in the docs is a snippet file", () => {
  it.each(RUNNABLE.map((b) => [`${b.doc}:${b.line}`, b] as const))("%s", (_, block) => {
    expect(
      block.marker,
      `${block.doc}:${block.line}: put the code in docs/snippets/ and write <!-- snippet: docs/snippets/<file>.ts --> on the line before the block (in a package README, <!-- not-runnable: why --> when it cannot run here)`,
    ).toBeDefined();
    const { file, region } = block.marker ?? { file: "", region: undefined };
    expect(existsSync(join(REPO, file)), `${file} does not exist`).toBe(true);
    expect(block.code, `${block.doc}:${block.line} differs from ${file}`).toBe(
      snippetText(file, region),
    );
  });

  it.each(NOT_RUN.map((b) => [`${b.doc}:${b.line}`, b] as const))(
    "%s is marked not runnable, with a reason, in a package README only",
    (_, block) => {
      expect(PACKAGE_READMES, `${block.doc}: every block of the docs runs`).toContain(block.doc);
      expect(block.notRunnable?.trim().length).toBeGreaterThanOrEqual(10);
    },
  );

  it.each(
    NOT_RUN.filter((b) => b.marker !== undefined).map((b) => [`${b.doc}:${b.line}`, b] as const),
  )("%s is type-checked: it is a snippet file that is not run", (_, block) => {
    const { file, region } = block.marker ?? { file: "", region: undefined };
    expect(existsSync(join(REPO, file)), `${file} does not exist`).toBe(true);
    expect(block.code, `${block.doc}:${block.line} differs from ${file}`).toBe(
      snippetText(file, region),
    );
    const name = file.replace(/^docs\/snippets\//, "");
    expect(
      RUNS[name],
      `${file}: a not-runnable block's file is "typecheck" in snippet-runs.ts`,
    ).toBe("typecheck");
  });

  it("finds the blocks of every package README", () => {
    expect(PACKAGE_READMES.length).toBeGreaterThanOrEqual(9);
    for (const readme of PACKAGE_READMES) {
      const text = readFileSync(join(REPO, readme), "utf8");
      const fences = text.split("\n").filter((line) => CODE_FENCE.test(line)).length;
      expect(ALL.filter((block) => block.doc === readme)).toHaveLength(fences);
    }
  });

  it("the README shows embedding first, right after the two set-up commands", () => {
    const [first] = blocks("README.md");
    expect(first?.marker?.file).toBe("docs/snippets/embed-anthropic.ts");
    const readme = readFileSync(join(REPO, "README.md"), "utf8");
    const setUp = readme.indexOf("npm ci && npm run demo");
    expect(setUp).toBeGreaterThan(-1);
    // The first section after the set-up commands.
    expect(readme.indexOf("\n## ", setUp)).toBe(readme.indexOf("\n## Embed in your loop"));
  });
});

describe("every snippet runs", () => {
  it("each snippet file has a run in snippet-runs.ts", () => {
    const files = readdirSync(SNIPPETS).filter((name) => /\.(ts|mts|js|mjs)$/.test(name));
    const configs = files.filter((name) => name.endsWith(".config.ts"));
    expect(files.filter((f) => !configs.includes(f)).sort()).toEqual(Object.keys(RUNS).sort());
    const docs = DOCS.map((doc) => readFileSync(join(REPO, doc), "utf8")).join("\n");
    for (const file of Object.keys(RUNS)) {
      expect(docs.includes(file), `${file} is shown or linked in no doc`).toBe(true);
    }
  });
});
