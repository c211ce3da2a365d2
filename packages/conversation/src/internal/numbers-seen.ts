// Whether JSON data checked since the last reset held an integer past 2^53 or a -0 (spelled `-0`,
// `-0.0` or `-1e-400` alike): numbers that JSON.parse may have read other than written. Every
// number of a known event passes through `isJsonValue` while it is decoded, so the loader learns
// from this flag, at no extra pass over the data, whether the text of `events.json` needs to be
// looked at (see exact-numbers.ts).
export const numbersSeen = { inexact: false };

/** Notes `value` in {@link numbersSeen} if JSON.parse may have read it other than written. */
export function noteNumber(value: number): void {
  if (Number.isSafeInteger(value) ? value === 0 && 1 / value < 0 : Number.isInteger(value)) {
    numbersSeen.inexact = true;
  }
}

/** Whether `value` holds such a number; iterative, as entries may be nested deep. */
export function holdsInexactNumber(value: unknown): boolean {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const next = pending.pop();
    if (typeof next === "number") {
      if (Number.isSafeInteger(next) ? next === 0 && 1 / next < 0 : Number.isInteger(next))
        return true;
    } else if (Array.isArray(next)) {
      for (const item of next) pending.push(item);
    } else if (typeof next === "object" && next !== null) {
      for (const key in next) pending.push((next as Record<string, unknown>)[key]);
    }
  }
  return false;
}

// The field of each known event whose value `isJsonValue` checked while the event was decoded.
const CHECKED: Readonly<Record<string, string>> = {
  tool_call_request: "arguments",
  config_delta: "delta",
  chat_request: "schema",
};

/**
 * Whether a known event that decoded as it was (canonical) holds such a number outside the
 * fields already checked (`metadata`, and the payload of its type): in a field of no known place.
 */
export function uncheckedFieldsHoldInexactNumber(event: Record<string, unknown>): boolean {
  const { type } = event;
  const checked =
    typeof type === "string" && Object.hasOwn(CHECKED, type)
      ? CHECKED[type]
      : type === "inquiry_response" && event.outcome === "answered"
        ? "answer"
        : undefined;
  for (const key in event) {
    if (key === "metadata" || key === checked) continue;
    const value = event[key];
    if ((typeof value === "object" || typeof value === "number") && holdsInexactNumber(value))
      return true;
  }
  return false;
}
