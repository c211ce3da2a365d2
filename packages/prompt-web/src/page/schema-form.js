// @ts-check
// A form generated from a question's JSON Schema. It checks what it can in the page (required
// fields, types, enums, lengths, ranges; not patterns, which may take minutes on a hostile
// schema); the server checks the whole answer again with the SDK's validator, `pattern` under a
// time limit, and its problems come back by field. Parts of a schema that have no
// natural input (unions, references, nested arrays) become a JSON text field.
import { h, uid } from "./dom.js";
import { isRecord, kindOf, numberProblem, stringProblem } from "./schema-checks.js";

/** @typedef {{ readonly [key: string]: unknown }} Schema */
/** @typedef {{ ok: true, present: boolean, value?: unknown } | { ok: false }} Read */

/**
 * @typedef {object} Field
 * @property {string} path The JSON pointer of the value this field edits.
 * @property {HTMLElement} element
 * @property {HTMLElement | undefined} focusTarget
 * @property {() => Read} read Reads the value, showing the page's own problems beside the field.
 * @property {(message: string) => void} showError
 * @property {() => void} clearError
 */

/**
 * @typedef {object} SchemaForm
 * @property {HTMLElement} element
 * @property {() => Read} read
 * @property {(problems: readonly { path: string, message: string }[]) => void} showProblems
 */

/**
 * @param {Schema} schema
 * @param {unknown} initial The value to pre-fill (an earlier answer or the question's default).
 * @returns {SchemaForm}
 */
export function schemaForm(schema, initial) {
  /** @type {Map<string, Field>} */
  const fields = new Map();
  const root = buildField(schema, {
    path: "",
    label: typeof schema.title === "string" ? schema.title : "Answer",
    required: true,
    initial: initial ?? schema.default,
    fields,
  });
  return {
    element: root.element,
    read() {
      for (const field of fields.values()) field.clearError();
      const result = root.read();
      if (!result.ok) {
        const invalid = root.element.querySelector('[aria-invalid="true"]');
        if (invalid instanceof HTMLElement) invalid.focus();
      }
      return result;
    },
    showProblems(problems) {
      let first;
      for (const problem of problems) {
        const field = nearestField(fields, problem.path);
        field.showError(problem.message);
        first ??= field;
      }
      first?.focusTarget?.focus();
    },
  };
}

/**
 * @param {Map<string, Field>} fields
 * @param {string} path
 * @returns {Field}
 */
function nearestField(fields, path) {
  for (let at = path; ; at = at.slice(0, Math.max(0, at.lastIndexOf("/")))) {
    const field = fields.get(at);
    if (field !== undefined) return field;
    if (at === "") break;
  }
  return /** @type {Field} */ (fields.get(""));
}

/**
 * @typedef {object} Place
 * @property {string} path
 * @property {string} label
 * @property {boolean} required
 * @property {unknown} initial
 * @property {Map<string, Field>} fields
 */

/**
 * @param {Schema} schema
 * @param {Place} place
 * @returns {Field}
 */
function buildField(schema, place) {
  const kind = kindOf(schema);
  const field =
    kind === "object"
      ? objectField(schema, place)
      : kind === "enum"
        ? enumField(schema, place)
        : kind === "string"
          ? textField(schema, place, "string")
          : kind === "number" || kind === "integer"
            ? textField(schema, place, kind)
            : kind === "boolean"
              ? booleanField(schema, place)
              : kind === "choices"
                ? choicesField(schema, place)
                : jsonField(schema, place);
  place.fields.set(place.path, field);
  return field;
}

/**
 * The label, description and error slot every field shares.
 * @param {Schema} schema
 * @param {Place} place
 */
function decorations(schema, place) {
  const id = uid("field");
  const description =
    typeof schema.description === "string" && schema.description !== ""
      ? h("p", { class: "hint", id: `${id}-hint` }, schema.description)
      : undefined;
  const error = h("p", { class: "field-error", id: `${id}-error`, hidden: true });
  const describedBy = [description?.id, error.id].filter(Boolean).join(" ");
  const labelText = place.required ? place.label : `${place.label} (optional)`;
  return { id, description, error, describedBy, labelText };
}

/**
 * @param {HTMLElement} error
 * @param {HTMLElement} invalidTarget
 * @returns {Pick<Field, "showError" | "clearError">}
 */
