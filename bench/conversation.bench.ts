import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  ConversationStream,
  createEvent,
  encodeEvent,
  FileConversationStore,
  type StreamEvent,
} from "@jp/conversation";
import { atMost, num, type Row } from "./report.js";
import { medianPairAsyncMs, medianPairMs, ms } from "./stats.js";

const ROOT = join(import.meta.dirname, "..");
const FIXTURES = join(ROOT, "../shared/fixtures/jp-conversations");
const SUITE = "@jp/conversation";

/** The fixture conversations' events.json arrays joined into one, or undefined without ../shared. */
function fixtureText(): string | undefined {
  if (!existsSync(FIXTURES)) return undefined;
  const all: unknown[] = [];
  for (const dir of readdirSync(FIXTURES).sort()) {
    all.push(
      ...(JSON.parse(readFileSync(join(FIXTURES, dir, "events.json"), "utf-8")) as unknown[]),
    );
  }
  return JSON.stringify(all);
}

/** A synthetic stream of `count` events shaped like a tool-heavy JP conversation. */
export function generatedEvents(count: number): StreamEvent[] {
  const events: StreamEvent[] = [];
  const ts = "2026-03-05 22:13:20.314981";
  for (let i = 0; events.length < count; i++) {
    const call = `call_${i}`;
    events.push(
      createEvent("turn_start", { timestamp: ts }),
      createEvent("chat_request", { timestamp: ts, content: `Please look at file ${i}.` }),
      createEvent("chat_response", { timestamp: ts, reasoning: "Reading the file first." }),
      createEvent("tool_call_request", {
        timestamp: ts,
        id: call,
        name: "fs_modify_file",
        arguments: { path: `src/file_${i}.rs`, patterns: [{ old: "a", new: "b" }] },
      }),
      createEvent("inquiry_request", {
        timestamp: ts,
        id: `${call}.apply_changes.1`,
        source: { source: "tool", name: "fs_modify_file" },
        question: { text: "Apply the patch?", answer_type: { type: "boolean" }, default: true },
      }),
      createEvent("inquiry_response", {
        timestamp: ts,
        outcome: "answered",
        id: `${call}.apply_changes.1`,
        answer: true,
      }),
      createEvent("tool_call_response", {
        timestamp: ts,
        id: call,
        content: "File modified successfully",
        is_error: false,
      }),
      createEvent("chat_response", { timestamp: ts, message: `Done with file ${i}.` }),
    );
  }
  return events.slice(0, count);
}

function codecRows(name: string, label: string, text: string): Row[] {
  // Each pair is measured alternately, so drift in the machine affects both sides alike.
  const [parse, decode] = medianPairMs(
    () => JSON.parse(text),
    () => ConversationStream.decode(JSON.parse(text))._unsafeUnwrap(),
  );
  const raw = JSON.parse(text) as unknown[];
  const stream = ConversationStream.decode(raw)._unsafeUnwrap();
  // toJSON writes decoded, unchanged events as read; `canonical` ignores what was read.
  const [stringify, writeBack] = medianPairMs(
    () => JSON.stringify(raw),
    () => JSON.stringify(stream.toJSON()),
  );
  const [stringify2, canonical] = medianPairMs(
    () => JSON.stringify(raw),
    () => JSON.stringify(stream.events.map((e) => encodeEvent(e, { canonical: true }))),
  );
  const size = `${raw.length} events, ${(Buffer.byteLength(text) / 1e6).toFixed(1)} MB`;
  const pair = (id: string, title: string, a: number, b: number, base: string): Row => ({
    id: `conversation.${id}.${name}`,
    suite: SUITE,
    title: `${title}, ${label} (${size})`,
    measured: `${ms(a)} vs ${base} ${ms(b)}: ratio ${(a / b).toFixed(2)}`,
    values: { ms: a, baselineMs: b, ratio: a / b },
    goal: atMost(a / b, 1.5, `≤ 1.5 × ${base}`),
  });
  return [
    pair("decode", "decode (JSON.parse + ConversationStream.decode)", decode, parse, "JSON.parse"),
    pair("encode", "encode (stream.toJSON())", writeBack, stringify, "JSON.stringify"),
    pair(
      "encode-canonical",
      "encode (encodeEvent with canonical: true)",
      canonical,
      stringify2,
      "JSON.stringify",
    ),
  ];
}

/**
 * Heap held by `JSON.parse` of the conversations' events.json files and by the same conversations
 * loaded, measured in a fresh process. Each figure is taken after a macrotask: V8 keeps objects
 * of the running task alive past their last use, which would count garbage as held.
 */
