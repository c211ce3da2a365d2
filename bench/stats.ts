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
