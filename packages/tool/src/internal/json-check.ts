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
  /** How many arrays and objects hold this value. */
  readonly depth: number;
}

/**
 * Finds the first part of `value` that is not JSON (undefined, a function, NaN, a Map, a class
 * instance…), or returns undefined when the whole value is JSON. With `maxDepth`, arrays and
 * objects nested more than that many levels deep are a problem too, reported for the whole value.
 */
// Iterative on purpose: the input may come from anywhere (a property test, a hand-made object,
// a 100 000-deep array from `JSON.parse`), and a recursive walk would overflow the stack.
export function findNonJson(
  value: unknown,
  maxDepth = Number.POSITIVE_INFINITY,
): NonJsonProblem | undefined {
  // Most answers are a boolean or a string: no walk, and nothing to allocate.
  if (value === null) return undefined;
  if (typeof value !== "object") {
    const reason = scalarProblem(value);
    return reason === undefined ? undefined : { path: [], value, reason };
  }
  const stack: Pending[] = [{ value, key: undefined, parent: undefined, depth: 0 }];
  // A Set of visited containers turns a cycle (only possible from code, never from JSON) into an
  // error instead of an endless loop.
  const seen = new Set<object>();
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const reason = nodeProblem(item.value, seen);
    if (reason !== undefined) return { path: pathOf(item), value: item.value, reason };
    if (item.depth >= maxDepth && typeof item.value === "object" && item.value !== null) {
      return { path: [], value, reason: tooDeep(maxDepth) };
    }
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

// What a value nested too deeply is told, with the limit, so the answerer can give one that fits.
function tooDeep(maxDepth: number): string {
  return `nested more than ${maxDepth} levels deep (arrays and objects within one another); an answer may be nested at most ${maxDepth} levels deep`;
}

function pushChildren(parent: Pending, stack: Pending[]): void {
  const { value } = parent;
  if (typeof value !== "object" || value === null) return;
  const depth = parent.depth + 1;
  // Children are pushed in reverse so that the first bad one is the one reported.
  if (Array.isArray(value)) {
    for (let i = value.length - 1; i >= 0; i--) {
      stack.push({ value: value[i], key: i, parent, depth });
    }
    return;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  for (let i = keys.length - 1; i >= 0; i--) {
    const key = keys[i] as string;
    stack.push({ value: record[key], key, parent, depth });
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
