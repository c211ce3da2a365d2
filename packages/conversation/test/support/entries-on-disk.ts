// Conversations written by hand, entry by entry, for tests of what the file store writes back.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { FileConversationStore } from "../../src/index.js";

/** A string as the file store keeps it at rest. */
export const b64 = (text: string) => Buffer.from(text, "utf-8").toString("base64");

/** An entry laid out as a save lays out an entry of the array. */
export const pretty = (value: unknown) => JSON.stringify(value, null, 2).replaceAll("\n", "\n  ");

/** A `turn_start` entry, and a `chat_request` whose content is `content` (at rest). */
export const TURN = pretty({ timestamp: "2026-04-10 17:04:24.0", type: "turn_start" });
export const chatEntry = (content: string) =>
  pretty({ timestamp: "2026-04-10 17:04:24.1", type: "chat_request", content });

/**
 * Writes the conversation `name` under `root`, its events.json holding `entries` (texts, as
 * given) laid out as a save lays them out, and loads it.
 */
export async function loadEntries(root: string, name: string, entries: readonly string[]) {
  const dir = join(root, name);
  await mkdir(dir, { recursive: true });
  await writeFile(
    join(dir, "metadata.json"),
    `${JSON.stringify({ last_activated_at: "2026-04-10 17:03:38.711" }, null, 2)}\n`,
  );
  const text = `[\n  ${entries.join(",\n  ")}\n]\n`;
  await writeFile(join(dir, "events.json"), text);
  const store = new FileConversationStore(root);
  const loaded = (await store.load(name))._unsafeUnwrap();
  return { store, loaded, text, path: join(dir, "events.json") };
}
