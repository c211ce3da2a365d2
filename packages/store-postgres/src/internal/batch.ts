import { createHash } from "node:crypto";
import type pg from "pg";
import { isConnectionError } from "./sql.js";

/**
 * Runs the items submitted close together as one statement: items wait while a statement of
 * their kind is under way, and the next statement takes all of them (group commit). One process
 * with many turns waiting on the inbox then pays one round trip to the server, one commit and one
 * wake-up of every listening connection for many prompts, not for each. Alone, an item leaves
 * at the next turn of the event loop.
 */
interface Waiting<I, O> {
  readonly item: I;
  readonly resolve: (out: O) => void;
  readonly reject: (cause: unknown) => void;
}

export class Batcher<I, O> {
  readonly #run: (items: readonly I[]) => Promise<readonly O[]>;
  readonly #maxItems: number;
  readonly #maxInFlight: number;
  #queue: Waiting<I, O>[] = [];
  #inFlight = 0;
  #scheduled = false;

  constructor(
    run: (items: readonly I[]) => Promise<readonly O[]>,
    options: { readonly maxItems?: number; readonly maxInFlight?: number } = {},
  ) {
    this.#run = run;
    this.#maxItems = options.maxItems ?? 256;
    this.#maxInFlight = options.maxInFlight ?? 1;
  }

  /** The item's own result, from the statement that carried it. */
  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.#queue.push({ item, resolve, reject });
      this.#schedule();
    });
  }

  #schedule(): void {
    if (this.#scheduled || this.#inFlight >= this.#maxInFlight || this.#queue.length === 0) return;
    this.#scheduled = true;
    // The next turn of the event loop: every item submitted by the callbacks of one read from the
    // server (several notifications, several replies) goes in the same statement.
    const go = () => {
      this.#scheduled = false;
      while (this.#inFlight < this.#maxInFlight && this.#queue.length > 0) {
        const batch = this.#queue.splice(0, this.#maxItems);
        this.#inFlight++;
        void this.#send(batch).finally(() => {
          this.#inFlight--;
          this.#schedule();
        });
      }
    };
    setImmediate(go);
  }

  async #send(batch: Waiting<I, O>[]): Promise<void> {
    try {
      const out = await this.#run(batch.map((b) => b.item));
      for (const [i, b] of batch.entries()) b.resolve(out[i] as O);
    } catch (cause) {
      if (batch.length === 1 || isConnectionError(cause)) {
        for (const b of batch) b.reject(cause);
        return;
      }
      // One item the server refuses must not fail the others: each goes alone then.
      for (const b of batch) {
        try {
          b.resolve((await this.#run([b.item]))[0] as O);
        } catch (single) {
          b.reject(single);
        }
      }
    }
  }
}

/**
 * A named (prepared) statement: the server parses and plans it once per connection, not on every
 * call. The name is derived from the text, so two texts never share one.
 */
export function prepared(text: string): (values: unknown[]) => pg.QueryConfig<unknown[]> {
  const name = `jp_${createHash("sha1").update(text).digest("hex").slice(0, 20)}`;
  return (values) => ({ name, text, values });
}

const names = new Map<string, string>();

/**
 * A query of one of a few texts built at run time (the inbox's listing by its filters), as a
 * named statement: prepared once per connection and text, like {@link prepared}.
 */
export function named(text: string, values: unknown[]): pg.QueryConfig<unknown[]> {
  let name = names.get(text);
  if (name === undefined) {
    name = `jp_${createHash("sha1").update(text).digest("hex").slice(0, 20)}`;
    // The texts are few (one per combination of filters); the bound only guards against misuse.
    if (names.size < 1_000) names.set(text, name);
  }
  return { name, text, values };
}