function errorSlot(error, invalidTarget) {
  return {
    showError(message) {
      error.textContent = message;
      error.hidden = false;
      invalidTarget.setAttribute("aria-invalid", "true");
    },
    clearError() {
      error.textContent = "";
      error.hidden = true;
      invalidTarget.removeAttribute("aria-invalid");
    },
  };
}

/**
 * @param {Schema} schema
 * @param {Place} place
 * @returns {Field}
 */
function objectField(schema, place) {
  const { description, error, labelText } = decorations(schema, place);
  const properties = /** @type {Record<string, Schema>} */ (schema.properties);
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const initial = isRecord(place.initial) ? place.initial : {};
  const children = Object.entries(properties).map(([key, child]) => ({
    key,
    field: buildField(isRecord(child) ? child : {}, {
      path: `${place.path}/${key.replaceAll("~", "~0").replaceAll("/", "~1")}`,
      label: isRecord(child) && typeof child.title === "string" ? child.title : key,
      required: required.has(key),
      // Own properties only: `initial.__proto__` would be the prototype, not an earlier answer.
      initial:
        (Object.hasOwn(initial, key) ? initial[key] : undefined) ??
        (isRecord(child) ? child.default : undefined),
      fields: place.fields,
    }),
  }));
  const element = h(
    "fieldset",
    { class: place.path === "" ? "schema-root" : "schema-object" },
    h("legend", {}, labelText),
    description,
    error,
    ...children.map((child) => child.field.element),
  );
  return {
    path: place.path,
    element,
    focusTarget: children[0]?.field.focusTarget,
    ...errorSlot(error, element),
    read() {
      /** @type {Record<string, unknown>} */
      const value = {};
      let ok = true;
      for (const { key, field } of children) {
        const read = field.read();
        if (!read.ok) ok = false;
        // Defined, not assigned: assigning to `__proto__` would set the prototype and drop what
        // the person typed for a property of that name.
        else if (read.present) {
          Object.defineProperty(value, key, {
            value: read.value,
            enumerable: true,
            writable: true,
            configurable: true,
          });
        }
      }
      if (!ok) return { ok: false };
      const present = place.required || Object.keys(value).length > 0;
      return present ? { ok: true, present, value } : { ok: true, present };
    },
  };
}

/**
 * @param {Schema} schema
 * @param {Place} place
 * @returns {Field}
 */
function enumField(schema, place) {
  const { id, description, error, describedBy, labelText } = decorations(schema, place);
  const options = /** @type {string[]} */ (schema.enum);
  const select = h(
    "select",
    { id, "aria-describedby": describedBy },
    h("option", { value: "" }, "— choose —"),
    ...options.map((option, index) => h("option", { value: String(index) }, option)),
  );
  const chosen = typeof place.initial === "string" ? options.indexOf(place.initial) : -1;
  select.value = chosen === -1 ? "" : String(chosen);
  const slot = errorSlot(error, select);
  return {
    path: place.path,
    element: h(
      "div",
      { class: "field" },
      h("label", { for: id }, labelText),
      description,
      select,
      error,
    ),
    focusTarget: select,
    ...slot,
    read() {
      if (select.value === "") {
        if (!place.required) return { ok: true, present: false };
        slot.showError("Choose one of the options.");
        return { ok: false };
      }
      return { ok: true, present: true, value: options[Number(select.value)] };
    },
  };
}

/**
 * A text or number input.
 * @param {Schema} schema
 * @param {Place} place
 * @param {"string" | "number" | "integer"} type
 * @returns {Field}
 */
