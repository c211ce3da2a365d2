import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ToolCallRequest } from "../src/index.js";
import { b64, chatEntry, loadEntries, pretty, TURN } from "./support/entries-on-disk.js";

// An entry holding numbers JSON.parse does not read exactly (an integer past 2^53, a -0.0) is
// written back as its text. Changing its metadata must change that member alone.

const NAME = "17758406187-exact-metadata";
const BIG = "12345678901234567891";

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "jp-exact-metadata-"));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const REQUEST = chatEntry("Look it up");

// A tool call as JP writes it, exact numbers in its arguments, `extra` members after them.
const call = (extra = "") => `{
    "timestamp": "2026-04-10 17:04:25.0",
    "type": "tool_call_request",
    "id": "call_1",
    "name": "lookup",
    "arguments": {
      "user": "${b64("ada")}",
      "n": ${BIG},
      "z": -0.0,
      "ids": [${BIG}, -0.0]
    }${extra}
  }`;

const loadWith = (entries: readonly string[]) => loadEntries(root, NAME, entries);

// The entry `entry` (text) as JSON.parse reads it, its metadata replaced (removed: undefined).
function withMetadata(entry: string, metadata: Record<string, unknown> | undefined) {
  const { metadata: _, ...rest } = JSON.parse(entry) as Record<string, unknown>;
  const had = Object.keys(JSON.parse(entry) as object).includes("metadata");
  if (metadata === undefined) return rest;
  if (!had) return { ...rest, metadata };
  const out = JSON.parse(entry) as Record<string, unknown>;
  out.metadata = metadata;
  return out;
}

// Saves, checks the file is JSON whose entry `index` reads as `expected` (order of keys too),
// and that loading it again gives the events saved. Returns the text saved.
async function saveAndCheck(
  { store, loaded, path }: Awaited<ReturnType<typeof loadWith>>,
  index: number,
  expected: unknown,
): Promise<string> {
  (await store.save(loaded))._unsafeUnwrap();
  const saved = await readFile(path, "utf-8");
  const entries = JSON.parse(saved) as unknown[];
  expect(entries).toHaveLength(loaded.stream.length);
  expect(entries[index]).toStrictEqual(expected);
  expect(JSON.stringify(entries[index])).toBe(JSON.stringify(expected));
  const again = (await store.load(NAME))._unsafeUnwrap();
  expect(again.stream.events).toStrictEqual(loaded.stream.events);
  return saved;
}

// Whether `-0` is where the tool call's arguments hold it.
function keepsNegativeZero(event: unknown): boolean {
  const args = (event as ToolCallRequest).arguments;
  return Object.is(args.z, -0) && Object.is((args.ids as number[])[1], -0);
}

