import { isPlainObject, setOwn } from "../json.js";

// JP stores some strings base64-encoded at rest: every string leaf of an event's `metadata`,
// every string leaf of a tool call's `arguments` (keys, numbers and booleans untouched) and a
// tool response's `content`. Inquiry, chat and turn events are stored as they are.

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const utf8 = new TextDecoder("utf-8", { fatal: true });

/** Decodes a base64 string leniently: text that is not base64 of UTF-8 is returned as it is. */
export function decodeBase64Lenient(text: string): string {
  if (!BASE64.test(text)) return text;
  try {
    return utf8.decode(Buffer.from(text, "base64"));
  } catch {
    return text;
  }
}

function encodeBase64(text: string): string {
  return Buffer.from(text, "utf-8").toString("base64");
}

function mapStrings(value: unknown, f: (s: string) => string): unknown {
  if (typeof value === "string") return f(value);
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, f));
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const key in value) setOwn(out, key, mapStrings(value[key], f));
    return out;
  }
  return value;
}

function transform(entry: unknown, f: (s: string) => string): unknown {
  if (!isPlainObject(entry)) return entry;
  const out: Record<string, unknown> = { ...entry };
  if (isPlainObject(out.metadata)) out.metadata = mapStrings(out.metadata, f);
  if (out.type === "tool_call_request" && isPlainObject(out.arguments)) {
    out.arguments = mapStrings(out.arguments, f);
  } else if (out.type === "tool_call_response" && typeof out.content === "string") {
    out.content = f(out.content);
  }
  return out;
}

/** The in-memory form of one `events.json` entry as stored on disk. */
export function fromDisk(entry: unknown): unknown {
  return transform(entry, decodeBase64Lenient);
}

/** The on-disk form of one encoded event. */
export function toDisk(entry: unknown): unknown {
  return transform(entry, encodeBase64);
}
