import { MAX_EVENT_VALUE_DEPTH } from "@jp/conversation";

/**
 * Whether arrays and objects in `value` are nested more deeply than a conversation records
 * (`MAX_EVENT_VALUE_DEPTH` levels, `value` itself the first). The recursion goes no deeper than
 * that, however deep `value` is.
 */
export function nestedTooDeeply(value: unknown): boolean {
  return deeperThan(value, MAX_EVENT_VALUE_DEPTH);
}

function deeperThan(value: unknown, levels: number): boolean {
  if (typeof value !== "object" || value === null) return false;
  if (levels === 0) return true;
  if (Array.isArray(value)) {
    for (const item of value) if (deeperThan(item, levels - 1)) return true;
    return false;
  }
  for (const key of Object.keys(value)) {
    if (deeperThan((value as Record<string, unknown>)[key], levels - 1)) return true;
  }
  return false;
}