function heldBytes(root: string, names: readonly string[]): { raw: number; loaded: number } {
  const code = `
    const { readFileSync } = await import("node:fs");
    const { join } = await import("node:path");
    const { FileConversationStore } = await import("@jp/conversation");
    const used = async () => {
      await new Promise((resolve) => setTimeout(resolve, 10));
      gc();
      return process.memoryUsage().heapUsed;
    };
    const root = ${JSON.stringify(root)};
    const names = ${JSON.stringify(names)};
    const store = new FileConversationStore(root);
    const loadAll = async () => {
      const all = [];
      for (const name of names) all.push((await store.load(name))._unsafeUnwrap());
      return all;
    };
    await loadAll(); // code loaded and compiled before anything is measured
    let before = await used();
    let raw = names.map((name) => JSON.parse(readFileSync(join(root, name, "events.json"), "utf8")));
    const rawBytes = (await used()) - before;
    const count = raw.reduce((n, events) => n + events.length, 0);
    raw = undefined;
    before = await used();
    const loaded = await loadAll();
    const loadedBytes = (await used()) - before;
    // Read after the measurement, so the loaded conversations are alive while measured.
    const events = loaded.reduce((n, c) => n + c.stream.length, 0);
    process.stdout.write(JSON.stringify({ raw: rawBytes, loaded: loadedBytes, events, count }));
  `;
  const child = spawnSync(process.execPath, ["--expose-gc", "--input-type=module", "-e", code], {
    cwd: ROOT,
    maxBuffer: 1 << 20,
  });
  if (child.status !== 0) throw new Error(`memory measurement failed: ${child.stderr}`);
  return JSON.parse(child.stdout.toString()) as { raw: number; loaded: number };
}

function memoryRow(name: string, label: string, root: string, names: readonly string[]): Row {
  const held = heldBytes(root, names);
  return {
    id: `conversation.load-memory.${name}`,
    suite: SUITE,
    title: `heap held by loaded conversations, ${label}`,
    measured: `${num(held.loaded / 1e6, 1)} MB vs ${num(held.raw / 1e6, 1)} MB for JSON.parse of their events.json: ratio ${(held.loaded / held.raw).toFixed(2)}`,
    values: { loadedBytes: held.loaded, rawBytes: held.raw, ratio: held.loaded / held.raw },
    goal: atMost(held.loaded / held.raw, 2, "≤ 2 × the raw JSON in memory"),
  };
}

async function loadRows(events: readonly StreamEvent[]): Promise<Row[]> {
  const root = mkdtempSync(join(tmpdir(), "jp-bench-load-"));
  try {
    const store = new FileConversationStore(root);
    const created = store.create({ title: "bench" });
    const saved = { ...created, stream: ConversationStream.from(events) };
    (await store.save(saved))._unsafeUnwrap();
    const dir = join(root, saved.name);
    const files = ["metadata.json", "events.json"].map((f) => join(dir, f));
    const size = files.reduce((total, f) => total + readFileSync(f).length, 0);
    const [loadMs, parseMs] = await medianPairAsyncMs(
      async () => {
        (await store.load(saved.name))._unsafeUnwrap();
      },
      async () => {
        for (const file of files) JSON.parse(await readFile(file, "utf8"));
      },
      21,
      2,
    );
    const label = `${num(events.length)} events, ${(size / 1e6).toFixed(1)} MB on disk`;
    return [
      {
        id: "conversation.load",
        suite: SUITE,
        title: `FileConversationStore.load, ${label}`,
        measured: `${ms(loadMs)} vs reading + JSON.parse of the same files ${ms(parseMs)}: ratio ${(loadMs / parseMs).toFixed(2)}`,
        values: { ms: loadMs, baselineMs: parseMs, ratio: loadMs / parseMs },
        goal: atMost(loadMs / parseMs, 1.3, "≤ 1.3 × reading + JSON.parse"),
      },
      memoryRow("generated", label, root, [saved.name]),
    ];
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

function sanitizeRow(events: readonly StreamEvent[]): Row {
  const raw = JSON.parse(JSON.stringify(events.map((e) => encodeEvent(e)))) as unknown[];
  const stream = ConversationStream.decode(raw)._unsafeUnwrap();
  // A sound stream: every pass repairs nothing, so the same stream can be sanitized again.
  const [decode, sanitize] = medianPairMs(
    () => ConversationStream.decode(raw)._unsafeUnwrap(),
    () => stream.sanitize(),
    21,
    3,
  );
  return {
    id: "conversation.sanitize",
    suite: SUITE,
    title: `stream.sanitize() of ${num(raw.length)} events`,
    measured: `${ms(sanitize)} vs the decode step alone (ConversationStream.decode of the parsed array) ${ms(decode)}: ratio ${(sanitize / decode).toFixed(2)}`,
    values: { ms: sanitize, baselineMs: decode, ratio: sanitize / decode },
    goal: atMost(sanitize / decode, 1, "≤ 1 × the decode step"),
  };
}

/** Decode, encode, load and sanitize, on JP's fixture conversations and a generated stream. */
export async function conversationBench(): Promise<Row[]> {
  const rows: Row[] = [];
  const fixtures = fixtureText();
  if (fixtures !== undefined) rows.push(...codecRows("fixtures", "JP's conversations", fixtures));
  const events = generatedEvents(100_000);
  const generated = JSON.stringify(events.map((e) => encodeEvent(e)));
  rows.push(...codecRows("generated", "generated stream", generated));
  rows.push(...(await loadRows(events)));
  if (existsSync(FIXTURES)) {
    const names = readdirSync(FIXTURES).sort();
    rows.push(memoryRow("fixtures", `JP's ${names.length} conversations`, FIXTURES, names));
  }
  rows.push(sanitizeRow(events));
  return rows;
}
