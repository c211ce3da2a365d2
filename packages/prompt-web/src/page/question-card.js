// @ts-check
// A tool's question: the answer input for its answer type, and the form controls it offers
// (remember for this turn, Back, Reply with a message, End Turn).
import { actions, cancelButton, cardFrame, panel, textArea } from "./card-parts.js";
import { button, checkbox, h, uid } from "./dom.js";
import { schemaForm } from "./schema-form.js";

/** @typedef {import("@jp/coordinator").QuestionPromptRequest} QuestionPromptRequest */
/** @typedef {import("./card-parts.js").Card} Card */
/** @typedef {import("./card-parts.js").CardFrame} CardFrame */
/** @typedef {import("./api.js").SendResult} SendResult */
/** @typedef {import("../internal/reply-check.js").ReplyProblem} ReplyProblem */

/**
 * What an answer input offers the card: its elements, how to read its value (showing the page's
 * own problems), and how to show the server's.
 * @typedef {object} AnswerInput
 * @property {HTMLElement[]} elements
 * @property {HTMLElement | undefined} focusTarget
 * @property {() => { ok: true, value: unknown } | { ok: false }} read
 * @property {(problem: ReplyProblem) => void} showProblem
 * @property {boolean} [ownButtons] The input answers with its own buttons (yes/no).
 * @property {() => void} [dispose]
 */

/** Why a stored prompt's secret has no field, in the words of the server's refusal. */
export const SECRET_NOT_STORED =
  "A secret is never stored, so it cannot be answered here: it is asked when the turn resumes with someone at a live prompt.";

/**
 * @param {QuestionPromptRequest} request
 * @param {(reply: unknown) => Promise<SendResult>} send
 * @param {{ stored?: boolean }} [options] `stored`: the prompt waits in a store, where a secret's
 *   answer never goes, so a secret question offers no field.
 * @returns {Card}
 */
export function questionCard(request, send, options = {}) {
  const { question, controls } = request;
  const frame = cardFrame({ kind: "question", heading: h("h3", {}, question.text), send });
  frame.heading.before(questionMeta(request));
  const storedSecret = options.stored === true && question.answer_type.type === "secret";
  const prefill =
    question.answer_type.type === "secret" ? undefined : (request.initial ?? question.default);
  const remember =
    controls.remember && !storedSecret ? checkbox("Remember for this turn", false) : undefined;
  /** @param {unknown} value */
  const answer = (value) =>
    frame.submit(
      remember?.input.checked === true
        ? { type: "answer", value, remember: true }
        : { type: "answer", value },
      (problem) => {
        input.showProblem(problem);
        return true;
      },
    );
  const input = storedSecret ? secretNote() : answerInput(question.answer_type, prefill, answer);
  const form = h(
    "form",
    { class: "answer", novalidate: true, "aria-labelledby": frame.heading.id },
    // Remember modifies the answer buttons of a yes/no question, so it comes before them.
    input.ownButtons === true ? remember?.wrapper : undefined,
    ...input.elements,
    input.ownButtons === true ? undefined : remember?.wrapper,
    input.ownButtons === true
      ? undefined
      : actions(h("button", { type: "submit", class: "primary" }, "Answer")),
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const read = input.read();
    if (read.ok && (await answer(read.value))) input.dispose?.();
  });
  frame.append(
    question.context ? h("p", { class: "context" }, question.context) : undefined,
    request.error
      ? h("p", { class: "rejected", role: "alert" }, `Previous answer rejected: ${request.error}`)
      : undefined,
    form,
    ...formControls(frame, controls),
  );
  return {
    element: frame.element,
    focus: () => (input.focusTarget ?? frame.heading).focus(),
    dispose: () => input.dispose?.(),
  };
}

/**
 * `Assistant · [2/3] · ask_user`
 * @param {QuestionPromptRequest} request
 */
function questionMeta(request) {
  const { prompt_label: label, progress, tool_name: tool } = request;
  return h(
    "p",
    { class: "meta" },
    label ? h("span", { class: "label" }, label) : undefined,
    progress && progress.total > 1
      ? h(
          "span",
          { class: "progress", "aria-label": `question ${progress.index} of ${progress.total}` },
          `[${progress.index}/${progress.total}]`,
        )
      : undefined,
    h("span", { class: "tool" }, "asked by ", h("code", {}, tool)),
  );
}

/**
 * Back, Reply (with a message) and End Turn, as offered, and Cancel.
 * @param {CardFrame} frame
 * @param {QuestionPromptRequest["controls"]} controls
 */
function formControls(frame, controls) {
  const message = textArea("Message to the assistant (optional)");
  const replyPanel = panel(
    "Reply to the assistant",
    message.element,
    actions(
      button(
        "Send reply",
        () => {
          const text = message.area.value;
          void frame.submit(
            text.trim() === "" ? { type: "reply" } : { type: "reply", message: text },
          );
        },
        { class: "primary" },
      ),
      button("Close", () => replyPanel.close(), { class: "quiet" }),
    ),
  );
  const row = actions(
    controls.back ? button("Back", () => void frame.submit({ type: "back" })) : undefined,
    controls.reply ? button("Reply…", () => replyPanel.open(message.area)) : undefined,
    controls.end_turn
      ? button("End Turn", () => void frame.submit({ type: "end_turn" }))
      : undefined,
    cancelButton(frame),
  );
  row.classList.add("controls");
  return [row, controls.reply ? replyPanel.element : undefined];
}

