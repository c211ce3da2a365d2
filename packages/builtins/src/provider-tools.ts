import type { JsonObject, JsonValue } from "@jp/conversation";
import {
  enabledToolNames,
  type ResolvedToolConfig,
  resolveToolConfig,
  type ToolConfig,
  type ToolsConfig,
} from "@jp/coordinator";
import { err, ok, type Result } from "neverthrow";

// Turns JP's tool configuration into the `tools` array of a provider request. JP writes a tool's
// parameters as a map of argument name → that argument's JSON Schema, with `required: true` inside
// an argument marking it required; every provider wants one object schema instead:
// `{"type": "object", "properties": {...}, "required": [...]}`.

/**
 * A tool's input as one JSON Schema object, the shape every provider wants (Anthropic's SDK types
 * insist on `type: "object"`).
 */
export type ToolInputSchema = {
  type: "object";
  properties: JsonObject;
  required?: string[];
};

/** The request formats {@link toProviderTools} emits. */
export type ProviderToolFormat = "openai-chat" | "openai-responses" | "anthropic";

/** A function tool of OpenAI Chat Completions (`tools[]` of `POST /v1/chat/completions`). */
export interface OpenAIChatTool {
  readonly type: "function";
  readonly function: {
    readonly name: string;
    readonly description?: string;
    readonly parameters: ToolInputSchema;
  };
}

/**
 * A function tool of the OpenAI Responses API (`tools[]` of `POST /v1/responses`). `strict` is
 * always `false`: the Responses API defaults it to `true`, and strict mode needs every property
 * required and `additionalProperties: false`, which JP's optional arguments do not satisfy.
 */
export interface OpenAIResponsesTool {
  readonly type: "function";
  readonly name: string;
  readonly description?: string;
  readonly parameters: ToolInputSchema;
  readonly strict: false;
}

/** A client tool of the Anthropic Messages API (`tools[]` of `POST /v1/messages`). */
export interface AnthropicTool {
  readonly name: string;
  readonly description?: string;
  readonly input_schema: ToolInputSchema;
}

/** The tool shape of each format. */
export interface ProviderToolByFormat {
  readonly "openai-chat": OpenAIChatTool;
  readonly "openai-responses": OpenAIResponsesTool;
  readonly anthropic: AnthropicTool;
}

/** A tool in any of the provider formats. */
export type ProviderTool = ProviderToolByFormat[ProviderToolFormat];

/**
 * Why the tools cannot be offered to a provider, by `kind`: a configured tool the providers would
 * reject (`tool` names it), or `no-tools` when not one tool would be offered (an empty `tools`
 * list is almost always a forgotten `builtinToolConfigs()`). `message` says what to change.
 */
export type ProviderToolsError =
  | {
      readonly kind: "invalid-tool-name" | "invalid-parameters";
      readonly tool: string;
      readonly message: string;
    }
  | { readonly kind: "no-tools"; readonly message: string };

/** Options of {@link toProviderTools}. */
export interface ProviderToolsOptions {
  /** Offers only the enabled tools this accepts (e.g. the ones an executor can run). */
  readonly include?: (name: string) => boolean;
}

/** The tool-name rule shared by OpenAI (Chat Completions, Responses) and Anthropic. */
export const PROVIDER_TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * A tool's input as one JSON Schema object: each argument's schema under `properties` (in the
 * configured order) without JP's `required` flag, and the names flagged `required: true` in
 * `required` (left out when none is). A `required` array inside an argument is JSON Schema's own
 * keyword (the required fields of an object-typed argument) and is kept. The result is a copy that
 * shares nothing with the configuration.
 *
 * This does not validate the parameters; {@link toProviderTools} does before calling it.
 *
 * @example
 * toolInputSchema({ parameters: { path: { type: "string", required: true }, depth: { type: "integer" } } });
 * // { type: "object", properties: { path: { type: "string" }, depth: { type: "integer" } }, required: ["path"] }
 */
export function toolInputSchema(config: ResolvedToolConfig | ToolConfig): ToolInputSchema {
  const properties: [string, JsonValue][] = [];
  const required: string[] = [];
  for (const [name, entry] of Object.entries(config.parameters ?? {})) {
    if (isPlainObject(entry) && typeof entry.required === "boolean") {
      const { required: flag, ...schema } = entry;
      if (flag) required.push(name);
      properties.push([name, copyJson(schema)]);
    } else {
      properties.push([name, copyJson(entry)]);
    }
  }
  // `Object.fromEntries` defines own properties, so an argument named `__proto__` stays a key.
  const schema: ToolInputSchema = { type: "object", properties: Object.fromEntries(properties) };
  if (required.length > 0) schema.required = required;
  return schema;
}

