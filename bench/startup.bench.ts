import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { atMost, num, type Row } from "./report.js";
import { median } from "./stats.js";

const ROOT = join(import.meta.dirname, "..");
const RUNS = 21;

/** One fresh process importing `specifiers`: its wall time, and the import's own time inside it. */
function importOnce(specifiers: readonly string[]): { wall: number; inside: number } {
  const imports = specifiers.map((s) => `await import(${JSON.stringify(s)});`).join("");
  const code = `const t = performance.now();${imports}process.stdout.write(String(performance.now() - t));`;
  const start = performance.now();
  const child = spawnSync(process.execPath, ["--input-type=module", "-e", code], { cwd: ROOT });
  const wall = performance.now() - start;
  if (child.status !== 0)
    throw new Error(`import of ${specifiers.join(", ")} failed: ${child.stderr}`);
  return { wall, inside: Number(child.stdout.toString()) };
}

function bareOnce(): number {
  const start = performance.now();
  spawnSync(process.execPath, ["-e", "0"], { cwd: ROOT });
  return performance.now() - start;
}

/**
 * A cold import's cost over a bare `node -e 0`: both kinds of process are started alternately,
 * so that the machine's load weighs on both alike, and the medians are subtracted.
 */
function coldImport(specifiers: readonly string[]): { over: number; inside: number; bare: number } {
  const bare: number[] = [];
  const wall: number[] = [];
  const inside: number[] = [];
  importOnce(specifiers); // the first start also warms the file system cache
  for (let i = 0; i < RUNS; i++) {
    bare.push(bareOnce());
    const run = importOnce(specifiers);
    wall.push(run.wall);
    inside.push(run.inside);
  }
  return { over: median(wall) - median(bare), inside: median(inside), bare: median(bare) };
}

function row(name: string, title: string, specifiers: readonly string[], limit: number): Row {
  const { over, inside, bare } = coldImport(specifiers);
  return {
    id: `startup.${name}`,
    suite: "startup",
    title,
    measured: `+${num(over, 1)} ms over a bare \`node -e 0\` (${num(bare, 1)} ms); the import() itself ${num(inside, 1)} ms (medians of ${RUNS} fresh processes)`,
    values: { overBareMs: over, importMs: inside, bareMs: bare },
    goal: atMost(over, limit, `≤ ${limit} ms over \`node -e 0\``),
  };
}

/** Cold imports of the built packages in fresh processes. */
export function startupBench(): Row[] {
  return [
    row("conversation", "cold import of @jp/conversation", ["@jp/conversation"], 25),
    row(
      "coordinator+builtins",
      "cold import of @jp/coordinator + @jp/builtins",
      ["@jp/coordinator", "@jp/builtins"],
      60,
    ),
  ];
}
