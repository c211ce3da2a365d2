import type { JsonObject } from "@jp/conversation";
import { err, ok, type Result } from "neverthrow";
import { cutNoted, describeValue } from "../internal/json.js";

/** Tools one server may list unless the connection sets another number: more fail the connection. */
export const DEFAULT_MAX_TOOLS = 128;
/** The longest name of a tool a model is given, in characters (MCP's own limit for tool names). */
export const MAX_TOOL_NAME_LENGTH = 128;
/** The longest description of a tool a model is given, in characters; a longer one is cut. */
export const MAX_TOOL_DESCRIPTION_LENGTH = 8192;
/** The most a tool's input schema may take as JSON, in UTF-8 bytes. */
export const MAX_TOOL_SCHEMA_BYTES = 65_536;

/** A tool as the server listed it: what the connection reads of it. */
export interface ListedTool {
  readonly name: string;
  readonly description?: string | undefined;
  readonly inputSchema: unknown;
}

/** A listed tool checked: its name, its description (cut when long) and its input schema. */
export interface CheckedTool {
  readonly name: string;
  readonly description: string;
  readonly parameters: JsonObject;
}

// Spaces, controls, invisible format characters, separators and lone surrogates: a name holding
// one reads otherwise on a screen than it is, and model providers refuse it.
const UNPRINTABLE =
  /[\p{Z}\p{Cc}\p{Cf}]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/u;

/**
 * The tools `server` listed, as a model is given them, or why they cannot all be given (the
 * connection fails with it, naming the tool): more than `maxTools` of them, a name that is
 * empty, longer than {@link MAX_TOOL_NAME_LENGTH}, holds a space or an unprintable character,
 * or is listed twice, or an input schema that takes more than {@link MAX_TOOL_SCHEMA_BYTES} as
 * JSON or is nested too deeply to be written as JSON. A description longer than
 * {@link MAX_TOOL_DESCRIPTION_LENGTH} is cut, saying how long it was.
 */
export function checkTools(
  server: string,
  tools: readonly ListedTool[],
  maxTools: number,
): Result<CheckedTool[], string> {
  const refused = (why: string) => err(`MCP server "${server}" ${why}`);
  if (tools.length > maxTools) {
    return refused(`lists ${tools.length} tools; at most ${maxTools} are taken (maxTools)`);
  }
  const names = new Set<string>();
  const checked: CheckedTool[] = [];
  for (const tool of tools) {
    const { name } = tool;
    const nameProblem =
      name.length === 0
        ? "is empty"
        : name.length > MAX_TOOL_NAME_LENGTH
          ? `is ${name.length} characters long; at most ${MAX_TOOL_NAME_LENGTH} are taken`
          : UNPRINTABLE.test(name)
            ? "holds a space, a control or an invisible character"
            : undefined;
    if (nameProblem !== undefined) {
      return refused(
        `offers a tool whose name cannot be given to a model: ${describeValue(name)} ${nameProblem}`,
      );
    }
    if (names.has(name)) return refused(`lists two tools named ${describeValue(name)}`);
    names.add(name);
    const schemaProblem = oversizedSchema(tool.inputSchema);
    if (schemaProblem !== undefined) {
      return refused(
        `offers a tool that cannot be given to a model: the input schema of its tool ${describeValue(name)} ${schemaProblem}`,
      );
    }
    checked.push({
      name,
      description: cutNoted(tool.description ?? "", MAX_TOOL_DESCRIPTION_LENGTH),
      parameters: tool.inputSchema as JsonObject,
    });
  }
  return ok(checked);
}

// Why an input schema cannot be given to a model, or undefined.
function oversizedSchema(schema: unknown): string | undefined {
  let json: string | undefined;
  try {
    json = JSON.stringify(schema);
  } catch {
    // Parsed, but deeper than this process can write back (its call stack).
    return "is nested too deeply to be written as JSON";
  }
  const bytes = Buffer.byteLength(json ?? "", "utf8");
  if (bytes > MAX_TOOL_SCHEMA_BYTES) {
    return `takes ${bytes} bytes as JSON; at most ${MAX_TOOL_SCHEMA_BYTES} are taken`;
  }
  return undefined;
}
