/**
 * Formats a time the way JP writes event timestamps: UTC, `YYYY-MM-DD HH:MM:SS` and the
 * fractional seconds with trailing zeros trimmed (`.0` when there are none).
 *
 * Timestamps read from disk are kept as the exact text they were written with (JP writes
 * microseconds, which a `Date` cannot hold); this is only for new events.
 *
 * @example formatTimestamp(new Date(Date.UTC(2026, 2, 5, 22, 12, 35, 690))) // "2026-03-05 22:12:35.69"
 */
export function formatTimestamp(date?: Date): string {
  if (date === undefined) return now();
  return format(date);
}

// Recording stamps many events within the same millisecond; format each millisecond once.
let lastMs = Number.NaN;
let lastText = "";
function now(): string {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    lastText = format(new Date(ms));
  }
  return lastText;
}

function format(date: Date): string {
  const pad = (n: number, width = 2) => String(n).padStart(width, "0");
  const day = `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}`;
  const time = `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}`;
  const fraction = pad(date.getUTCMilliseconds(), 3).replace(/0+$/, "") || "0";
  return `${day} ${time}.${fraction}`;
}

/** The timestamp JP falls back to when an event has none to borrow: the UNIX epoch. */
export const EPOCH_TIMESTAMP = "1970-01-01 00:00:00.0";
