import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const PACKAGE = join(import.meta.dirname, "..");

/** Runs `code` (an ES module importing the package) in a fresh Node.js; whether it loaded zod. */
function loadsZod(code: string): boolean {
  const script = `
    ${code}
    // zod registers its global configuration when it loads.
    process.stdout.write(JSON.stringify("__zod_globalConfig" in globalThis));
  `;
  const child = spawnSync(
    process.execPath,
    ["--conditions=@jp/source", "--import", "tsx", "--input-type=module", "-e", script],
    { cwd: PACKAGE, encoding: "utf8" },
  );
  if (child.status !== 0) throw new Error(child.stderr);
  return JSON.parse(child.stdout) as boolean;
}

describe("loading @jp/conversation", () => {
  it("does not load zod on import, nor to record, save and load canonical events", () => {
    const loaded = loadsZod(`
      import { mkdtempSync, rmSync } from "node:fs";
      import { tmpdir } from "node:os";
      import { join } from "node:path";
      import { ConversationStream, FileConversationStore, createEvent } from "@jp/conversation";
      const root = mkdtempSync(join(tmpdir(), "jp-lazy-"));
      try {
        const store = new FileConversationStore(root);
        const conversation = store.create({ title: "Lazy" });
        conversation.stream.startTurn("Hi");
        conversation.stream.append(
          createEvent("tool_call_request", { id: "c1", name: "t", arguments: { a: "b" } }),
          createEvent("tool_call_response", { id: "c1", content: "done", is_error: false }),
        );
        (await store.save(conversation))._unsafeUnwrap();
        const loaded = (await store.load(conversation.name))._unsafeUnwrap();
        ConversationStream.decode(loaded.stream.toJSON())._unsafeUnwrap();
        loaded.stream.sanitize();
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    `);
    expect(loaded).toBe(false);
  }, 60_000);

  it("loads zod to decode a legacy event", () => {
    const loaded = loadsZod(`
      import { decodeEvent } from "@jp/conversation";
      decodeEvent({ timestamp: "2026-03-05 22:13:24.1", type: "inquiry_response", id: "c.q", answer: true })._unsafeUnwrap();
    `);
    expect(loaded).toBe(true);
  }, 60_000);
});
