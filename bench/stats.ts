/** Formats milliseconds with two decimals. */
export function ms(value: number): string {
  return `${value.toFixed(2)} ms`;
}

/** Medians of two functions timed alternately, `runs` times each after `warmup` rounds. */
export function medianPairMs(
  a: () => unknown,
  b: () => unknown,
  runs = 31,
  warmup = 5,
): [number, number] {
  const times: [number[], number[]] = [[], []];
  for (let i = 0; i < warmup + runs; i++) {
    [a, b].forEach((fn, side) => {
      const start = performance.now();
      fn();
      if (i >= warmup) times[side as 0 | 1].push(performance.now() - start);
    });
  }
  const median = (xs: number[]) => xs.sort((x, y) => x - y)[Math.floor(xs.length / 2)] as number;
  return [median(times[0]), median(times[1])];
}

/** The median duration of a function over `runs` runs after `warmup` runs. */
export function medianMs(fn: () => unknown, runs = 11, warmup = 2): number {
  for (let i = 0; i < warmup; i++) fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    fn();
    times.push(performance.now() - start);
  }
  return median(times);
}

/** The median duration of an async function over `runs` runs after `warmup` runs. */
export async function medianAsyncMs(
  fn: () => Promise<void>,
  runs = 15,
  warmup = 3,
): Promise<number> {
  for (let i = 0; i < warmup; i++) await fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await fn();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] as number;
}

/** The median of some numbers (the upper one of the middle two for an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/** Options of {@link perItemMs}. */
export interface PerItemOptions {
  /** About how many items each timed sample covers: small sizes are run several times. */
  readonly itemsPerSample: number;
  /** Timed samples per size; the median is kept. */
  readonly rounds: number;
}

/**
 * The median cost per item of `run(n)` at each size, in milliseconds. Sizes are timed in turn
 * within each round, so drift in a shared machine affects every size alike, and one untimed round
 * comes first so that no size pays for compilation.
 */
export async function perItemMs(
  sizes: readonly number[],
  run: (n: number) => unknown,
  options: PerItemOptions,
): Promise<{ n: number; perItem: number }[]> {
  const times = new Map<number, number[]>(sizes.map((n) => [n, []]));
  for (let round = -1; round < options.rounds; round++) {
    // Rotating the order keeps any one size from always following the largest.
    const order = sizes.map((_, i) => sizes[(i + Math.max(round, 0)) % sizes.length] as number);
    for (const n of order) {
      const repeat = Math.max(1, Math.round(options.itemsPerSample / n));
      const start = performance.now();
      for (let i = 0; i < repeat; i++) await run(n);
      const perItem = (performance.now() - start) / (repeat * n);
      if (round >= 0) times.get(n)?.push(perItem);
    }
  }
  return sizes.map((n) => ({ n, perItem: median(times.get(n) ?? []) }));
}

/** Medians of two async functions timed alternately, `runs` times each after `warmup` rounds. */
export async function medianPairAsyncMs(
  a: () => Promise<unknown>,
  b: () => Promise<unknown>,
  runs = 11,
  warmup = 2,
): Promise<[number, number]> {
  const times: [number[], number[]] = [[], []];
  for (let i = 0; i < warmup + runs; i++) {
    for (const [side, fn] of [a, b].entries()) {
      const start = performance.now();
      await fn();
      if (i >= warmup) times[side as 0 | 1].push(performance.now() - start);
    }
  }
  return [median(times[0]), median(times[1])];
}

/** The sizes of the scaling tables: 10 to 10,000, or up to the environment's `BENCH_MAX_N`. */
export function sizes(): number[] {
  const max = Number(process.env.BENCH_MAX_N ?? 10_000);
  return [10, 100, 1_000, 10_000].filter((n) => n <= max);
}