describe("changing the metadata of an entry holding exact numbers", () => {
  it("adds the metadata as the last member, every other byte of the entry as read", async () => {
    const setup = await loadWith([TURN, REQUEST, call()]);
    setup.loaded.stream.setMetadata(2, "note", "x")._unsafeUnwrap();
    const saved = await saveAndCheck(setup, 2, withMetadata(call(), { note: b64("x") }));
    const entry = call(`,\n    "metadata": {\n      "note": "${b64("x")}"\n    }`);
    expect(saved).toBe(`[\n  ${TURN},\n  ${REQUEST},\n  ${entry}\n]\n`);
    const again = (await setup.store.load(NAME))._unsafeUnwrap();
    expect(keepsNegativeZero(again.stream.events[2])).toBe(true);
    expect(again.stream.events[2]).toMatchObject({ metadata: { note: "x" } });
  });

  it("changes one key of metadata already there, keeping the other keys' text", async () => {
    const before = call(
      `,\n    "metadata": {\n      "keep": "${b64("k")}",\n      "score": -0.0,\n      "note": "${b64("old")}"\n    }`,
    );
    const setup = await loadWith([TURN, REQUEST, before]);
    setup.loaded.stream.setMetadata(2, "note", { nested: [1, "two"] })._unsafeUnwrap();
    const saved = await saveAndCheck(
      setup,
      2,
      withMetadata(before, { keep: b64("k"), score: -0, note: { nested: [1, b64("two")] } }),
    );
    const after = call(
      `,\n    "metadata": {\n      "keep": "${b64("k")}",\n      "score": -0.0,\n      "note": {\n        "nested": [\n          1,\n          "${b64("two")}"\n        ]\n      }\n    }`,
    );
    expect(saved).toContain(`  ${after}\n]\n`);
    const again = (await setup.store.load(NAME))._unsafeUnwrap();
    const event = again.stream.events[2] as ToolCallRequest;
    expect(keepsNegativeZero(event)).toBe(true);
    expect(Object.is(event.metadata?.score, -0)).toBe(true);
  });

  it("removes the metadata member and its comma when the metadata becomes empty", async () => {
    // Metadata first, and last.
    const first = `{"metadata":{"note":"${b64("a")}"},"timestamp":"2026-04-10 17:04:25.0","type":"tool_call_request","id":"call_1","name":"lookup","arguments":{"n":${BIG},"z":-0.0}}`;
    const last = call(`,\n    "metadata": {\n      "note": "${b64("b")}"\n    }`).replace(
      "call_1",
      "call_2",
    );
    const setup = await loadWith([TURN, REQUEST, first, last]);
    setup.loaded.stream.setMetadata(2, "note", undefined)._unsafeUnwrap();
    setup.loaded.stream.setMetadata(3, "note", undefined)._unsafeUnwrap();
    const saved = await saveAndCheck(setup, 2, withMetadata(first, undefined));
    expect(JSON.parse(saved)[3]).toStrictEqual(withMetadata(last, undefined));
    const firstAfter = `{"timestamp":"2026-04-10 17:04:25.0","type":"tool_call_request","id":"call_1","name":"lookup","arguments":{"n":${BIG},"z":-0.0}}`;
    expect(saved).toBe(
      `[\n  ${TURN},\n  ${REQUEST},\n  ${firstAfter},\n  ${call().replace("call_1", "call_2")}\n]\n`,
    );
  });

  it("follows several changes in a row back to the entry read", async () => {
    const setup = await loadWith([TURN, REQUEST, call()]);
    const { stream } = setup.loaded;
    stream.setMetadata(2, "a", 1)._unsafeUnwrap();
    stream.setMetadata(2, "b", "two")._unsafeUnwrap();
    stream.setMetadata(2, "a", undefined)._unsafeUnwrap();
    stream.setMetadata(2, "c", true)._unsafeUnwrap();
    const saved = await saveAndCheck(setup, 2, withMetadata(call(), { b: b64("two"), c: true }));
    expect(saved).toContain(
      call(`,\n    "metadata": {\n      "b": "${b64("two")}",\n      "c": true\n    }`),
    );
  });

  it("finds the metadata in any order of members, its key spelled with an escape", async () => {
    const entry = String.raw`{
    "\u006detadata": {
      "note": "${b64("old")}"
    },
    "arguments": {
      "n": ${BIG},
      "z": -0.0
    },
    "name": "lookup",
    "id": "call_1",
    "type": "tool_call_request",
    "timestamp": "2026-04-10 17:04:25.0"
  }`;
    const setup = await loadWith([TURN, REQUEST, entry]);
    setup.loaded.stream.setMetadata(2, "note", "new")._unsafeUnwrap();
    const saved = await saveAndCheck(setup, 2, withMetadata(entry, { note: b64("new") }));
    expect(saved).toContain(entry.replace(`"note": "${b64("old")}"`, `"note": "${b64("new")}"`));
    expect(saved).not.toContain('"metadata"');
  });

  it("skips strings holding braces, quotes and non-ASCII text in the other members", async () => {
    // Strings that are not base64 are read as they are, and kept so.
    const tricky = String.raw`a}\"b{ \"metadata\": {} ñ 名 \\`;
    const entry = `{
    "timestamp": "2026-04-10 17:04:25.0",
    "type": "tool_call_request",
    "id": "call_1",
    "name": "lookup",
    "arguments": {
      "q": "${tricky}",
      "ids": [${BIG}, "]\\"}"],
      "z": -0.0
    }
  }`;
    const setup = await loadWith([TURN, REQUEST, entry]);
    const value = 'x}"y{ ñ 名';
    setup.loaded.stream.setMetadata(2, "note", value)._unsafeUnwrap();
    const saved = await saveAndCheck(setup, 2, withMetadata(entry, { note: b64(value) }));
    expect(saved).toContain(
      `${entry.slice(0, -"\n  }".length)},\n    "metadata": {\n      "note": "${b64(value)}"\n    }\n  }`,
    );
    const again = (await setup.store.load(NAME))._unsafeUnwrap();
    expect((again.stream.events[2] as ToolCallRequest).metadata).toStrictEqual({ note: value });
  });

  it("lays the metadata of a compact entry out compactly", async () => {
    const entry = `{"timestamp":"2026-04-10 17:04:25.0","type":"tool_call_request","id":"call_1","name":"lookup","arguments":{"n":${BIG},"z":-0.0}}`;
    const setup = await loadWith([TURN, REQUEST, entry]);
    setup.loaded.stream.setMetadata(2, "note", { a: [1, 2] })._unsafeUnwrap();
    const saved = await saveAndCheck(setup, 2, withMetadata(entry, { note: { a: [1, 2] } }));
    expect(saved).toContain(`${entry.slice(0, -1)},"metadata":{"note":{"a":[1,2]}}}`);
  });

  it("writes an entry without inexact numbers the usual way", async () => {
    const plain = `{"timestamp":"2026-04-10 17:04:26.0","type":"tool_call_request","id":"call_2","name":"lookup","arguments":{"n":12}}`;
    const setup = await loadWith([TURN, REQUEST, call(), plain]);
    setup.loaded.stream.setMetadata(2, "note", "x")._unsafeUnwrap();
    setup.loaded.stream.setMetadata(3, "note", "y")._unsafeUnwrap();
    const saved = await saveAndCheck(setup, 2, withMetadata(call(), { note: b64("x") }));
    expect(saved).toContain(`  ${pretty(withMetadata(plain, { note: b64("y") }))}\n]\n`);
    expect(saved).not.toContain(plain);
  });

  it("gives the same bytes when saved again after a reload", async () => {
    const setup = await loadWith([TURN, REQUEST, call()]);
    setup.loaded.stream.setMetadata(2, "note", "x")._unsafeUnwrap();
    const saved = await saveAndCheck(setup, 2, withMetadata(call(), { note: b64("x") }));
    expect(saved).toContain(`"n": ${BIG}`);
    const again = (await setup.store.load(NAME))._unsafeUnwrap();
    (await setup.store.save(again))._unsafeUnwrap();
    expect(await readFile(setup.path, "utf-8")).toBe(saved);
  });
});
