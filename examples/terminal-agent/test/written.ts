// Reads what the demo wrote under `--out`, straight from the files (JP's layout), without the
// library's own reader: tool arguments and results are base64 at rest and decoded here.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

/** One entry of `events.json`, as written. */
export type WrittenEvent = { readonly type: string; readonly [field: string]: unknown };

/** The conversation directory the demo wrote. */
export interface Written {
  /** `<out>/<id>-release-widgets` */
  readonly dir: string;
  /** The file names in it. */
  readonly files: readonly string[];
  readonly events: readonly WrittenEvent[];
}

/** Reads the single conversation under `out`. */
export function readWritten(out: string): Written {
  const entries = readdirSync(out);
  if (entries.length !== 1 || !/^\d+-release-widgets$/.test(entries[0] ?? "")) {
    throw new Error(`expected one <id>-release-widgets directory in ${out}, found ${entries}`);
  }
  const dir = join(out, entries[0] as string);
  const events = JSON.parse(readFileSync(join(dir, "events.json"), "utf8")) as WrittenEvent[];
  return { dir, files: readdirSync(dir).sort(), events };
}

const decode = (text: string) => Buffer.from(text, "base64").toString("utf8");

/** The request and response of the inquiry `id` (e.g. `call_form.bump.1`). */
export function inquiry(written: Written, id: string) {
  const find = (type: string) =>
    written.events.filter((event) => event.type === type && event.id === id);
  const requests = find("inquiry_request");
  const responses = find("inquiry_response");
  if (requests.length !== 1 || responses.length !== 1) {
    throw new Error(
      `inquiry ${id}: ${requests.length} request(s), ${responses.length} response(s); ids: ${inquiryIds(written)}`,
    );
  }
  return { request: requests[0] as WrittenEvent, response: responses[0] as WrittenEvent };
}

/** The ids of every inquiry request, in order. */
export function inquiryIds(written: Written): string[] {
  return written.events
    .filter((event) => event.type === "inquiry_request")
    .map((event) => String(event.id));
}

/** The decoded result of tool call `id`. */
export function toolResult(written: Written, id: string): { content: string; is_error: boolean } {
  const found = written.events.filter(
    (event) => event.type === "tool_call_response" && event.id === id,
  );
  if (found.length !== 1) throw new Error(`expected one tool_call_response ${id}`);
  const event = found[0] as WrittenEvent;
  return { content: decode(String(event.content)), is_error: event.is_error === true };
}

/** Every file below `root`, recursively. */
export function filesUnder(root: string): string[] {
  return readdirSync(root).flatMap((name) => {
    const path = join(root, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

const BASE64_TOKEN = /"((?:[A-Za-z0-9+/]{4})+(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?)"/g;

/**
 * A file's bytes as text, followed by the decoding of every base64-looking JSON string in it,
 * so that a search also finds what is stored encoded at rest.
 */
export function searchableText(path: string): string {
  const raw = readFileSync(path).toString("latin1");
  const decoded = [...raw.matchAll(BASE64_TOKEN)].map((match) => decode(match[1] as string));
  return [raw, ...decoded].join("\n");
}