/**
 * The `tools` array of a provider request: one entry per enabled tool (`"*"` is never a tool), in
 * name order (by UTF-16 code units, not locale) so the array is identical whatever order the
 * configuration layers were written in, which keeps providers' prompt caches valid. `description`
 * comes from the configuration and is left out when it is not set.
 *
 * A tool the providers would reject is an error, not silently dropped: a name outside
 * `^[a-zA-Z0-9_-]{1,64}$`, or parameters that are not JSON Schema (an argument that is not a schema
 * object, a `required` flag that is not a boolean, a `"type"` that is not a JSON Schema type such as
 * `"any"`). The first such tool, in emission order, is reported. Tools left out by
 * `options.include` are not checked. Offering no tool at all is an error too (`no-tools`), never
 * a silent empty list: without `builtinToolConfigs()` layered in, not even `ask_user` is offered.
 *
 * @example
 * const offered = toProviderTools(coordinator.tools, "anthropic"); // ask_user included
 * if (offered.isOk()) request.tools = offered.value;
 */
export function toProviderTools<F extends ProviderToolFormat>(
  tools: ToolsConfig,
  provider: F,
  options: ProviderToolsOptions = {},
): Result<ProviderToolByFormat[F][], ProviderToolsError> {
  const names = enabledToolNames(tools)
    .filter((name) => name !== "*" && (options.include?.(name) ?? true))
    .sort(byCodeUnits);
  const emitted: ProviderToolByFormat[F][] = [];
  for (const name of names) {
    if (!PROVIDER_TOOL_NAME_PATTERN.test(name)) {
      return err({
        kind: "invalid-tool-name",
        tool: name,
        message: `tool name ${JSON.stringify(name)} is not accepted by model providers: a name must be 1 to 64 letters, digits, "_" or "-"`,
      });
    }
    const config = resolveToolConfig(tools, name);
    const problem = parametersProblem(config.parameters);
    if (problem !== undefined) {
      return err({
        kind: "invalid-parameters",
        tool: name,
        message: `tool "${name}": ${problem}`,
      });
    }
    emitted.push(shape(provider, name, config.description, toolInputSchema(config)));
  }
  if (emitted.length === 0)
    return err({ kind: "no-tools", message: noToolsMessage(tools, options) });
  return ok(emitted);
}

function noToolsMessage(tools: ToolsConfig, options: ProviderToolsOptions): string {
  if (!Object.hasOwn(tools, "ask_user")) {
    return "no tool to offer: the configuration has no enabled tool, not even the built-in ask_user. Pass the configuration the coordinator applies (coordinator.tools, which includes what builtinExecutorSource({ ask_user: askUser }) registers), or layer the built-ins under yours with layerToolsConfigs(builtinToolConfigs(), tools) (createCoordinator does both)";
  }
  if (options.include !== undefined && enabledToolNames(tools).some((name) => name !== "*")) {
    return "no tool to offer: options.include accepted none of the enabled tools";
  }
  return "no tool to offer: every configured tool is disabled; to send a request without tools, leave `tools` out of it";
}

function shape<F extends ProviderToolFormat>(
  provider: F,
  name: string,
  description: string | undefined,
  schema: ToolInputSchema,
): ProviderToolByFormat[F] {
  const described = description === undefined ? {} : { description };
  const tools: { readonly [K in ProviderToolFormat]: () => ProviderToolByFormat[K] } = {
    "openai-chat": () => ({
      type: "function",
      function: { name, ...described, parameters: schema },
    }),
    "openai-responses": () => ({
      type: "function",
      name,
      ...described,
      parameters: schema,
      strict: false,
    }),
    anthropic: () => ({ name, ...described, input_schema: schema }),
  };
  return tools[provider]();
}

function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

// --- Validation --------------------------------------------------------------------------------

/** The values of JSON Schema's `type` keyword. */
const JSON_SCHEMA_TYPES: ReadonlySet<string> = new Set([
  "string",
  "number",
  "integer",
  "boolean",
  "object",
  "array",
  "null",
]);

/** Keywords whose value is one subschema. */
const SUBSCHEMA_KEYWORDS: ReadonlySet<string> = new Set([
  "additionalItems",
  "additionalProperties",
  "contains",
  "contentSchema",
  "else",
  "if",
  "not",
  "propertyNames",
  "then",
  "unevaluatedItems",
  "unevaluatedProperties",
]);

/** Keywords whose value is a list of subschemas (`items` may also be one, see below). */
const SUBSCHEMA_LIST_KEYWORDS: ReadonlySet<string> = new Set([
  "allOf",
  "anyOf",
  "oneOf",
  "prefixItems",
]);

/** Keywords whose value maps names to subschemas (so their keys are names, not keywords). */
const SUBSCHEMA_MAP_KEYWORDS: ReadonlySet<string> = new Set([
  "$defs",
  "definitions",
  "dependentSchemas",
  "patternProperties",
  "properties",
]);

/** Past this depth a schema is rejected rather than walked further (hostile nesting). */
const MAX_DEPTH = 64;

