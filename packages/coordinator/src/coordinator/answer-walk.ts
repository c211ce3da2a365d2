import type { JsonValue } from "@jp/conversation";
import type { Answers } from "../backends/executor.js";
import { AnswerLog, answeredByDefaultView, answersView } from "./answers-view.js";

/** How an answer was given. */
interface Given {
  /** Answered by a human at a prompt (only those can be gone back to). */
  readonly prompted: boolean;
  readonly secret: boolean;
  /**
   * Nobody gave it: the detached `defaults` policy took the question's own default because no
   * person could answer.
   */
  readonly byDefault?: boolean;
}

/** One answer of a walk as a suspended call keeps it; a secret's value is never kept. */
export interface WalkEntryJson {
  readonly id: string;
  readonly value?: JsonValue;
  readonly prompted: boolean;
  readonly secret: boolean;
}

interface Entry {
  readonly id: string;
  readonly value: JsonValue;
  readonly prompted: boolean;
  readonly secret: boolean;
  readonly byDefault: boolean;
}

/** A walk as a suspended call keeps it (see {@link AnswerWalk.toJSON}). */
export interface WalkJson {
  readonly answers: readonly WalkEntryJson[];
  readonly prefill: readonly (readonly [string, JsonValue])[];
}

/**
 * The answers one tool call has collected, in the order they were given (for a form, the form's
 * order). Latest answer wins; going back drops the last human answer and everything after it.
 * Recording an answer and handing the answers to the tool's next pass cost the same at the
 * thousandth answer as at the first.
 */
export class AnswerWalk {
  // The answers, as an append-only log that the views handed to the tool share. Going back or
  // replacing an answer starts a new log, so an earlier pass's answers never change under it.
  #log = new AnswerLog();
  #given: Given[] = [];
  /** How many answers in the log were given at a prompt. */
  #prompted = 0;
  // Made when Back first keeps answers to pre-fill: most calls never go back.
  #prefill: Map<string, JsonValue> | undefined;

  /** How many answers the walk holds. */
  get size(): number {
    return this.#given.length;
  }

  /** The answers as the tool receives them: a view that later answers do not change. */
  snapshot(): Answers {
    return answersView(this.#log, this.#given.length);
  }

  /** The ids of the answers in {@link snapshot} that nobody gave, as later answers leave them. */
  answeredByDefault(): ReadonlySet<string> {
    return answeredByDefaultView(this.#log, this.#given.length);
  }

  /** Records an answer; a re-answered question moves to the end of the order. */
  set(id: string, value: JsonValue, meta: Given): void {
    if (this.#log.positionOf(id, this.#given.length) !== undefined) {
      this.#keep((other) => other !== id);
    }
    const byDefault = meta.byDefault === true;
    this.#log.push(id, value, byDefault);
    this.#given.push({ prompted: meta.prompted, secret: meta.secret, byDefault });
    if (meta.prompted) this.#prompted++;
    this.#prefill?.delete(id);
  }

  /** Whether there is a human answer to go back to. */
  canGoBack(): boolean {
    return this.#prompted > 0;
  }

  /**
   * Drops the last human answer and every answer after it, keeping the dropped answer to
   * pre-fill its question when it is asked again (never a secret's).
   */
  back(): void {
    let from = this.#given.length - 1;
    while (from >= 0 && this.#given[from]?.prompted !== true) from--;
    if (from === -1) return;
    for (let i = from; i < this.#given.length; i++) {
      if (this.#given[i]?.secret !== true) {
        this.#prefill ??= new Map();
        this.#prefill.set(this.#log.ids[i] as string, this.#log.values[i] as JsonValue);
      }
    }
    this.#keep((_, i) => i < from);
  }

  // Starts a new log with the answers that `keep` keeps, in their order.
  #keep(keep: (id: string, index: number) => boolean): void {
    const log = new AnswerLog();
    const given: Given[] = [];
    let prompted = 0;
    for (let i = 0; i < this.#given.length; i++) {
      const id = this.#log.ids[i] as string;
      const meta = this.#given[i] as Given;
      if (!keep(id, i)) continue;
      log.push(id, this.#log.values[i] as JsonValue, meta.byDefault === true);
      given.push(meta);
      if (meta.prompted) prompted++;
    }
    this.#log = log;
    this.#given = given;
    this.#prompted = prompted;
  }

  /** The earlier answer to pre-fill when `id` is asked again after going back. */
  prefillFor(id: string): JsonValue | undefined {
    return this.#prefill?.get(id);
  }

  #entries(): Entry[] {
    return this.#given.map((meta, i) => ({
      id: this.#log.ids[i] as string,
      value: this.#log.values[i] as JsonValue,
      prompted: meta.prompted,
      secret: meta.secret,
      byDefault: meta.byDefault === true,
    }));
  }

  /**
   * The walk as JSON, for a suspended call. Secret answers keep their place but not their value:
   * a resumed call asks for them again.
   */
  toJSON(): WalkJson {
    return {
      answers: this.#entries().map(({ id, value, prompted, secret }) =>
        secret ? { id, prompted, secret: true } : { id, value, prompted, secret: false },
      ),
      prefill: this.#prefill === undefined ? [] : [...this.#prefill],
    };
  }

  /**
   * A walk from {@link AnswerWalk.toJSON}; secret answers (kept without value) are left out.
   * `byDefault` names the questions whose recorded answer nobody gave (their `inquiry_response`
   * says `answered_by: "default"`): the walk's JSON does not say who answered, the record does.
   */
  static fromJSON(json: WalkJson, byDefault?: ReadonlySet<string>): AnswerWalk {
    const walk = new AnswerWalk();
    for (const entry of json.answers) {
      if (entry.secret || entry.value === undefined) continue;
      walk.set(entry.id, entry.value, {
        prompted: entry.prompted,
        secret: false,
        byDefault: !entry.prompted && byDefault?.has(entry.id) === true,
      });
    }
    if (json.prefill.length > 0) walk.#prefill = new Map(json.prefill);
    return walk;
  }

  /**
   * The answers so far that nobody gave (taken from the question's default), without secrets, in
   * the order they were given: a result the model reads must not pass them off as a person's.
   */
  disclosableByDefault(): [string, JsonValue][] {
    if (this.#log.byDefault[this.#given.length] === 0) return [];
    return this.#entries().flatMap(({ id, value, secret, byDefault }) =>
      byDefault && !secret ? [[id, value] as [string, JsonValue]] : [],
    );
  }

  /** The answers so far without secrets, for a result the model will read. */
  disclosable(): Record<string, JsonValue> {
    const out: Record<string, JsonValue> = {};
    for (const { id, value, secret } of this.#entries()) {
      // Question ids come from tools (and through ask_user from the model): an id such as
      // "__proto__" must become an own key, which plain assignment would not make.
      if (!secret) {
        Object.defineProperty(out, id, {
          value,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
    }
    return out;
  }
}
