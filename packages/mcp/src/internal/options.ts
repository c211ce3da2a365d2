/**
 * Checks of a host's numeric options, run when a function is called and before anything
 * starts: a mistake there is the host's, and fails at once with the option, the value and what
 * is allowed, instead of silently meaning "no limit" (`NaN`) or refusing everything (`0`).
 */

/** The longest delay a timer holds (about 24.8 days); a longer one fires at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** A value as the message shows it: strings quoted, so that `"5000"` reads as a string. */
function shown(value: unknown): string {
  return typeof value === "string" ? JSON.stringify(value) : String(value);
}

function check(
  where: string,
  name: string,
  value: unknown,
  allowed: string,
  fits: (value: number) => boolean,
): void {
  if (value === undefined) return;
  if (typeof value !== "number") {
    throw new TypeError(`${where}: \`${name}\` must be ${allowed}; got ${shown(value)}`);
  }
  if (!fits(value)) {
    throw new RangeError(`${where}: \`${name}\` must be ${allowed}; got ${shown(value)}`);
  }
}

/** A whole number of at least 1 (a count or a size), or `undefined` for the default. */
export function checkCount(where: string, name: string, value: unknown, unit: string): void {
  check(
    where,
    name,
    value,
    `a whole number of ${unit}, at least 1`,
    (n) => Number.isInteger(n) && n >= 1,
  );
}

/**
 * A delay in milliseconds, more than 0 and no more than a timer holds, or `undefined` for the
 * default. `Infinity` is refused: the SDK's request timer would fire at once.
 */
export function checkTimeout(where: string, name: string, value: unknown): void {
  check(
    where,
    name,
    value,
    `a number of milliseconds greater than 0, at most ${MAX_TIMER_MS} (about 24.8 days)`,
    (n) => n > 0 && n <= MAX_TIMER_MS,
  );
}

/** A finite number of seconds, more than 0, or `undefined` for the default. */
export function checkSeconds(where: string, name: string, value: unknown): void {
  check(
    where,
    name,
    value,
    "a finite number of seconds greater than 0",
    (n) => n > 0 && Number.isFinite(n),
  );
}
