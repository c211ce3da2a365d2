import type { JsonValue } from "@jp/conversation";
import { answeredByDefaultNote } from "@jp/coordinator";
import { cutText } from "../cut-text.js";

// What the model reads about an answer nobody gave: no person could answer, and the detached
// `defaults` policy took the question's own default. Worded so that the model can pass it on as
// it is, and never mistake the value for the person's choice.

/** The note for the single question: `No one answered (…); the question's default was used: <value>.` */
export function singleDefaultNote(value: JsonValue): string {
  // The value as JSON, cut to 200 characters: the whole value is in the result beside the note.
  const shown = cutText(JSON.stringify(value), 200);
  return `No one answered (no person was available to answer); the question's default was used: ${shown}.`;
}

/** The note for a form's questions nobody answered, by id, in the form's order. */
export const formDefaultsNote = answeredByDefaultNote;
