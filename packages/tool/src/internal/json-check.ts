import { typeName } from "./describe.js";

/** Where a value stops being JSON, and why. */
export interface NonJsonProblem {
  readonly path: (string | number)[];
  readonly value: unknown;
  readonly reason: string;
}

/** A value still to visit, linked to its parent so a path is only built when it is needed. */
interface Pending {
  readonly value: unknown;
  readonly key: string | number | undefined;
  readonly parent: Pending | undefined;
}

/**
 * Finds the first part of `value` that is not JSON (undefined, a function, NaN, a Map, a class
 * instance…), or returns undefined when the whole value is JSON.
 */
// Iterative on purpose: the input may come from anywhere (a property test, a hand-made object,
// a 100 000-deep array from `JSON.parse`), and a recursive walk would overflow the stack.
export function findNonJson(value: unknown): NonJsonProblem | undefined {
  // Most answers are a boolean or a string: no walk, and nothing to allocate.
  if (value === null) return undefined;
  if (typeof value !== "object") {
    const reason = scalarProblem(value);
    return reason === undefined ? undefined : { path: [], value, reason };
  }
  const stack: Pending[] = [{ value, key: undefined, parent: undefined }];
  // A Set of visited containers turns a cycle (only possible from code, never from JSON) into an
  // error instead of an endless loop.
  const seen = new Set<object>();
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const reason = nodeProblem(item.value, seen);
    if (reason !== undefined) return { path: pathOf(item), value: item.value, reason };
    pushChildren(item, stack);
  }
  return undefined;
}

function nodeProblem(value: unknown, seen: Set<object>): string | undefined {
  if (typeof value !== "object") return scalarProblem(value);
  if (value === null) return undefined;
  if (seen.has(value)) return "expected a JSON value, got a cycle";
  seen.add(value);
  if (Array.isArray(value) || isPlainObject(value)) return undefined;
  return `expected a JSON value, got ${typeName(value)}`;
}

function scalarProblem(value: unknown): string | undefined {
  switch (typeof value) {
    case "string":
    case "boolean":
      return undefined;
    case "number":
      return Number.isFinite(value) ? undefined : `expected a JSON value, got ${String(value)}`;
    default:
      return `expected a JSON value, got ${typeName(value)}`;
  }
}

function pushChildren(parent: Pending, stack: Pending[]): void {
  const { value } = parent;
  if (typeof value !== "object" || value === null) return;
  // Children are pushed in reverse so that the first bad one is the one reported.
  if (Array.isArray(value)) {
    for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], key: i, parent });
    return;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  for (let i = keys.length - 1; i >= 0; i--) {
    const key = keys[i] as string;
    stack.push({ value: record[key], key, parent });
  }
}

function pathOf(item: Pending): (string | number)[] {
  const path: (string | number)[] = [];
  for (let at: Pending | undefined = item; at?.key !== undefined; at = at.parent) {
    path.push(at.key);
  }
  return path.reverse();
}

/** True for `{}`-literals and `Object.create(null)`: what `JSON.parse` produces. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
