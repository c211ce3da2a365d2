import type { JsonValue } from "@jp/conversation";
import type { Answers } from "../backends/executor.js";

interface Entry {
  readonly value: JsonValue;
  /** Answered by a human at a prompt (only those can be gone back to). */
  readonly prompted: boolean;
  readonly secret: boolean;
}

/** One answer of a walk as a suspended call keeps it; a secret's value is never kept. */
export interface WalkEntryJson {
  readonly id: string;
  readonly value?: JsonValue;
  readonly prompted: boolean;
  readonly secret: boolean;
}

/** A walk as a suspended call keeps it (see {@link AnswerWalk.toJSON}). */
export interface WalkJson {
  readonly answers: readonly WalkEntryJson[];
  readonly prefill: readonly (readonly [string, JsonValue])[];
}

/**
 * The answers one tool call has collected, in the order they were given (for a form, the form's
 * order). Latest answer wins; going back drops the last human answer and everything after it.
 */
export class AnswerWalk {
  readonly #entries = new Map<string, Entry>();
  readonly #prefill = new Map<string, JsonValue>();

  /** The answers as the tool receives them. */
  snapshot(): Answers {
    return ownEntries([...this.#entries].map(([id, entry]) => [id, entry.value]));
  }

  /** Records an answer; a re-answered question moves to the end of the order. */
  set(id: string, value: JsonValue, meta: { prompted: boolean; secret: boolean }): void {
    this.#entries.delete(id);
    this.#entries.set(id, { value, ...meta });
    this.#prefill.delete(id);
  }

  /** Whether there is a human answer to go back to. */
  canGoBack(): boolean {
    for (const entry of this.#entries.values()) if (entry.prompted) return true;
    return false;
  }

  /**
   * Drops the last human answer and every answer after it, keeping the dropped answer to
   * pre-fill its question when it is asked again (never a secret's).
   */
  back(): void {
    const ids = [...this.#entries.keys()];
    let from = -1;
    ids.forEach((id, i) => {
      if (this.#entries.get(id)?.prompted === true) from = i;
    });
    if (from === -1) return;
    for (const id of ids.slice(from)) {
      const entry = this.#entries.get(id);
      if (entry !== undefined && !entry.secret) this.#prefill.set(id, entry.value);
      this.#entries.delete(id);
    }
  }

  /** The earlier answer to pre-fill when `id` is asked again after going back. */
  prefillFor(id: string): JsonValue | undefined {
    return this.#prefill.get(id);
  }

  /**
   * The walk as JSON, for a suspended call. Secret answers keep their place but not their value:
   * a resumed call asks for them again.
   */
  toJSON(): WalkJson {
    return {
      answers: [...this.#entries].map(([id, entry]) =>
        entry.secret
          ? { id, prompted: entry.prompted, secret: true }
          : { id, value: entry.value, prompted: entry.prompted, secret: false },
      ),
      prefill: [...this.#prefill],
    };
  }

  /** A walk from {@link AnswerWalk.toJSON}; secret answers (kept without value) are left out. */
  static fromJSON(json: WalkJson): AnswerWalk {
    const walk = new AnswerWalk();
    for (const entry of json.answers) {
      if (entry.secret || entry.value === undefined) continue;
      walk.#entries.set(entry.id, { value: entry.value, prompted: entry.prompted, secret: false });
    }
    for (const [id, value] of json.prefill) walk.#prefill.set(id, value);
    return walk;
  }

  /** The answers so far without secrets, for a result the model will read. */
  disclosable(): Record<string, JsonValue> {
    const open = [...this.#entries].filter(([, entry]) => !entry.secret);
    return ownEntries(open.map(([id, entry]) => [id, entry.value]));
  }
}

// Question ids come from tools (and through ask_user from the model): an id such as "__proto__"
// must become an own key, which plain assignment would not make.
function ownEntries(entries: readonly (readonly [string, JsonValue])[]): Record<string, JsonValue> {
  const out: Record<string, JsonValue> = {};
  for (const [id, value] of entries) {
    Object.defineProperty(out, id, { value, enumerable: true, writable: true, configurable: true });
  }
  return out;
}
