import type { JsonValue } from "@jp/conversation";
import type { Answers } from "../backends/executor.js";

/**
 * The answers of one tool call in the order they were given: appended to, never changed. A walk
 * that takes an answer back or replaces one starts a new log, so every view of an older log keeps
 * seeing what it saw.
 */
export class AnswerLog {
  readonly ids: string[] = [];
  readonly values: JsonValue[] = [];
  /**
   * How many of the first `i` answers nobody gave (the detached `defaults` policy took the
   * question's default), at index `i`: one more entry than there are answers.
   */
  readonly byDefault: number[] = [0];
  readonly #positions = new Map<string, number>();

  /** Appends an answer to a question the log does not hold yet; `byDefault` when nobody gave it. */
  push(id: string, value: JsonValue, byDefault = false): void {
    this.#positions.set(id, this.ids.length);
    this.ids.push(id);
    this.values.push(value);
    const before = this.byDefault[this.byDefault.length - 1] as number;
    this.byDefault.push(byDefault ? before + 1 : before);
  }

  /** Whether the answer at `position` is one nobody gave. */
  isDefault(position: number): boolean {
    return (this.byDefault[position + 1] as number) > (this.byDefault[position] as number);
  }

  /** The position of `id`'s answer, if it is among the first `length` answers. */
  positionOf(id: string, length: number): number | undefined {
    const at = this.#positions.get(id);
    return at !== undefined && at < length ? at : undefined;
  }
}

// `util.inspect.custom`, without importing `node:util` (which loads parts of Node.js nothing here
// needs, at every program's start).
const INSPECT = Symbol.for("nodejs.util.inspect.custom");

// Reading this key from a view gives its handler, so that a tool can ask what was answered
// between two of its passes. Private to this module, and never listed among the view's keys.
const HANDLER = Symbol("answers view");

// Up to this many answers, a snapshot is a plain object: a tool reads a plain object several times
// faster than it goes through a proxy's traps, and copying this few answers costs less than making
// the proxy. A longer log gets the view, made in constant time.
const PLAIN_UP_TO = 16;

/** What a snapshot shows: the first `length` answers of `log`. */
interface Shown {
  readonly log: AnswerLog;
  readonly length: number;
}

// Returns the object it is given, so that a subclass can put a private field on a plain object.
class Given {
  constructor(object: object) {
    // biome-ignore lint/correctness/noConstructorReturn: how a private field is put on a plain object
    return object;
  }
}

// A plain snapshot carries what it showed when made, in a private field: invisible to the tool
// (no key, no symbol, nothing for `Reflect.ownKeys` or a copy), and cheaper to attach and read
// than an entry in a WeakMap.
class PlainSnapshot extends Given {
  readonly #shown: Shown;

  private constructor(object: object, shown: Shown) {
    super(object);
    this.#shown = shown;
  }

  /** An empty object that remembers `shown`; its prototype stays `Object.prototype`. */
  static make(shown: Shown): Record<string, JsonValue> {
    const object = {};
    new PlainSnapshot(object, shown);
    return object;
  }

  /** What `object` showed when made, if it is a plain snapshot. */
  static shownBy(object: object): Shown | undefined {
    return #shown in object ? (object as PlainSnapshot).#shown : undefined;
  }
}

/**
 * The first `length` answers of `log` as an ordinary object (`answers.q`, `Object.hasOwn`,
 * `Object.keys`, `JSON.stringify`, spreading), made in constant time however many answers a call
 * has collected: a plain copy of a few answers, a view of the log beyond that. A tool that writes
 * to the view gets a plain copy in its place, as if it had been one all along; only
 * `structuredClone` tells it apart (copy it with `{ ...answers }` first).
 */
export function answersView(log: AnswerLog, length: number): Answers {
  if (length <= PLAIN_UP_TO) {
    const answers = PlainSnapshot.make({ log, length });
    for (let i = 0; i < length; i++) {
      const id = log.ids[i] as string;
      // An id is the tool's: "__proto__" must become an answer, not the object's prototype.
      if (id === "__proto__") defineAnswer(answers, id, log.values[i] as JsonValue);
      else answers[id] = log.values[i] as JsonValue;
    }
    return answers;
  }
  const target = Object.create(VIEW_PROTOTYPE) as Record<string, JsonValue>;
  return new Proxy(target, new ViewHandler(log, length));
}