function textField(schema, place, type) {
  const { id, description, error, describedBy, labelText } = decorations(schema, place);
  const numeric = type !== "string";
  const input = h("input", {
    id,
    type: numeric ? "number" : "text",
    step: type === "integer" ? "1" : numeric ? "any" : undefined,
    inputmode: type === "integer" ? "numeric" : numeric ? "decimal" : undefined,
    autocomplete: "off",
    "aria-describedby": describedBy,
  });
  if (typeof place.initial === (numeric ? "number" : "string")) input.value = String(place.initial);
  const slot = errorSlot(error, input);
  const fail = (/** @type {string} */ message) => {
    slot.showError(message);
    return /** @type {Read} */ ({ ok: false });
  };
  return {
    path: place.path,
    element: h(
      "div",
      { class: "field" },
      h("label", { for: id }, labelText),
      description,
      input,
      error,
    ),
    focusTarget: input,
    ...slot,
    read() {
      const text = input.value;
      if (text === "" && !(numeric && input.validity.badInput)) {
        return place.required ? fail("This field is required.") : { ok: true, present: false };
      }
      if (!numeric) {
        const problem = stringProblem(schema, text);
        return problem === undefined ? { ok: true, present: true, value: text } : fail(problem);
      }
      const value = Number(text);
      if (text === "" || !Number.isFinite(value)) return fail("Enter a number.");
      const problem = numberProblem(schema, value, type === "integer");
      return problem === undefined ? { ok: true, present: true, value } : fail(problem);
    },
  };
}

/**
 * @param {Schema} schema
 * @param {Place} place
 * @returns {Field}
 */
function booleanField(schema, place) {
  const { id, description, error, describedBy } = decorations(schema, place);
  const input = h("input", { id, type: "checkbox", "aria-describedby": describedBy });
  input.checked = place.initial === true;
  return {
    path: place.path,
    element: h(
      "div",
      { class: "field check" },
      input,
      h("label", { for: id }, place.label),
      description,
      error,
    ),
    focusTarget: input,
    ...errorSlot(error, input),
    read: () => ({ ok: true, present: true, value: input.checked }),
  };
}

/**
 * An array of distinct strings from a list: a group of checkboxes.
 * @param {Schema} schema
 * @param {Place} place
 * @returns {Field}
 */
function choicesField(schema, place) {
  const { description, error, labelText } = decorations(schema, place);
  const items = /** @type {Schema} */ (schema.items);
  const options = /** @type {string[]} */ (items.enum);
  const chosen = Array.isArray(place.initial) ? place.initial : [];
  const boxes = options.map((option) => {
    const id = uid("choice");
    const input = h("input", { type: "checkbox", id });
    input.checked = chosen.includes(option);
    return {
      option,
      input,
      element: h("div", { class: "check" }, input, h("label", { for: id }, option)),
    };
  });
  const element = h(
    "fieldset",
    { class: "field choices" },
    h("legend", {}, labelText),
    description,
    ...boxes.map((box) => box.element),
    error,
  );
  const slot = errorSlot(error, element);
  return {
    path: place.path,
    element,
    focusTarget: boxes[0]?.input,
    ...slot,
    read() {
      const value = boxes.filter((box) => box.input.checked).map((box) => box.option);
      if (value.length === 0 && !place.required) return { ok: true, present: false };
      const { minItems, maxItems } = schema;
      if (typeof minItems === "number" && value.length < minItems) {
        slot.showError(`Choose at least ${minItems}.`);
        return { ok: false };
      }
      if (typeof maxItems === "number" && value.length > maxItems) {
        slot.showError(`Choose at most ${maxItems}.`);
        return { ok: false };
      }
      return { ok: true, present: true, value };
    },
  };
}

/**
 * Anything else: the value as JSON text.
 * @param {Schema} schema
 * @param {Place} place
 * @returns {Field}
 */
function jsonField(schema, place) {
  const { id, description, error, describedBy, labelText } = decorations(schema, place);
  const area = h("textarea", {
    id,
    rows: "4",
    spellcheck: "false",
    autocomplete: "off",
    "aria-describedby": describedBy,
  });
  if (place.initial !== undefined) area.value = JSON.stringify(place.initial, null, 2);
  const slot = errorSlot(error, area);
  return {
    path: place.path,
    element: h(
      "div",
      { class: "field" },
      h("label", { for: id }, `${labelText} (JSON)`),
      description,
      area,
      error,
    ),
    focusTarget: area,
    ...slot,
    read() {
      if (area.value.trim() === "") {
        if (!place.required) return { ok: true, present: false };
        slot.showError("This field is required (as JSON).");
        return { ok: false };
      }
      try {
        return { ok: true, present: true, value: JSON.parse(area.value) };
      } catch (cause) {
        slot.showError(`Not valid JSON: ${cause instanceof Error ? cause.message : "parse error"}`);
        return { ok: false };
      }
    },
  };
}
