import type { JsonValue } from "@jp/conversation";
import { cutText } from "../cut-text.js";

// What the model reads about an answer nobody gave: no person could answer, and the detached
// `defaults` policy took the question's own default. Worded so that the model can pass it on as
// it is, and never mistake the value for the person's choice.

const WHY = "(no person was available to answer)";
// A note names this many answers at most; every one is in the result beside it.
const LISTS_UP_TO = 20;

/** The note for the single question: `No one answered (…); the question's default was used: <value>.` */
export function singleDefaultNote(value: JsonValue): string {
  return `No one answered ${WHY}; the question's default was used: ${valueText(value)}.`;
}

/** The note for a form's questions nobody answered, by id, in the form's order. */
export function formDefaultsNote(answers: readonly (readonly [string, JsonValue])[]): string {
  if (answers.length === 1) {
    const [id, value] = answers[0] as readonly [string, JsonValue];
    return `No one answered ${JSON.stringify(id)} ${WHY}; the question's default was used: ${valueText(value)}.`;
  }
  const shown = answers.slice(0, LISTS_UP_TO);
  const more = answers.length - shown.length;
  const ids = listed(
    shown.map(([id]) => JSON.stringify(id)),
    more,
  );
  const values = listed(
    shown.map(([id, value]) => `${JSON.stringify(id)} = ${valueText(value)}`),
    more,
  );
  return `No one answered ${ids} ${WHY}; each question's default was used: ${values}.`;
}

// "a, b and c"; "a, b, c and 2 more" when `more` were left out.
function listed(items: readonly string[], more: number): string {
  const all = more > 0 ? [...items, `${more} more`] : items;
  return all.length === 1
    ? (all[0] as string)
    : `${all.slice(0, -1).join(", ")} and ${all.at(-1) as string}`;
}

// The value as JSON, cut to 200 characters: the whole value is in the result beside the note.
function valueText(value: JsonValue): string {
  return cutText(JSON.stringify(value), 200);
}
