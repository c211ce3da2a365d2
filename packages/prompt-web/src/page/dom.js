// @ts-check
// Every element of the page is built here. Text, including every string a model or tool chose,
// enters the document only as text nodes and attribute values, never as HTML.

/** @typedef {Node | string | null | undefined | false} Child */

/**
 * Creates an element with attributes and children. Strings become text nodes.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Readonly<Record<string, string | boolean | undefined>>} [attributes]
 * @param {...Child} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    element.setAttribute(name, value === true ? "" : value);
  }
  for (const child of children) {
    if (child !== null && child !== undefined && child !== false) element.append(child);
  }
  return element;
}

let counter = 0;

/**
 * A document-unique id for labels and descriptions.
 * @param {string} prefix
 */
export function uid(prefix) {
  counter += 1;
  return `${prefix}-${counter}`;
}

/**
 * A button of type `button` that calls `onClick`.
 * @param {string} label
 * @param {() => void} onClick
 * @param {Readonly<Record<string, string | boolean | undefined>>} [attributes]
 */
export function button(label, onClick, attributes = {}) {
  const element = h("button", { type: "button", ...attributes }, label);
  element.addEventListener("click", onClick);
  return element;
}

/**
 * A labelled checkbox.
 * @param {string} label
 * @param {boolean} checked
 */
export function checkbox(label, checked) {
  const id = uid("check");
  const input = h("input", { type: "checkbox", id });
  input.checked = checked;
  const wrapper = h("div", { class: "check" }, input, h("label", { for: id }, label));
  return { wrapper, input };
}

/**
 * Pretty JSON for showing arguments and values.
 * @param {unknown} value
 */
export function prettyJson(value) {
  return JSON.stringify(value, null, 2) ?? "";
}

/**
 * `12 s`, `3 min 5 s`, `2 h 4 min`.
 * @param {number} ms
 */
export function formatDuration(ms) {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${seconds % 60} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}
