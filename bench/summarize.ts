// Summarizes several `npm run bench -- --json` outputs: for each row, the median of the runs'
// figures and their spread (lowest–highest), and how many runs met the goal.
//
//   node --import tsx bench/summarize.ts run-1.json run-2.json run-3.json

import { readFileSync } from "node:fs";
import type { Row } from "./report.js";
import { median } from "./stats.js";

interface Run {
  readonly date: string;
  readonly loadBefore: readonly string[];
  readonly loadAfter: readonly string[];
  readonly rows: readonly Row[];
}

const runs = process.argv.slice(2).map((file) => JSON.parse(readFileSync(file, "utf8")) as Run);
if (runs.length === 0) {
  console.error("usage: node --import tsx bench/summarize.ts <run.json>...");
  process.exit(2);
}

const format = (value: number) =>
  Math.abs(value) >= 1000
    ? value.toLocaleString("en-US", { maximumFractionDigits: 0 })
    : value.toPrecision(3);

for (const run of runs) {
  console.log(`run ${run.date}: load ${run.loadBefore.join(" ")} → ${run.loadAfter.join(" ")}`);
}
const ids = [...new Set(runs.flatMap((run) => run.rows.map((row) => row.id)))];
for (const id of ids) {
  const rows = runs.flatMap((run) => run.rows.filter((row) => row.id === id));
  const first = rows[0] as Row;
  const met = rows.filter((row) => row.goal?.met === true).length;
  console.log(`\n${first.title}`);
  if (first.goal !== undefined)
    console.log(`  goal: ${first.goal.text}; met in ${met} of ${rows.length} runs`);
  for (const key of Object.keys(first.values)) {
    const values = rows.map((row) => row.values[key]).filter((v): v is number => v !== undefined);
    const low = Math.min(...values);
    const high = Math.max(...values);
    console.log(`  ${key}: median ${format(median(values))} (${format(low)}–${format(high)})`);
  }
  if (first.scaling !== undefined) {
    const ratios = rows.flatMap((row) => (row.scaling === undefined ? [] : [row.scaling.ratio]));
    console.log(
      `  ratio: median ${median(ratios).toFixed(2)} (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`,
    );
  }
}
