import type { ExecutorResult } from "@jp/coordinator";
import { isPlainObject } from "../internal/json.js";

/**
 * A `tools/call` result as the coordinator's `completed` result: text blocks joined by blank
 * lines; other blocks (images, audio, resources) named with their type so the model knows they
 * were there; `structuredContent` as JSON when there is no text. Never throws.
 */
export function completedFromToolResult(result: unknown): ExecutorResult {
  const record = isPlainObject(result) ? result : {};
  const blocks = Array.isArray(record.content) ? record.content : [];
  const parts: string[] = [];
  for (const block of blocks) {
    if (!isPlainObject(block)) continue;
    if (block.type === "text" && typeof block.text === "string") parts.push(block.text);
    else if (block.type === "resource_link" && typeof block.uri === "string")
      parts.push(`[resource link: ${block.uri}]`);
    else if (typeof block.type === "string") {
      const mime = typeof block.mimeType === "string" ? ` ${block.mimeType}` : "";
      parts.push(`[${block.type}${mime}]`);
    }
  }
  if (parts.length === 0 && record.structuredContent !== undefined) {
    parts.push(jsonText(record.structuredContent));
  }
  return { type: "completed", content: parts.join("\n\n"), is_error: record.isError === true };
}

// A value as JSON; one nested deeper than this process can write (JSON.parse reads any depth,
// JSON.stringify recurses) is named instead of throwing.
function jsonText(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "";
  } catch {
    return "[structured content nested too deeply to show]";
  }
}