/**
 * @param {QuestionPromptRequest["question"]["answer_type"]} answerType
 * @param {unknown} prefill
 * @param {(value: unknown) => Promise<boolean>} answer
 * @returns {AnswerInput}
 */
function answerInput(answerType, prefill, answer) {
  switch (answerType.type) {
    case "boolean":
      return booleanInput(prefill, answer);
    case "select":
      return optionsInput(answerType.options, prefill, "radio");
    case "multi_select":
      return optionsInput(answerType.options, prefill, "checkbox");
    case "text":
      return lineInput("Your answer", typeof prefill === "string" ? prefill : "", "text");
    case "secret":
      return lineInput("Your answer (hidden)", "", "password");
    case "schema":
      return schemaInput(answerType.schema, prefill);
  }
}

/**
 * In place of a stored secret's field: why it is not asked here.
 * @returns {AnswerInput}
 */
function secretNote() {
  const error = errorLine(uid("error"));
  const note = h("p", { class: "secret-note" }, SECRET_NOT_STORED);
  return {
    elements: [note, error],
    focusTarget: undefined,
    ownButtons: true,
    read: () => ({ ok: false }),
    showProblem: (problem) => showError(error, note, problem.message),
  };
}

/**
 * @param {string} id
 */
function errorLine(id) {
  return h("p", { class: "field-error", id, role: "alert", hidden: true });
}

/**
 * @param {HTMLElement} error
 * @param {HTMLElement} target
 * @param {string} message
 */
function showError(error, target, message) {
  error.textContent = message;
  error.hidden = false;
  target.setAttribute("aria-invalid", "true");
  if (target instanceof HTMLInputElement || target instanceof HTMLTextAreaElement) target.focus();
}

/**
 * Yes and No buttons; the default (an earlier answer or the question's) is marked and focused.
 * @param {unknown} prefill
 * @param {(value: unknown) => Promise<boolean>} answer
 * @returns {AnswerInput}
 */
function booleanInput(prefill, answer) {
  const error = errorLine(uid("error"));
  const yes = button(prefill === true ? "Yes (default)" : "Yes", () => void answer(true), {
    class: prefill === true ? "primary" : undefined,
  });
  const no = button(prefill === false ? "No (default)" : "No", () => void answer(false), {
    class: prefill === false ? "primary" : undefined,
  });
  return {
    elements: [actions(yes, no), error],
    focusTarget: prefill === false ? no : yes,
    ownButtons: true,
    read: () => ({ ok: false }),
    showProblem: (problem) => showError(error, yes, problem.message),
  };
}

/**
 * Radio buttons (select) or checkboxes (multi_select) in a labelled group.
 * @param {readonly string[]} options
 * @param {unknown} prefill
 * @param {"radio" | "checkbox"} type
 * @returns {AnswerInput}
 */
function optionsInput(options, prefill, type) {
  const name = uid("options");
  const error = errorLine(`${name}-error`);
  const chosen = type === "radio" ? [prefill] : Array.isArray(prefill) ? prefill : [];
  const inputs = options.map((option) => {
    const id = uid("option");
    const input = h("input", { type, id, name });
    input.checked = chosen.includes(option);
    return {
      option,
      input,
      element: h("div", { class: "check" }, input, h("label", { for: id }, option)),
    };
  });
  const group = h(
    "fieldset",
    { class: "options", "aria-describedby": error.id },
    h("legend", {}, type === "radio" ? "Choose one" : "Choose any"),
    ...inputs.map((entry) => entry.element),
  );
  return {
    elements: [group, error],
    focusTarget: (inputs.find((entry) => entry.input.checked) ?? inputs[0])?.input,
    read() {
      const picked = inputs.filter((entry) => entry.input.checked).map((entry) => entry.option);
      if (type === "checkbox") return { ok: true, value: picked };
      if (picked[0] === undefined) {
        showError(error, group, "Choose one of the options.");
        inputs[0]?.input.focus();
        return { ok: false };
      }
      return { ok: true, value: picked[0] };
    },
    showProblem: (problem) => showError(error, group, problem.message),
  };
}

/**
 * A one-line text field; for a secret, a password field that is never pre-filled, never
 * remembered by the browser and emptied once sent.
 * @param {string} label
 * @param {string} value
 * @param {"text" | "password"} type
 * @returns {AnswerInput}
 */
function lineInput(label, value, type) {
  const id = uid("answer");
  const error = errorLine(`${id}-error`);
  const input = h("input", {
    id,
    type,
    autocomplete: "off",
    autocapitalize: "off",
    spellcheck: "false",
    "aria-describedby": error.id,
  });
  input.value = value;
  return {
    elements: [h("div", { class: "field" }, h("label", { for: id }, label), input), error],
    focusTarget: input,
    read: () => ({ ok: true, value: input.value }),
    showProblem: (problem) => showError(error, input, problem.message),
    dispose() {
      if (type === "password") input.value = "";
    },
  };
}

/**
 * @param {{ readonly [key: string]: unknown }} schema
 * @param {unknown} prefill
 * @returns {AnswerInput}
 */
function schemaInput(schema, prefill) {
  const form = schemaForm(schema, prefill);
  return {
    elements: [form.element],
    focusTarget: /** @type {HTMLElement | undefined} */ (
      form.element.querySelector("input, select, textarea") ?? undefined
    ),
    read() {
      const read = form.read();
      return read.ok ? { ok: true, value: read.value } : { ok: false };
    },
    showProblem: (problem) =>
      form.showProblems(problem.fields ?? [{ path: "", message: problem.message }]),
  };
}
