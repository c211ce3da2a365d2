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

/** A wait in milliseconds, 0 or more (`Infinity` for no limit), or `undefined` for the default. */
export function checkWait(where: string, name: string, value: unknown): void {
  check(
    where,
    name,
    value,
    "a number of milliseconds, at least 0 (Infinity for no limit)",
    (n) => n >= 0,
  );
}

/** An interval in milliseconds, more than 0 and no more than a timer holds. */
export function checkInterval(where: string, name: string, value: unknown): void {
  check(
    where,
    name,
    value,
    `a number of milliseconds greater than 0, at most ${MAX_TIMER_MS} (about 24.8 days)`,
    (n) => n > 0 && n <= MAX_TIMER_MS,
  );
}

/** A TCP port, 0 (any free one) to 65535, or `undefined` for the default. */
export function checkPort(where: string, name: string, value: unknown): void {
  check(
    where,
    name,
    value,
    "a whole number from 0 to 65535 (0 for any free port)",
    (n) => Number.isInteger(n) && n >= 0 && n <= 65535,
  );
}
