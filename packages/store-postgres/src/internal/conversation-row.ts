import type { ConversationMetadata, JsonObject } from "@jp/conversation";
import { err, ok, type Result } from "neverthrow";

// The string fields of JP's `metadata.json`, as `FileConversationStore` reads them.
const METADATA_STRINGS = ["title", "pinned_at", "archived_at", "expires_at"] as const;

// Why a stored `metadata` is not one `FileConversationStore` would load: it wants an object with
// a string `last_activated_at`, strings where JP has them and `labels` a list of strings; other
// fields are kept.
function metadataProblem(metadata: unknown): string | undefined {
  if (!isObject(metadata)) return `its metadata is ${kindOf(metadata)}, not an object`;
  if (typeof metadata.last_activated_at !== "string") {
    return `its metadata's "last_activated_at" is ${kindOf(metadata.last_activated_at)}, not a string`;
  }
  for (const key of METADATA_STRINGS) {
    const value = metadata[key];
    if (value !== undefined && typeof value !== "string") {
      return `its metadata's "${key}" is ${kindOf(value)}, not a string`;
    }
  }
  const { labels } = metadata;
  if (
    labels !== undefined &&
    !(Array.isArray(labels) && labels.every((label) => typeof label === "string"))
  ) {
    return `its metadata's "labels" is not a list of strings`;
  }
  return undefined;
}

/**
 * The metadata and base configuration of a conversation row, checked as `FileConversationStore`
 * checks its files: a row written by something else, or damaged, is never loaded as if sound.
 * The error says what is wrong, for a `corrupt` error.
 */
export function storedFields(
  metadata: unknown,
  baseConfig: unknown,
): Result<{ metadata: ConversationMetadata; baseConfig: JsonObject | undefined }, string> {
  const problem = metadataProblem(metadata);
  if (problem !== undefined) return err(problem);
  if (baseConfig !== null && !isObject(baseConfig)) {
    return err(`its base configuration is ${kindOf(baseConfig)}, not an object`);
  }
  return ok({
    metadata: metadata as ConversationMetadata,
    baseConfig: baseConfig === null ? undefined : (baseConfig as JsonObject),
  });
}

// Values read from a `json` column: JSON already, so the shape is all there is to check.
function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  return value === undefined ? "missing" : `a ${typeof value}`;
}
