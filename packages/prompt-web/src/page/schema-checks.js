// @ts-check
// What the page itself checks of a schema answer, and which input each part of a schema gets.
// The server checks the whole answer again with the SDK's validator; these checks only let the
// person correct the obvious at once.

/** @typedef {{ readonly [key: string]: unknown }} Schema */

/**
 * Which input a schema gets.
 * @param {Schema} schema
 */
export function kindOf(schema) {
  if (Array.isArray(schema.enum)) {
    return schema.enum.length > 0 && schema.enum.every((v) => typeof v === "string")
      ? "enum"
      : "json";
  }
  if (["oneOf", "anyOf", "allOf", "$ref", "const", "not", "if"].some((key) => key in schema)) {
    return "json";
  }
  const types = (Array.isArray(schema.type) ? schema.type : [schema.type]).filter(
    (type) => type !== "null" && type !== undefined,
  );
  const [type] = types;
  if (types.length > 1) return "json";
  if (type === undefined) return isRecord(schema.properties) ? "object" : "json";
  if (type === "object") return isRecord(schema.properties) ? "object" : "json";
  if (type === "array") {
    const items = isRecord(schema.items) ? schema.items : {};
    return Array.isArray(items.enum) && items.enum.every((v) => typeof v === "string")
      ? "choices"
      : "json";
  }
  return typeof type === "string" ? type : "json";
}

/**
 * @param {Schema} schema
 * @param {string} text
 */
export function stringProblem(schema, text) {
  const length = [...text].length;
  if (typeof schema.minLength === "number" && length < schema.minLength) {
    return `Use at least ${schema.minLength} characters.`;
  }
  if (typeof schema.maxLength === "number" && length > schema.maxLength) {
    return `Use at most ${schema.maxLength} characters.`;
  }
  // A `pattern` is not tested here: it comes from a model or an MCP server, and a pattern such
  // as `^(a+)+$` runs for minutes on a short answer, freezing the person's tab. The server tests
  // it under a time limit and shows its problem next to the field.
  return undefined;
}

/**
 * @param {Schema} schema
 * @param {number} value
 * @param {boolean} integer
 */
export function numberProblem(schema, value, integer) {
  if (integer && !Number.isInteger(value)) return "Enter a whole number.";
  const { minimum, maximum, exclusiveMinimum, exclusiveMaximum } = schema;
  if (typeof minimum === "number" && value < minimum) return `Enter ${minimum} or more.`;
  if (typeof maximum === "number" && value > maximum) return `Enter ${maximum} or less.`;
  if (typeof exclusiveMinimum === "number" && value <= exclusiveMinimum) {
    return `Enter more than ${exclusiveMinimum}.`;
  }
  if (typeof exclusiveMaximum === "number" && value >= exclusiveMaximum) {
    return `Enter less than ${exclusiveMaximum}.`;
  }
  return undefined;
}

/**
 * @param {unknown} value
 * @returns {value is Record<string, unknown>}
 */
export function isRecord(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
