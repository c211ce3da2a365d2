// @ts-check
// What every prompt card shares: the frame, the busy state while a reply is sent, the status
// line, and panels that open for a second step (a reply message, a reason, an editor).
import { button, h, uid } from "./dom.js";

/** @typedef {import("./api.js").SendResult} SendResult */
/** @typedef {import("../internal/reply-check.js").ReplyProblem} ReplyProblem */

/**
 * @typedef {object} Card
 * @property {HTMLElement} element
 * @property {() => void} focus Puts the keyboard on the card's first sensible control.
 * @property {() => void} dispose Clears what the person typed (a secret) before the card goes.
 */

/**
 * @typedef {object} CardFrame
 * @property {HTMLElement} element
 * @property {HTMLElement} heading
 * @property {(...body: (HTMLElement | undefined | false)[]) => void} append Adds to the card's body.
 * @property {(reply: unknown, onProblem?: (problem: ReplyProblem) => boolean) => Promise<boolean>} submit
 *   Sends a reply; resolves `true` once the server accepted it. `onProblem` may show a refusal
 *   beside a field (returning `true`); otherwise it is shown in the status line.
 */

/**
 * The frame of a card: an article labelled by its heading, with a status line at the end.
 * @param {{ kind: string, heading: HTMLElement, send: (reply: unknown) => Promise<SendResult> }} options
 * @returns {CardFrame}
 */
export function cardFrame({ kind, heading, send }) {
  const headingId = uid("prompt");
  heading.id = headingId;
  heading.tabIndex = -1;
  const status = h("p", { class: "status", role: "status", "aria-live": "polite" });
  const element = h(
    "article",
    { class: `prompt prompt-${kind}`, "aria-labelledby": headingId, "data-kind": kind },
    heading,
    status,
  );
  const setBusy = (/** @type {boolean} */ busy) => {
    element.setAttribute("aria-busy", String(busy));
    for (const control of element.querySelectorAll("button")) control.disabled = busy;
  };
  return {
    element,
    heading,
    append(...body) {
      for (const part of body) if (part) status.before(part);
    },
    async submit(reply, onProblem) {
      setBusy(true);
      status.textContent = "Sending…";
      status.className = "status";
      const result = await send(reply);
      if (result.type === "accepted") {
        status.textContent = "Sent.";
        return true;
      }
      setBusy(false);
      if (result.type === "offline") {
        showStatusError(status, "Could not reach the server. Check the connection and try again.");
      } else if (onProblem?.(result.problem) === true) {
        status.textContent = "";
      } else {
        showStatusError(status, result.problem.message);
      }
      return false;
    },
  };
}

/**
 * @param {HTMLElement} status
 * @param {string} message
 */
function showStatusError(status, message) {
  status.textContent = message;
  status.className = "status status-error";
}

/**
 * A panel that stays hidden until its opener is pressed, e.g. "Reply…".
 * @param {string} label Accessible name of the panel.
 * @param {...HTMLElement} children
 */
export function panel(label, ...children) {
  const element = h(
    "div",
    { class: "panel", role: "group", "aria-label": label, hidden: true },
    ...children,
  );
  return {
    element,
    /** @param {HTMLElement | undefined} focusTarget */
    open(focusTarget) {
      element.hidden = false;
      focusTarget?.focus();
    },
    close() {
      element.hidden = true;
    },
  };
}

/**
 * A labelled multi-line text field.
 * @param {string} label
 * @param {{ value?: string, rows?: number, code?: boolean }} [options]
 */
export function textArea(label, options = {}) {
  const id = uid("text");
  const error = h("p", { class: "field-error", id: `${id}-error`, hidden: true });
  const area = h("textarea", {
    id,
    rows: String(options.rows ?? 3),
    class: options.code === true ? "code" : undefined,
    spellcheck: options.code === true ? "false" : undefined,
    "aria-describedby": error.id,
  });
  area.value = options.value ?? "";
  return {
    area,
    element: h("div", { class: "field" }, h("label", { for: id }, label), area, error),
    /** @param {string | undefined} message */
    setError(message) {
      error.textContent = message ?? "";
      error.hidden = message === undefined;
      if (message === undefined) area.removeAttribute("aria-invalid");
      else area.setAttribute("aria-invalid", "true");
    },
  };
}

/**
 * A row of buttons.
 * @param {...(HTMLElement | undefined | false)} buttons
 */
export function actions(...buttons) {
  return h("div", { class: "actions" }, ...buttons);
}

/**
 * The "Cancel" button every card has: the person dismisses the prompt without an answer.
 * @param {CardFrame} frame
 */
export function cancelButton(frame) {
  return button("Cancel", () => void frame.submit({ type: "cancelled" }), { class: "quiet" });
}
