// The rows `npm run bench` prints: one per measured figure, each with its goal, and scaling tables
// whose ratio of the largest to the smallest per-item cost shows a cost that grows faster than
// the work as a number. `--json` prints the same rows for tools.

/** A goal a figure is held to; `met` is decided in the run that measured it. */
export interface Goal {
  readonly text: string;
  readonly met: boolean;
}

/** One size of a scaling table: the per-item cost at `n` items. */
export interface ScalingPoint {
  readonly n: number;
  readonly perItem: number;
}

/** Per-item costs at growing sizes, and the ratio of the largest size's to the smallest's. */
export interface Scaling {
  /** What `perItem` is measured in, e.g. "µs per question". */
  readonly unit: string;
  readonly points: readonly ScalingPoint[];
  readonly ratio: number;
}

/** One measured figure. */
export interface Row {
  /** A stable key, for comparing runs: `suite.name`. */
  readonly id: string;
  readonly suite: string;
  readonly title: string;
  /** The figure as a person reads it. */
  readonly measured: string;
  /** The figures behind `measured`, for tools (milliseconds unless the key says otherwise). */
  readonly values: Readonly<Record<string, number>>;
  readonly goal?: Goal;
  readonly scaling?: Scaling;
  readonly notes?: readonly string[];
}

/** A number with thousands separators and `digits` decimals. */
export function num(value: number, digits = 0): string {
  return value.toLocaleString("en-US", {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  });
}

/** Builds a scaling table from per-item costs, the ratio taken largest size over smallest. */
export function scaling(unit: string, points: readonly ScalingPoint[]): Scaling {
  const sorted = [...points].sort((a, b) => a.n - b.n);
  const first = sorted[0] as ScalingPoint;
  const last = sorted.at(-1) as ScalingPoint;
  return { unit, points: sorted, ratio: last.perItem / first.perItem };
}

/** `≤ limit` / `≥ limit` goals, met or not by `value`. */
export function atMost(value: number, limit: number, text: string): Goal {
  return { text, met: value <= limit };
}

export function atLeast(value: number, limit: number, text: string): Goal {
  return { text, met: value >= limit };
}

/** The rows as text: a line per figure with its goal, and each scaling table below its row. */
export function renderRows(rows: readonly Row[]): string {
  const lines: string[] = [];
  let suite: string | undefined;
  for (const row of rows) {
    if (row.suite !== suite) {
      suite = row.suite;
      lines.push("", `## ${suite}`);
    }
    const verdict = row.goal === undefined ? "" : `  [${row.goal.met ? "met" : "NOT MET"}]`;
    lines.push(`${row.title}`);
    lines.push(`  ${row.measured}`);
    if (row.goal !== undefined) lines.push(`  goal: ${row.goal.text}${verdict}`);
    if (row.scaling !== undefined) lines.push(...renderScaling(row.scaling));
    for (const note of row.notes ?? []) lines.push(`  ${note}`);
  }
  return lines.join("\n");
}

function renderScaling(table: Scaling): string[] {
  const width = Math.max(8, ...table.points.map((p) => num(p.n).length));
  const lines = [`  ${"n".padStart(width)}  ${table.unit}`];
  for (const point of table.points) {
    lines.push(`  ${num(point.n).padStart(width)}  ${num(point.perItem, 3).padStart(10)}`);
  }
  const first = table.points[0] as ScalingPoint;
  const last = table.points.at(-1) as ScalingPoint;
  lines.push(`  ratio ${num(last.n)} / ${num(first.n)}: ${table.ratio.toFixed(2)}`);
  return lines;
}
