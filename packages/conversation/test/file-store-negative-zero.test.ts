import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type ChatResponse,
  FileConversationStore,
  type InquiryResponse,
  type ToolCallRequest,
} from "../src/index.js";
import { b64, chatEntry, loadEntries, pretty, TURN } from "./support/entries-on-disk.js";

// JSON.parse reads each of these as -0; JSON.stringify writes -0 as `0`. JP (serde_json) writes
// a negative zero float as `-0.0`.
const NEGATIVE_ZEROS = ["-0.0", "-0.000", "-0e0", "-0E+3", "-1e-400"];
// Numbers near those that are not -0: nothing needs their text.
const NOT_NEGATIVE_ZEROS = ["0.0", "-0.5", "-10", "-1e-5", "1e-400"];

type Answered = Extract<InquiryResponse, { outcome: "answered" }>;

const NAME = "17758406187-negative-zero";

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "jp-negative-zero-"));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const loadWith = (entries: readonly string[]) => loadEntries(root, NAME, entries);

const REQUEST = chatEntry(b64("Move it back"));

// A tool call as JP writes it, `spelling` in its arguments.
const call = (spelling: string) => `{
    "timestamp": "2026-04-10 17:04:25.0",
    "type": "tool_call_request",
    "id": "call_1",
    "name": "move",
    "arguments": {
      "path": "${b64("a.txt")}",
      "dx": ${spelling},
      "steps": [1, ${spelling}]
    }
  }`;
// A response, `spelling` in its metadata only.
const response = (spelling: string) =>
  `{"timestamp":"2026-04-10 17:04:26.0","type":"chat_response","message":"${b64("Done")}","metadata":{"score":${spelling}}}`;
// An answer that is `spelling` itself.
const answer = (spelling: string) =>
  `{"timestamp":"2026-04-10 17:04:27.0","type":"inquiry_response","outcome":"answered","id":"call_1.q.1","answer":${spelling}}`;

describe("a negative zero in events.json, however spelled", () => {
  it.each(NEGATIVE_ZEROS)(
    "%s in arguments, metadata and an answer is read as -0 and saved again as it was written",
    async (spelling) => {
      const kept = [call(spelling), response(spelling), answer(spelling)];
      const { store, loaded, text, path } = await loadWith([TURN, REQUEST, ...kept]);
      const args = (loaded.stream.events[2] as ToolCallRequest).arguments;
      expect(Object.is(args.dx, -0)).toBe(true);
      expect(Object.is((args.steps as number[])[1], -0)).toBe(true);
      const metadata = (loaded.stream.events[3] as ChatResponse).metadata;
      expect(Object.is(metadata?.score, -0)).toBe(true);
      expect(Object.is((loaded.stream.events[4] as Answered).answer, -0)).toBe(true);

      loaded.stream.startTurn("And again");
      (await store.save(loaded))._unsafeUnwrap();
      const saved = await readFile(path, "utf-8");
      // The entries read are written back byte for byte; the new turn follows them.
      expect(saved.startsWith(text.slice(0, -"\n]\n".length))).toBe(true);
      for (const entry of kept) expect(saved).toContain(`  ${entry}`);

      const again = (await store.load(NAME))._unsafeUnwrap();
      expect(again.stream.events).toHaveLength(7);
      const argsAgain = (again.stream.events[2] as ToolCallRequest).arguments;
      expect(Object.is(argsAgain.dx, -0)).toBe(true);
      expect(Object.is((again.stream.events[3] as ChatResponse).metadata?.score, -0)).toBe(true);
      expect(Object.is((again.stream.events[4] as Answered).answer, -0)).toBe(true);
    },
  );

  it.each(NEGATIVE_ZEROS)(
    "%s is kept when another entry of the file is changed",
    async (spelling) => {
      const { store, loaded, path } = await loadWith([TURN, REQUEST, call(spelling)]);
      loaded.stream.setMetadata(1, "note", "changed")._unsafeUnwrap();
      (await store.save(loaded))._unsafeUnwrap();
      const saved = await readFile(path, "utf-8");
      expect(saved).toContain(`  ${call(spelling)}\n]\n`);
      expect(saved).toContain(b64("changed"));
    },
  );

  it.each(NOT_NEGATIVE_ZEROS)(
    "%s beside a -0.0 is written the usual way, only the -0.0 as it was read",
    async (spelling) => {
      // Written compactly: kept as its text, the entry would stay on one line.
      const plain = `{"timestamp":"2026-04-10 17:04:25.0","type":"tool_call_request","id":"call_1","name":"move","arguments":{"dx":${spelling},"steps":[${spelling}]},"metadata":{"score":${spelling}}}`;
      const { store, loaded, path } = await loadWith([TURN, REQUEST, plain, response("-0.0")]);
      const value = JSON.parse(spelling) as number;
      expect(Object.is((loaded.stream.events[2] as ToolCallRequest).arguments.dx, value)).toBe(
        true,
      );
      loaded.stream.startTurn("And again");
      (await store.save(loaded))._unsafeUnwrap();
      const saved = await readFile(path, "utf-8");
      expect(saved).toContain(`  ${response("-0.0")},\n`);
      expect(saved).not.toContain(plain);
      expect(saved).toContain(`  ${pretty(JSON.parse(plain))},\n`);
    },
  );

  it("keeps metadata.json and base_config.json holding -0.0 as they were read", async () => {
    const dir = join(root, NAME);
    await mkdir(dir, { recursive: true });
    const meta = `{"last_activated_at":"2026-04-10 17:03:38.711","offset":-0.0}\n`;
    const base = `{\n  "assistant": {\n    "temperature": -0e0,\n    "bias": -1e-400\n  }\n}\n`;
    await writeFile(join(dir, "metadata.json"), meta);
    await writeFile(join(dir, "base_config.json"), base);
    await writeFile(join(dir, "events.json"), `[\n  ${TURN},\n  ${REQUEST}\n]\n`);
    const store = new FileConversationStore(root);
    const loaded = (await store.load(NAME))._unsafeUnwrap();
    expect(Object.is((loaded.metadata as Record<string, unknown>).offset, -0)).toBe(true);
    loaded.stream.startTurn("And again");
    (await store.save(loaded))._unsafeUnwrap();
    expect(await readFile(join(dir, "metadata.json"), "utf-8")).toBe(meta);
    expect(await readFile(join(dir, "base_config.json"), "utf-8")).toBe(base);
  });
});
