import type { JsonObject, JsonValue } from "@jp/conversation";
import { err, ok, type Result } from "neverthrow";
import type { CommandConfig } from "../config/schema.js";

// Not part of the public API: how a `command` config becomes a program and its argv.

/** One piece of an argument template: literal text, or a dotted path into the JSON context. */
type Part = { readonly text: string } | { readonly path: readonly string[] };

/** A command checked once, ready to render for each pass. */
export interface CommandPlan {
  readonly program: string;
  readonly args: readonly (readonly Part[])[];
  readonly shell: boolean;
}

/** `{{ path }}`; anything between the braces is checked by {@link parsePath}. */
const TEMPLATE = /\{\{(.*?)\}\}/gs;
const SEGMENT = /^[A-Za-z0-9_-]+$/;

/** The fields of `tool` an argument may name; `answers` is left out on purpose (see below). */
const TOOL_FIELDS = new Set(["name", "arguments", "options"]);

/**
 * Checks a command config and splits its argument templates. `contextKeys` are the keys the
 * `context` object will have. The `program` is never templated: a model must not choose what runs.
 */
export function planCommand(
  command: CommandConfig,
  contextKeys: ReadonlySet<string>,
): Result<CommandPlan, string> {
  const { program, args, shell } =
    typeof command === "string" ? { program: command, args: [], shell: false } : command;
  if (program.length === 0) return err("`program` is empty");
  if (hasTemplate(program)) {
    return err(`\`program\` may not contain a template (${JSON.stringify(program)})`);
  }
  const parsed: Part[][] = [];
  for (const arg of args ?? []) {
    // A shell re-parses the whole line, so no quoting of a spliced value is safe in every
    // position (inside "…" a `$(…)` still runs). With `shell: true` the line stays static and
    // the tool reads its input from stdin.
    if (shell === true && hasTemplate(arg)) {
      return err(
        `templates are not allowed with \`shell: true\` (${JSON.stringify(arg)}): ` +
          "the shell would interpret the substituted text; read the JSON context from stdin instead",
      );
    }
    const parts = parseTemplate(arg, contextKeys);
    if (parts.isErr()) return err(parts.error);
    parsed.push(parts.value);
  }
  return ok({ program, args: parsed, shell: shell === true });
}

/** Renders each argument template into exactly one argv element; values are never re-scanned. */
export function renderArgs(plan: CommandPlan, context: JsonObject): string[] {
  return plan.args.map((parts) =>
    parts
      .map((part) => ("text" in part ? part.text : renderValue(lookup(context, part.path))))
      .join(""),
  );
}

function hasTemplate(text: string): boolean {
  return new RegExp(TEMPLATE.source, TEMPLATE.flags).test(text);
}

function parseTemplate(arg: string, contextKeys: ReadonlySet<string>): Result<Part[], string> {
  const parts: Part[] = [];
  let last = 0;
  for (const match of arg.matchAll(new RegExp(TEMPLATE.source, TEMPLATE.flags))) {
    const path = parsePath(match[1] ?? "", contextKeys);
    if (path.isErr()) return err(`${path.error} in argument ${JSON.stringify(arg)}`);
    if (match.index > last) parts.push({ text: arg.slice(last, match.index) });
    parts.push({ path: path.value });
    last = match.index + match[0].length;
  }
  if (last < arg.length) parts.push({ text: arg.slice(last) });
  return ok(parts);
}

function parsePath(expression: string, contextKeys: ReadonlySet<string>): Result<string[], string> {
  const text = expression.trim();
  const path = text.split(".");
  if (!path.every((segment) => SEGMENT.test(segment))) {
    return err(`unsupported template {{${expression}}} (only dotted paths such as {{tool.name}})`);
  }
  const [root, field] = path;
  // Answers may be secrets, and argv is readable by every local user (`ps`, /proc/<pid>/cmdline);
  // they are delivered on stdin only. `{{tool}}` would include them too.
  if (root === "tool" && (field === undefined || field === "answers")) {
    return err(
      `{{${text}}} is not allowed: answers can be secrets and argv is visible to other processes; ` +
        "read `.tool.answers` from the JSON context on stdin",
    );
  }
  if (root === "tool" && field !== undefined && TOOL_FIELDS.has(field)) return ok(path);
  if (root === "context" && (field === undefined || contextKeys.has(field))) return ok(path);
  return err(`unknown template variable {{${text}}}`);
}

/** Own properties only, so `{{tool.arguments.constructor}}` cannot reach `Object`. */
function lookup(value: JsonValue, path: readonly string[]): JsonValue | undefined {
  let current: JsonValue | undefined = value;
  for (const segment of path) {
    if (current === null || typeof current !== "object") return undefined;
    if (Array.isArray(current)) {
      current = /^(0|[1-9][0-9]*)$/.test(segment) ? current[Number(segment)] : undefined;
    } else {
      current = Object.hasOwn(current, segment) ? current[segment] : undefined;
    }
  }
  return current;
}

/** Strings as they are, absent values as "" (as JP's lenient templates do), the rest as JSON. */
function renderValue(value: JsonValue | undefined): string {
  if (value === undefined) return "";
  return typeof value === "string" ? value : JSON.stringify(value);
}
