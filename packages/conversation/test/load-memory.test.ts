import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FileConversationStore } from "../src/index.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "jp-load-memory-"));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

// The memory a loaded conversation holds, in bytes: the heap, and what lives outside it (a large
// file's text can).
async function heldByLoad(store: FileConversationStore, name: string): Promise<number> {
  gc();
  const before = used();
  let loaded = (await store.load(name))._unsafeUnwrap();
  gc();
  const after = used();
  expect(loaded.stream.length).toBe(3);
  loaded = undefined as never;
  return after - before;
}

function used(): number {
  const { heapUsed, external } = process.memoryUsage();
  return heapUsed + external;
}

describe("what a loaded conversation holds", () => {
  it("is its events, not the text of events.json, also when an entry is kept as text", async () => {
    const dir = join(root, "17758406187-memory");
    await mkdir(dir);
    await writeFile(
      join(dir, "metadata.json"),
      `{"title":"memory","last_activated_at":"2026-03-05 22:00:00.0"}`,
    );
    const message = "a".repeat(4_000_000);
    // An integer past 2^53 makes its entry be kept as the text it was read from.
    const events = `[
  {"timestamp":"2026-03-05 22:00:00.0","type":"turn_start"},
  {"timestamp":"2026-03-05 22:00:00.0","type":"chat_response","message":"${message}"},
  {"timestamp":"2026-03-05 22:00:00.0","type":"config_delta","delta":{"seed":12345678901234567890}}
]`;
    await writeFile(join(dir, "events.json"), events);
    const store = new FileConversationStore(root);
    const held = await heldByLoad(store, "17758406187-memory");
    // The message (4 MB) and little else; the 4 MB text of the file would double it.
    expect(held).toBeGreaterThan(3_500_000);
    expect(held).toBeLessThan(6_000_000);
  });
});