/** The first reason `parameters` is not JP's map of argument → JSON Schema, if any. */
function parametersProblem(parameters: Readonly<Record<string, unknown>>): string | undefined {
  for (const [name, entry] of Object.entries(parameters)) {
    const path = `parameters${pathKey(name)}`;
    if (!isPlainObject(entry)) {
      return `${path} must be a JSON Schema object such as {"type": "string"}, got ${describe(entry)}`;
    }
    const { required: flag, ...schema } = entry;
    if (flag !== undefined && typeof flag !== "boolean" && !isStringList(flag)) {
      return `${path}.required must be true or false (whether the argument must be given), got ${describe(flag)}`;
    }
    const problem = schemaProblem(typeof flag === "boolean" ? schema : entry, path, 0);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

/** The first reason `schema` (at `path`) is not a JSON Schema a provider accepts, if any. */
function schemaProblem(schema: unknown, path: string, depth: number): string | undefined {
  if (typeof schema === "boolean") return undefined;
  if (!isPlainObject(schema)) {
    return `${path} must be a JSON Schema (an object or a boolean), got ${describe(schema)}`;
  }
  if (depth > MAX_DEPTH) return `${path} is nested more than ${MAX_DEPTH} schemas deep`;
  for (const [key, value] of Object.entries(schema)) {
    const at = `${path}${pathKey(key)}`;
    const problem = keywordProblem(key, value, at, depth);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

function keywordProblem(
  key: string,
  value: unknown,
  at: string,
  depth: number,
): string | undefined {
  if (key === "type") return typeProblem(value, at);
  if (key === "required" && !isStringList(value)) {
    return `${at} must be a list of property names, got ${describe(value)}`;
  }
  if (SUBSCHEMA_KEYWORDS.has(key)) return schemaProblem(value, at, depth + 1);
  if (SUBSCHEMA_LIST_KEYWORDS.has(key) || (key === "items" && Array.isArray(value))) {
    if (!Array.isArray(value))
      return `${at} must be a list of JSON Schemas, got ${describe(value)}`;
    return firstProblem(value, (item, i) => schemaProblem(item, `${at}[${i}]`, depth + 1));
  }
  if (key === "items") return schemaProblem(value, at, depth + 1);
  if (SUBSCHEMA_MAP_KEYWORDS.has(key)) {
    if (!isPlainObject(value))
      return `${at} must map names to JSON Schemas, got ${describe(value)}`;
    return firstProblem(Object.entries(value), ([name, sub]) =>
      schemaProblem(sub, `${at}${pathKey(name)}`, depth + 1),
    );
  }
  // Any other keyword (`enum`, `default`, `description`, extensions) holds plain JSON data.
  return jsonProblem(value, at, depth + 1);
}

function typeProblem(value: unknown, at: string): string | undefined {
  const names = Array.isArray(value) ? value : [value];
  const bad = names.find((name) => typeof name !== "string" || !JSON_SCHEMA_TYPES.has(name));
  if (names.length > 0 && bad === undefined) return undefined;
  const shown = names.length === 0 ? "[]" : describe(bad);
  return `${at}: ${shown} is not a JSON Schema type (expected one of ${[...JSON_SCHEMA_TYPES].join(", ")}); to accept any value, leave "type" out or use "anyOf"`;
}

/** The first reason `value` is not JSON data (as a config file or `JSON.parse` gives), if any. */
function jsonProblem(value: unknown, at: string, depth: number): string | undefined {
  if (depth > MAX_DEPTH * 2) return `${at} is nested too deeply`;
  switch (typeof value) {
    case "string":
    case "boolean":
      return undefined;
    case "number":
      return Number.isFinite(value) ? undefined : `${at} must be a finite number, got ${value}`;
    case "object":
      if (value === null) return undefined;
      if (Array.isArray(value)) {
        return firstProblem(value, (item, i) => jsonProblem(item, `${at}[${i}]`, depth + 1));
      }
      if (isPlainObject(value)) {
        return firstProblem(Object.entries(value), ([key, item]) =>
          jsonProblem(item, `${at}${pathKey(key)}`, depth + 1),
        );
      }
      return `${at} must be JSON data, got ${describe(value)}`;
    default:
      return `${at} must be JSON data, got ${describe(value)}`;
  }
}

function firstProblem<T>(
  items: readonly T[],
  check: (item: T, index: number) => string | undefined,
): string | undefined {
  for (let i = 0; i < items.length; i++) {
    const problem = check(items[i] as T, i);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

// --- Helpers -----------------------------------------------------------------------------------

/** A JSON copy of already validated data: fresh arrays and objects all the way down. */
function copyJson(value: unknown): JsonValue {
  if (Array.isArray(value)) return value.map(copyJson);
  if (isPlainObject(value)) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, copyJson(item)]));
  }
  return value as JsonValue;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}

/** `.name` for a plain key, `["odd key"]` otherwise. */
function pathKey(key: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$-]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}

function describe(value: unknown): string {
  if (value === undefined) return "nothing";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object" && value !== null) {
    return isPlainObject(value) ? "an object" : `a ${value.constructor?.name ?? "non-JSON"} object`;
  }
  if (typeof value === "string" || typeof value === "boolean" || value === null) {
    return JSON.stringify(value);
  }
  return typeof value === "number" ? String(value) : `a ${typeof value}`;
}