/**
 * The ids of the first `length` answers of `log` that nobody gave, in the order they were given,
 * as a read-only set made in constant time: later answers do not change it.
 */
export function answeredByDefaultView(log: AnswerLog, length: number): ReadonlySet<string> {
  return log.byDefault[length] === 0 ? NONE_BY_DEFAULT : new DefaultedIds(log, length);
}

// The ids among a log's first `length` answers that were taken from a question's default: `has`
// and `size` read the log; listing them makes a set once (the log's first `length` answers never
// change).
class DefaultedIds implements ReadonlySet<string> {
  readonly #log: AnswerLog;
  readonly #length: number;
  #listed: Set<string> | undefined;

  constructor(log: AnswerLog, length: number) {
    this.#log = log;
    this.#length = length;
  }

  get size(): number {
    return this.#log.byDefault[this.#length] as number;
  }

  has(id: string): boolean {
    const at = this.#log.positionOf(id, this.#length);
    return at !== undefined && this.#log.isDefault(at);
  }

  #list(): Set<string> {
    if (this.#listed !== undefined) return this.#listed;
    const log = this.#log;
    const listed = new Set<string>();
    for (let i = 0; i < this.#length; i++) if (log.isDefault(i)) listed.add(log.ids[i] as string);
    this.#listed = listed;
    return listed;
  }

  values(): SetIterator<string> {
    return this.#list().values();
  }

  keys(): SetIterator<string> {
    return this.#list().keys();
  }

  entries(): SetIterator<[string, string]> {
    return this.#list().entries();
  }

  [Symbol.iterator](): SetIterator<string> {
    return this.#list().values();
  }

  forEach(
    each: (value: string, key: string, set: ReadonlySet<string>) => void,
    self?: unknown,
  ): void {
    for (const id of this.#list()) each.call(self, id, id, this);
  }

  get [Symbol.toStringTag](): string {
    return "Set";
  }

  // Node.js prints it as the set it stands for.
  [INSPECT](depth: number, options: object): string {
    const { inspect } = process.getBuiltinModule("node:util");
    return inspect(this.#list(), { ...options, depth });
  }
}

const NONE_BY_DEFAULT: ReadonlySet<string> = new DefaultedIds(new AnswerLog(), 0);

/**
 * The question ids answered since `earlier`, in the order they were answered, when `answers`
 * holds every answer `earlier` held, unchanged, and those: both must be answers the coordinator
 * gave the same tool call, `earlier` on an earlier pass. `undefined` otherwise (an answer was
 * taken back with Back or replaced, or either object did not come from the coordinator).
 * Costs the number of ids returned, so a tool walking a long form can pick up where it stood.
 *
 * @example
 * const added = answersAddedSince(answers, previous); // ["q41"] after one more answer
 */
export function answersAddedSince(answers: Answers, earlier: Answers): string[] | undefined {
  const now = shownBy(answers);
  const then = shownBy(earlier);
  if (now === undefined || then === undefined || now.log !== then.log) return undefined;
  if (then.length > now.length) return undefined;
  return now.log.ids.slice(then.length, now.length);
}

// What a snapshot still shows of its log: nothing once a tool changed it, or for an object that
// is no snapshot. A plain snapshot is compared with its log (at most PLAIN_UP_TO answers).
function shownBy(answers: Answers): Shown | undefined {
  const plain = PlainSnapshot.shownBy(answers);
  if (plain !== undefined) {
    const { log, length } = plain;
    if (Object.keys(answers).length !== length) return undefined;
    for (let i = 0; i < length; i++) {
      const id = log.ids[i] as string;
      if (!Object.hasOwn(answers, id) || answers[id] !== log.values[i]) return undefined;
    }
    return plain;
  }
  const handler = (answers as { [HANDLER]?: unknown })[HANDLER];
  return handler instanceof ViewHandler ? handler.shown() : undefined;
}

// Only reads are answered from the log. The first write of any kind copies the answers onto the
// proxy's target, which from then on is an ordinary object that every trap forwards to.
class ViewHandler implements ProxyHandler<Record<string, JsonValue>> {
  #log: AnswerLog | undefined;
  readonly #length: number;

  constructor(log: AnswerLog, length: number) {
    this.#log = log;
    this.#length = length;
  }

  /** What the view shows, while it is still a view of the log (no tool wrote to it). */
  shown(): Shown | undefined {
    return this.#log === undefined ? undefined : { log: this.#log, length: this.#length };
  }

  #at(key: string | symbol): number | undefined {
    return typeof key === "string" ? this.#log?.positionOf(key, this.#length) : undefined;
  }

  get(target: Record<string, JsonValue>, key: string | symbol, receiver: unknown): unknown {
    if (key === HANDLER) return this;
    if (this.#log === undefined) return Reflect.get(target, key, receiver);
    const at = this.#at(key);
    if (at !== undefined) return this.#log.values[at];
    // Object.prototype's members, never the view's own machinery.
    return key === INSPECT ? undefined : Reflect.get(Object.prototype, key, receiver);
  }

  has(target: Record<string, JsonValue>, key: string | symbol): boolean {
    if (this.#log === undefined) return Reflect.has(target, key);
    return this.#at(key) !== undefined || key in Object.prototype;
  }

  ownKeys(target: Record<string, JsonValue>): (string | symbol)[] {
    const log = this.#log;
    if (log === undefined) return Reflect.ownKeys(target);
    return ordinaryKeyOrder(log.ids.slice(0, this.#length));
  }

  getOwnPropertyDescriptor(
    target: Record<string, JsonValue>,
    key: string | symbol,
  ): PropertyDescriptor | undefined {
    if (this.#log === undefined) return Reflect.getOwnPropertyDescriptor(target, key);
    const at = this.#at(key);
    if (at === undefined) return undefined;
    return { value: this.#log.values[at], writable: true, enumerable: true, configurable: true };
  }

  getPrototypeOf(target: Record<string, JsonValue>): object | null {
    return this.#log === undefined ? Reflect.getPrototypeOf(target) : Object.prototype;
  }

  set(target: Record<string, JsonValue>, key: string | symbol, value: unknown, receiver: unknown) {
    this.#materialize(target);
    return Reflect.set(target, key, value, receiver);
  }

  defineProperty(
    target: Record<string, JsonValue>,
    key: string | symbol,
    descriptor: PropertyDescriptor,
  ): boolean {
    this.#materialize(target);
    return Reflect.defineProperty(target, key, descriptor);
  }

  deleteProperty(target: Record<string, JsonValue>, key: string | symbol): boolean {
    this.#materialize(target);
    return Reflect.deleteProperty(target, key);
  }

  preventExtensions(target: Record<string, JsonValue>): boolean {
    this.#materialize(target);
    return Reflect.preventExtensions(target);
  }

  setPrototypeOf(target: Record<string, JsonValue>, prototype: object | null): boolean {
    this.#materialize(target);
    return Reflect.setPrototypeOf(target, prototype);
  }

  // Turns the target into the plain object the view stood for; the log is no longer consulted.
  #materialize(target: Record<string, JsonValue>): void {
    const log = this.#log;
    if (log === undefined) return;
    Object.setPrototypeOf(target, Object.prototype);
    for (let i = 0; i < this.#length; i++) {
      defineAnswer(target, log.ids[i] as string, log.values[i] as JsonValue);
    }
    this.#log = undefined;
  }
}

function defineAnswer(target: Record<string, JsonValue>, id: string, value: JsonValue): void {
  Object.defineProperty(target, id, {
    value,
    writable: true,
    enumerable: true,
    configurable: true,
  });
}

// Node.js prints a proxy by inspecting its target: the target's prototype renders the answers.
const VIEW_PROTOTYPE = Object.create(Object.prototype, {
  [INSPECT]: {
    value(this: object, depth: number, options: object) {
      const { inspect } = process.getBuiltinModule("node:util");
      return inspect({ ...this }, { ...options, depth });
    },
  },
}) as object;

// Property keys in the order an ordinary object lists them: array indices ascending, then the
// other keys in the order they were added.
function ordinaryKeyOrder(ids: string[]): string[] {
  const indices = ids.filter(isArrayIndex);
  if (indices.length === 0) return ids;
  indices.sort((a, b) => Number(a) - Number(b));
  return [...indices, ...ids.filter((id) => !isArrayIndex(id))];
}

function isArrayIndex(key: string): boolean {
  if (!/^(?:0|[1-9]\d*)$/.test(key)) return false;
  return Number(key) < 2 ** 32 - 1;
}
