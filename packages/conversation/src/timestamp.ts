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

// Recording stamps many events within the same millisecond, and many within the same second:
// each millisecond is formatted once, and the date and time up to the second once a second.
let lastMs = Number.NaN;
let lastText = "";
let lastSecond = Number.NaN;
let secondText = "";
function now(): string {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    const second = Math.floor(ms / 1000);
    if (second !== lastSecond) {
      lastSecond = second;
      // `YYYY-MM-DD HH:MM:SS.`: the formatted second without its fraction (`0`).
      secondText = format(new Date(second * 1000)).slice(0, -1);
    }
    lastText = secondText + fraction(ms - second * 1000);
  }
  return lastText;
}

// Milliseconds (0–999) as fractional digits with trailing zeros trimmed: 690 → `69`, 5 → `005`.
function fraction(ms: number): string {
  if (ms % 100 === 0) return String(ms / 100);
  if (ms % 10 === 0) return String(ms / 10).padStart(2, "0");
  return String(ms).padStart(3, "0");
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
