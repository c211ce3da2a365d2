// `npm run bench`: measures the built packages and prints every figure with its goal; scaling
// tables show the ratio of the largest to the smallest per-item cost. No timing is asserted
// anywhere in the test suite; figures are recorded in docs/performance.md.
//
//   npm run bench                      all suites, as text
//   npm run bench -- --json            the same rows as JSON on stdout (text goes nowhere)
//   npm run bench -- --only=startup    suites whose name contains the text (--only=postgres:
//                                      @jp/store-postgres, against a server it starts itself)
//   BENCH_MAX_N=1000 npm run bench     scaling tables up to 1,000 items
//
// Compare ratios within one run: the machine may be shared, and its load is printed with the rows.

import { cpus, loadavg } from "node:os";
import { builtinsBench } from "./builtins.bench.js";
import { conversationBench } from "./conversation.bench.js";
import { coordinatorBench } from "./coordinator.bench.js";
import { durableBench } from "./durable.bench.js";
import { mcpBench } from "./mcp.bench.js";
import { postgresBench } from "./postgres.bench.js";
import { type Row, renderRows } from "./report.js";
import { startupBench } from "./startup.bench.js";

/** Every suite, in the order they run: new suites are added here. */
const SUITES: readonly (readonly [string, () => Row[] | Promise<Row[]>])[] = [
  ["startup", startupBench],
  ["conversation", conversationBench],
  ["coordinator", coordinatorBench],
  ["builtins", builtinsBench],
  ["durable", durableBench],
  ["mcp", mcpBench],
  // Starts its own throwaway PostgreSQL server; reports itself skipped without server binaries.
  ["postgres", postgresBench],
];

const args = process.argv.slice(2);
const json = args.includes("--json");
const only = args.find((arg) => arg.startsWith("--only="))?.slice("--only=".length);
const log = (text: string) => {
  if (!json) console.log(text);
};

const load = () => loadavg().map((n) => n.toFixed(2));
const machine = {
  node: process.version,
  cpus: cpus().length,
  date: new Date().toISOString(),
  loadBefore: load(),
};
log(`node ${machine.node}, ${machine.cpus} cores, ${machine.date}`);
log(`load average before: ${machine.loadBefore.join(" ")}`);

const rows: Row[] = [];
for (const [name, suite] of SUITES) {
  if (only !== undefined && !name.includes(only)) continue;
  const measured = await suite();
  rows.push(...measured);
  log(renderRows(measured));
}

const loadAfter = load();
log(`\nload average after: ${loadAfter.join(" ")}`);
const unmet = rows.filter((row) => row.goal?.met === false);
log(
  unmet.length === 0 ? "every goal met" : `goals not met: ${unmet.map((row) => row.id).join(", ")}`,
);
if (json) console.log(JSON.stringify({ ...machine, loadAfter, rows }, null, 2));
