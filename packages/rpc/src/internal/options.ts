/**
 * Checks of a host's numeric options, run before anything starts: a mistake there is the
 * host's, and fails at once with the option, the value and what is allowed, instead of
 * silently meaning "no limit" (`NaN`) or refusing everything (`0`).
 */

/** A value as the message shows it: strings quoted, so that `"5000"` reads as a string. */
function shown(value: unknown): string {
  return typeof value === "string" ? JSON.stringify(value) : String(value);
}

/** A whole number of at least 1 (a count or a size), or `undefined` for the default. */
export function checkCount(where: string, name: string, value: unknown, unit: string): void {
  if (value === undefined) return;
  const allowed = `a whole number of ${unit}, at least 1`;
  if (typeof value !== "number") {
    throw new TypeError(`${where}: \`${name}\` must be ${allowed}; got ${shown(value)}`);
  }
  if (!Number.isInteger(value) || value < 1) {
    throw new RangeError(`${where}: \`${name}\` must be ${allowed}; got ${shown(value)}`);
  }
}

/**
 * A delay in milliseconds, more than 0, or `undefined` for the default. `Infinity`, and
 * anything past what a timer holds, stays allowed: it means no limit.
 */
export function checkTimeout(where: string, name: string, value: unknown): void {
  if (value === undefined) return;
  const allowed = "a number of milliseconds greater than 0 (Infinity for no limit)";
  if (typeof value !== "number") {
    throw new TypeError(`${where}: \`${name}\` must be ${allowed}; got ${shown(value)}`);
  }
  if (!(value > 0)) {
    throw new RangeError(`${where}: \`${name}\` must be ${allowed}; got ${shown(value)}`);
  }
}
