import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  baseConfigOf,
  ConversationStream,
  createEvent,
  FileConversationStore,
  loadConversation,
  type StoreError,
  saveConversation,
  type ToolCallRequest,
} from "../src/index.js";

const b64 = (text: string) => Buffer.from(text, "utf-8").toString("base64");

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "jp-store-"));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function writeConversation(dir: string, files: Record<string, unknown>): Promise<void> {
  await mkdir(dir, { recursive: true });
  for (const [file, content] of Object.entries(files)) {
    await writeFile(
      join(dir, file),
      typeof content === "string" ? content : JSON.stringify(content, null, 2),
    );
  }
}

async function readJson(path: string): Promise<unknown> {
  return JSON.parse(await readFile(path, "utf-8"));
}

const metadata = { title: "Legacy", last_activated_at: "2026-03-05 22:07:43.369023" };

describe("FileConversationStore.create", () => {
  // 2026-04-10 17:03:38.711 UTC is 1775840618711 ms: JP's id is that in tenths of a second.
  const now = new Date(Date.UTC(2026, 3, 10, 17, 3, 38, 711));

  it("names a new conversation <id>-<slug> with id = floor(ms / 100)", () => {
    const conversation = new FileConversationStore(root).create({
      title: "Missing date in version string",
      now,
    });
    expect(conversation.name).toBe("17758406187-missing-date-in-version-string");
    expect(conversation.metadata).toStrictEqual({
      last_activated_at: "2026-04-10 17:03:38.711",
      title: "Missing date in version string",
    });
    expect(conversation.layout).toBe("base_config");
    expect(conversation.baseConfig).toBeUndefined();
    expect(conversation.stream.length).toBe(0);
  });

  it.each<{ title: string | undefined; name: string }>([
    { title: undefined, name: "17758406187" },
    {
      title: "Workspace Sanitization Strategy",
      name: "17758406187-workspace-sanitization-strategy",
    },
    { title: "  --Why?! (v2.0)  ", name: "17758406187-why-v2-0" },
    { title: "Café déjà vu", name: "17758406187-cafe-deja-vu" },
    { title: "???", name: "17758406187" },
  ])("title $title gives the name $name", ({ title, name }) => {
    const store = new FileConversationStore(root);
    const conversation = title === undefined ? store.create({ now }) : store.create({ title, now });
    expect(conversation.name).toBe(name);
  });
});

describe("save and load", () => {
  it("a new conversation saved and loaded is the same conversation", async () => {
    const store = new FileConversationStore(root);
    const conversation = store.create({ title: "Round trip", now: new Date(Date.UTC(2026, 0, 1)) });
    conversation.baseConfig = { assistant: { model: { id: "anthropic/claude" } } };
    conversation.stream.startTurn("hello");
    conversation.stream
      .tryAppend(createEvent("chat_response", { message: "hi there" }))
      ._unsafeUnwrap();

    expect((await store.save(conversation)).isOk()).toBe(true);
    expect((await store.list())._unsafeUnwrap()).toEqual([conversation.name]);
    const loaded = (await store.load(conversation.name))._unsafeUnwrap();
    expect(loaded.name).toBe(conversation.name);
    expect(loaded.metadata).toStrictEqual(conversation.metadata);
    expect(loaded.layout).toBe("base_config");
    expect(loaded.baseConfig).toStrictEqual(conversation.baseConfig);
    expect(loaded.stream.events).toStrictEqual(conversation.stream.events);
    expect((await readdir(join(root, conversation.name))).sort()).toEqual([
      "base_config.json",
      "events.json",
      "metadata.json",
    ]);
  });

  it("text outside ASCII in every file loads as it was saved", async () => {
    const store = new FileConversationStore(root);
    const conversation = store.create({ title: "Café ✓ 日本語" });
    conversation.baseConfig = { note: "naïve ☃" };
    conversation.stream.startTurn("¿Dónde está el archivo? 🗂");
    conversation.stream
      .tryAppend(createEvent("chat_response", { message: "Ça marche — 完了" }))
      ._unsafeUnwrap();
    (await store.save(conversation))._unsafeUnwrap();
    const loaded = (await store.load(conversation.name))._unsafeUnwrap();
    expect(loaded.metadata.title).toBe("Café ✓ 日本語");
    expect(loaded.baseConfig).toStrictEqual({ note: "naïve ☃" });
    expect(loaded.stream.events).toStrictEqual(conversation.stream.events);
  });

  it("a new conversation without a base config keeps its layout across save and load", async () => {
    const store = new FileConversationStore(root);
    const conversation = store.create({ title: "No base config" });
    conversation.stream.startTurn("hello");
    (await store.save(conversation))._unsafeUnwrap();
    const loaded = (await store.load(conversation.name))._unsafeUnwrap();
    expect(loaded.layout).toBe(conversation.layout);
    expect(baseConfigOf(loaded)).toBeUndefined();
  });

  it("stores tool arguments, tool results and metadata strings as base64; chat and inquiry events as they are", async () => {
    const conversation = new FileConversationStore(root).create({ title: "b64" });
    const stream = conversation.stream;
    const [start, request] = stream.startTurn("Read build.rs");
    const toolCall = createEvent("tool_call_request", {
      timestamp: "2026-04-10 17:04:24.859153",
      id: "toolu_1",
      name: "fs_read_file",
      arguments: {
        path: "crates/jp_cli/build.rs",
        start_line: 65,
        follow: true,
        nested: { paths: ["src/ä.rs", 2, null, false] },
      },
      metadata: { rendered_arguments: "build.rs:65", cache_breakpoint: true },
    });
    const question = createEvent("inquiry_request", {
      timestamp: "2026-04-10 17:04:25.0",
      id: "toolu_1.confirm.1",
      source: { source: "tool", name: "fs_read_file" },
      question: {
        text: "Read the whole file?",
        answer_type: { type: "text" },
        default: "yes",
        context: "big file",
      },
    });
    const reply = createEvent("inquiry_response", {
      timestamp: "2026-04-10 17:04:26.0",
      outcome: "answered",
      id: "toolu_1.confirm.1",
      answer: "yes",
    });
    const toolResult = createEvent("tool_call_response", {
      timestamp: "2026-04-10 17:04:27.0",
      id: "toolu_1",
      content: "fn main() {}\n",
      is_error: false,
    });
    const message = createEvent("chat_response", {
      timestamp: "2026-04-10 17:04:28.0",
      message: "Done.",
      metadata: { anthropic_thinking_signature: "sig", nested: { list: ["x", 1] } },
    });
    stream.tryAppend(toolCall, question, reply, toolResult, message)._unsafeUnwrap();

    (await saveConversation(join(root, conversation.name), conversation))._unsafeUnwrap();
    const onDisk = await readJson(join(root, conversation.name, "events.json"));
    expect(onDisk).toStrictEqual([
      { timestamp: start.timestamp, type: "turn_start" },
      { timestamp: request.timestamp, type: "chat_request", content: "Read build.rs" },
      {
        timestamp: "2026-04-10 17:04:24.859153",
        type: "tool_call_request",
        id: "toolu_1",
        name: "fs_read_file",
        arguments: {
          path: b64("crates/jp_cli/build.rs"),
          start_line: 65,
          follow: true,
          nested: { paths: [b64("src/ä.rs"), 2, null, false] },
        },
        metadata: { rendered_arguments: b64("build.rs:65"), cache_breakpoint: true },
      },
      {
        timestamp: "2026-04-10 17:04:25.0",
        type: "inquiry_request",
        id: "toolu_1.confirm.1",
        source: { source: "tool", name: "fs_read_file" },
        question: {
          text: "Read the whole file?",
          answer_type: { type: "text" },
          default: "yes",
          context: "big file",
        },
      },
      {
        timestamp: "2026-04-10 17:04:26.0",
        type: "inquiry_response",
        outcome: "answered",
        id: "toolu_1.confirm.1",
        answer: "yes",
      },
      {
        timestamp: "2026-04-10 17:04:27.0",
        type: "tool_call_response",
        id: "toolu_1",
        content: b64("fn main() {}\n"),
        is_error: false,
      },
      {
        timestamp: "2026-04-10 17:04:28.0",
        type: "chat_response",
        message: "Done.",
        metadata: { anthropic_thinking_signature: b64("sig"), nested: { list: [b64("x"), 1] } },
      },
    ]);
    expect(b64("crates/jp_cli/build.rs")).toBe("Y3JhdGVzL2pwX2NsaS9idWlsZC5ycw==");

    const loaded = (await loadConversation(join(root, conversation.name)))._unsafeUnwrap();
    expect(loaded.stream.events).toStrictEqual(stream.events);
  });

  it("reads a string that is not base64 as it is, and writes it back as it was", async () => {
    const events = [
      { timestamp: "2026-03-05 22:00:00.0", type: "turn_start" },
      { timestamp: "2026-03-05 22:00:00.0", type: "chat_request", content: "go" },
      {
        timestamp: "2026-03-05 22:00:01.0",
        type: "tool_call_request",
        id: "t1",
        name: "fs_grep_files",
        arguments: { pattern: "not base64!", paths: [b64("crates/jp_cli")], flags: "abcd" },
      },
      {
        timestamp: "2026-03-05 22:00:02.0",
        type: "tool_call_response",
        id: "t1",
        content: "plain text, not base64",
        is_error: false,
      },
      {
        timestamp: "2026-03-05 22:00:03.0",
        type: "chat_response",
        message: "ok",
        metadata: { note: b64("hello") },
      },
    ];
    await writeConversation(join(root, "a"), { "metadata.json": metadata, "events.json": events });
    const loaded = (await loadConversation(join(root, "a")))._unsafeUnwrap();
    expect(loaded.stream.events[2]).toMatchObject({
      arguments: { pattern: "not base64!", paths: ["crates/jp_cli"], flags: "abcd" },
    });
    expect(loaded.stream.events[3]).toMatchObject({ content: "plain text, not base64" });
    expect(loaded.stream.events[4]).toMatchObject({ metadata: { note: "hello" } });

    (await saveConversation(join(root, "b"), loaded))._unsafeUnwrap();
    expect(await readJson(join(root, "b", "events.json"))).toStrictEqual(events);
  });

  it("leaves the arguments and content of an event type it does not know as they are", async () => {
    const events = [
      { timestamp: "t", type: "turn_start" },
      { timestamp: "t", type: "chat_request", content: "go" },
      { timestamp: "t", type: "future_event", arguments: { a: b64("hi") }, content: b64("yo") },
    ];
    await writeConversation(join(root, "a"), { "metadata.json": metadata, "events.json": events });
    const loaded = (await loadConversation(join(root, "a")))._unsafeUnwrap();
    expect(loaded.stream.events[2]).toMatchObject({ arguments: { a: "aGk=" }, content: "eW8=" });
    (await saveConversation(join(root, "b"), loaded))._unsafeUnwrap();
    expect(await readJson(join(root, "b", "events.json"))).toStrictEqual(events);
  });

  it("writes back byte for byte what it read: near-base64, a byte-order mark, long text, keys out of order", async () => {
    const text = `${JSON.stringify(
      [
        { timestamp: "t", type: "turn_start" },
        { type: "chat_request", timestamp: "t", content: "keys out of JP's order" },
        {
          timestamp: "t",
          type: "tool_call_request",
          id: "t1",
          name: "x",
          arguments: { bits: "QR==", url: "-_-_", bytes: "abcd", bom: b64("\ufeffhi") },
        },
        {
          timestamp: "t",
          type: "tool_call_response",
          id: "t1",
          content: b64("é".repeat(300)),
          is_error: false,
        },
        { timestamp: "t", type: "chat_response", message: "ok", metadata: { n: 1, s: "QQ==QQ==" } },
      ],
      null,
      2,
    )}\n`;
    await writeConversation(join(root, "a"), { "metadata.json": metadata, "events.json": text });
    const loaded = (await loadConversation(join(root, "a")))._unsafeUnwrap();
    expect(loaded.stream.events[2]).toMatchObject({
      arguments: { bits: "A", url: "-_-_", bytes: "abcd", bom: "\ufeffhi" },
    });
    expect(loaded.stream.events[3]).toMatchObject({ content: "é".repeat(300) });
    expect(loaded.stream.events[4]).toMatchObject({ metadata: { n: 1, s: "QQ==QQ==" } });

    (await saveConversation(join(root, "b"), loaded))._unsafeUnwrap();
    expect(await readFile(join(root, "b", "events.json"), "utf-8")).toBe(text);
  });

  it("writes back integers a double cannot hold, and -0, as they were read", async () => {
    // An id past 2^53 in a tool's arguments, a u64 in a config delta: JP reads them exactly.
    const call = `{
    "timestamp": "t",
    "type": "tool_call_request",
    "id": "t1",
    "name": "get_post",
    "arguments": {
      "post_id": 1790123456789012345,
      "offset": -0,
      "ratio": 1.0,
      "note": "${b64("a -0 and 12345678901234567890 in text")}"
    }
  }`;
    const delta = `{"timestamp":"t","type":"config_delta","delta":{"seed":18446744073709551615,"list":[{"n":[9007199254740993]}]}}`;
    // Also in a field of no known place, and in an entry of a type this version does not know.
    const extra = `{"timestamp":"t","type":"chat_request","content":"x","trace":{"span":12345678901234567891}}`;
    const future = `{"timestamp":"t","type":"future_event","at":-9223372036854775808}`;
    const text = `[
  {
    "timestamp": "t",
    "type": "turn_start"
  },
  ${extra},
  ${call},
  ${delta},
  ${future}
]
`;
    await writeConversation(join(root, "a"), { "metadata.json": metadata, "events.json": text });
    const loaded = (await loadConversation(join(root, "a")))._unsafeUnwrap();
    loaded.stream.append(
      createEvent("tool_call_response", { id: "t1", content: "done", is_error: false }),
    );
    (await saveConversation(join(root, "a"), loaded))._unsafeUnwrap();
    const saved = await readFile(join(root, "a", "events.json"), "utf-8");
    expect(saved.startsWith(text.slice(0, -"\n]\n".length))).toBe(true);
    expect(saved).toContain('"post_id": 1790123456789012345,');
    expect(saved).toContain('"offset": -0,');
    expect(saved).toContain('"seed":18446744073709551615,');
    expect(saved).toContain("9007199254740993");
    expect(saved).toContain('"span":12345678901234567891');
    expect(saved).toContain('"at":-9223372036854775808');
    // The rest of the file is still JSON.stringify's, and loads again.
    const again = (await loadConversation(join(root, "a")))._unsafeUnwrap();
    expect(again.stream.events).toHaveLength(6);
    expect(again.stream.events[5]).toMatchObject({ type: "tool_call_response", content: "done" });
  });

  it("drops the answer of a redacted response read with one, also one holding such a number", async () => {
    const redacted = `{"timestamp":"t","type":"inquiry_response","outcome":"redacted","id":"a.q.1","answer":12345678901234567891}`;
    const text = `[\n  {"timestamp":"t","type":"chat_request","content":"x"},\n  ${redacted}\n]\n`;
    await writeConversation(join(root, "a"), { "metadata.json": metadata, "events.json": text });
    const loaded = (await loadConversation(join(root, "a")))._unsafeUnwrap();
    expect(loaded.stream.events[1]).toStrictEqual({
      timestamp: "t",
      type: "inquiry_response",
      outcome: "redacted",
      id: "a.q.1",
    });
    (await saveConversation(join(root, "b"), loaded))._unsafeUnwrap();
    const saved = await readFile(join(root, "b", "events.json"), "utf-8");
    expect(saved).not.toContain("12345678901234567891");
    expect(saved).not.toContain('"answer"');
  });

  it.each([
    [
      "a tool's arguments",
      `{"timestamp":"t","type":"tool_call_request","id":"a","name":"n","arguments":{"id":12345678901234567891}}`,
    ],
    [
      "a config delta",
      `{"timestamp":"t","type":"config_delta","delta":{"seed":18446744073709551615}}`,
    ],
    [
      "an answer",
      `{"timestamp":"t","type":"inquiry_response","outcome":"answered","id":"a.q.1","answer":-0}`,
    ],
    [
      "metadata",
      `{"timestamp":"t","type":"chat_response","message":"m","metadata":{"n":12345678901234567891}}`,
    ],
    [
      "a field of no known place",
      `{"timestamp":"t","type":"turn_start","n":[12345678901234567891]}`,
    ],
    [
      "a cancelled response",
      `{"timestamp":"t","type":"inquiry_response","outcome":"cancelled","id":"a.q.1","reason":"user","n":-0}`,
    ],
    [
      "a legacy response",
      `{"timestamp":"t","type":"inquiry_response","id":"a.q.1","answer":12345678901234567891}`,
    ],
    [
      "an entry of an unknown type",
      `{"timestamp":"t","type":"future_event","at":-9223372036854775808}`,
    ],
  ])("writes back such a number held only in %s", async (_where, entry) => {
    const text = `[\n  {"timestamp":"t","type":"chat_request","content":"x"},\n  ${entry}\n]\n`;
    await writeConversation(join(root, "a"), { "metadata.json": metadata, "events.json": text });
    const loaded = (await loadConversation(join(root, "a")))._unsafeUnwrap();
    (await saveConversation(join(root, "b"), loaded))._unsafeUnwrap();
    expect(await readFile(join(root, "b", "events.json"), "utf-8")).toContain(`  ${entry}\n`);
  });

  it("writes metadata.json and base_config.json holding such integers back as read, unless changed", async () => {
    const meta = `{"last_activated_at":"t","chat_id":-1001234567890123456}\n`;
    const base = `{\n  "assistant": {\n    "seed": 18446744073709551615\n  }\n}\n`;
    const events = `[{"timestamp":"t","type":"turn_start"},{"timestamp":"t","type":"chat_request","content":"x"}]`;
    await writeConversation(join(root, "a"), {
      "metadata.json": meta,
      "base_config.json": base,
      "events.json": events,
    });
    const loaded = (await loadConversation(join(root, "a")))._unsafeUnwrap();
    loaded.stream.startTurn("more");
    (await saveConversation(join(root, "a"), loaded))._unsafeUnwrap();
    expect(await readFile(join(root, "a", "metadata.json"), "utf-8")).toBe(meta);
    expect(await readFile(join(root, "a", "base_config.json"), "utf-8")).toBe(base);

    // Changed in memory, it is written from memory.
    loaded.metadata.title = "Renamed";
    (await saveConversation(join(root, "a"), loaded))._unsafeUnwrap();
    expect(await readJson(join(root, "a", "metadata.json"))).toMatchObject({ title: "Renamed" });
    expect(await readFile(join(root, "a", "base_config.json"), "utf-8")).toBe(base);
  });

  it("a tool-argument key named __proto__ survives load and save", async () => {
    const text = `[{"timestamp":"t","type":"turn_start"},{"timestamp":"t","type":"chat_request","content":"x"},{"timestamp":"t","type":"tool_call_request","id":"a","name":"json_edit","arguments":{"set":{"__proto__":"${b64("polluted?")}","k":"${b64("v")}"}}}]`;
    await writeConversation(join(root, "a"), { "metadata.json": metadata, "events.json": text });
    const loaded = (await loadConversation(join(root, "a")))._unsafeUnwrap();
    const set = (loaded.stream.events[2] as ToolCallRequest).arguments.set as object;
    expect(Object.hasOwn(set, "__proto__")).toBe(true);
    expect(Object.entries(set)).toEqual([
      ["__proto__", "polluted?"],
      ["k", "v"],
    ]);

    const fresh = new FileConversationStore(root).create({ title: "proto" });
    fresh.stream.startTurn("x");
    fresh.stream
      .tryAppend(
        createEvent("tool_call_request", {
          timestamp: "t",
          id: "b",
          name: "json_edit",
          arguments: JSON.parse('{"__proto__":"x","k":"y"}'),
        }),
      )
      ._unsafeUnwrap();
    (await saveConversation(join(root, fresh.name), fresh))._unsafeUnwrap();
    const onDisk = (await readJson(join(root, fresh.name, "events.json"))) as {
      arguments?: object;
    }[];
    expect(Object.entries(onDisk[2]?.arguments ?? {})).toEqual([
      ["__proto__", b64("x")],
      ["k", b64("y")],
    ]);
  });

  it("a loaded conversation with a new event keeps the old entries as read and encodes the new one", async () => {
    const events = [
      { timestamp: "2026-03-05 22:00:00.0", type: "turn_start" },
      { timestamp: "2026-03-05 22:00:00.0", type: "chat_request", content: "go" },
      {
        timestamp: "2026-03-05 22:00:01.0",
        type: "tool_call_request",
        id: "t1",
        name: "x",
        arguments: { raw: "not base64!" },
      },
      {
        timestamp: "2026-03-05 22:00:01.5",
        type: "inquiry_request",
        id: "t1.q",
        source: { source: "tool", name: "x" },
        question: { text: "?", answer_type: { type: "boolean" }, default: null },
      },
      { timestamp: "2026-03-05 22:00:02.0", type: "inquiry_response", id: "t1.q", answer: true },
    ];
    await writeConversation(join(root, "a"), { "metadata.json": metadata, "events.json": events });
    const loaded = (await loadConversation(join(root, "a")))._unsafeUnwrap();
    loaded.stream
      .tryAppend(
        createEvent("tool_call_response", {
          timestamp: "2026-03-05 22:00:03.0",
          id: "t1",
          content: "done",
          is_error: false,
        }),
      )
      ._unsafeUnwrap();
    (await saveConversation(join(root, "a"), loaded))._unsafeUnwrap();
    expect(await readJson(join(root, "a", "events.json"))).toStrictEqual([
      ...events,
      {
        timestamp: "2026-03-05 22:00:03.0",
        type: "tool_call_response",
        id: "t1",
        content: b64("done"),
        is_error: false,
      },
    ]);
  });

  it("loads the legacy layout: the first entry is the base config, and saving keeps it legacy", async () => {
    const events = [
      {
        timestamp: "2026-03-05 22:07:43.369023",
        type: "config_delta",
        delta: { assistant: { name: "jp" } },
      },
      { timestamp: "2026-03-05 22:07:44.0", type: "turn_start" },
      { timestamp: "2026-03-05 22:07:44.0", type: "chat_request", content: "hi" },
    ];
    await writeConversation(join(root, "17727484633-legacy"), {
      "metadata.json": metadata,
      "events.json": events,
    });
    const loaded = (
      await new FileConversationStore(root).load("17727484633-legacy")
    )._unsafeUnwrap();
    expect(loaded.name).toBe("17727484633-legacy");
    expect(loaded.layout).toBe("legacy_config_delta");
    expect(loaded.baseConfig).toBeUndefined();
    expect(baseConfigOf(loaded)).toStrictEqual({ assistant: { name: "jp" } });
    expect(loaded.metadata).toStrictEqual(metadata);

    (await saveConversation(join(root, "copy"), loaded))._unsafeUnwrap();
    expect((await readdir(join(root, "copy"))).sort()).toEqual(["events.json", "metadata.json"]);
    expect(await readJson(join(root, "copy", "events.json"))).toStrictEqual(events);
    expect(await readJson(join(root, "copy", "metadata.json"))).toStrictEqual(metadata);
  });

  it("loads the base_config layout and writes base_config.json back", async () => {
    const base = {
      assistant: { model: { id: { provider: "anthropic", name: "claude-haiku-4-5" } } },
    };
    const withExtras = {
      ...metadata,
      pinned_at: "2026-03-06 10:00:00.0",
      labels: ["rfd"],
      future_field: 1,
    };
    const events = [
      { timestamp: "2026-03-05 22:07:44.0", type: "turn_start" },
      { timestamp: "2026-03-05 22:07:44.0", type: "chat_request", content: "hi" },
    ];
    await writeConversation(join(root, "c"), {
      "metadata.json": withExtras,
      "base_config.json": base,
      "events.json": events,
    });
    const loaded = (await loadConversation(join(root, "c")))._unsafeUnwrap();
    expect(loaded.layout).toBe("base_config");
    expect(loaded.baseConfig).toStrictEqual(base);
    expect(baseConfigOf(loaded)).toStrictEqual(base);
    expect(loaded.metadata).toStrictEqual(withExtras);

    (await saveConversation(join(root, "copy"), loaded))._unsafeUnwrap();
    expect(await readJson(join(root, "copy", "base_config.json"))).toStrictEqual(base);
    expect(await readJson(join(root, "copy", "metadata.json"))).toStrictEqual(withExtras);
  });

  it("writes pretty JSON: 2-space indentation and a trailing newline", async () => {
    const store = new FileConversationStore(root);
    const conversation = store.create({ title: "Pretty", now: new Date(Date.UTC(2026, 0, 1)) });
    conversation.baseConfig = { a: { b: [1] } };
    conversation.stream.startTurn("hi");
    (await store.save(conversation))._unsafeUnwrap();
    const dir = join(root, conversation.name);
    expect(await readFile(join(dir, "metadata.json"), "utf-8")).toBe(
      '{\n  "last_activated_at": "2026-01-01 00:00:00.0",\n  "title": "Pretty"\n}\n',
    );
    expect(await readFile(join(dir, "base_config.json"), "utf-8")).toBe(
      '{\n  "a": {\n    "b": [\n      1\n    ]\n  }\n}\n',
    );
    const events = await readFile(join(dir, "events.json"), "utf-8");
    expect(events).toBe(`${JSON.stringify(JSON.parse(events), null, 2)}\n`);
  });

  it("leaves no temporary files behind, also when overwriting", async () => {
    const store = new FileConversationStore(root);
    const conversation = store.create({ title: "Atomic" });
    conversation.baseConfig = {};
    conversation.stream.startTurn("one");
    (await store.save(conversation))._unsafeUnwrap();
    conversation.stream.startTurn("two");
    (await store.save(conversation))._unsafeUnwrap();
    const files = await readdir(join(root, conversation.name));
    expect(files.filter((f) => f.includes(".tmp-"))).toEqual([]);
    expect(files.sort()).toEqual(["base_config.json", "events.json", "metadata.json"]);
    expect((await store.load(conversation.name))._unsafeUnwrap().stream.length).toBe(4);
  });

  it("a save that cannot write is an io Err, not an exception", async () => {
    await writeFile(join(root, "taken"), "a file, not a directory");
    const conversation = new FileConversationStore(root).create();
    const saved = await saveConversation(join(root, "taken"), conversation);
    const error = saved._unsafeUnwrapErr();
    expect(error.kind).toBe("io");
    expect(error.path).toBe(join(root, "taken"));
    expect(
      error.message.startsWith(`cannot save the conversation in ${join(root, "taken")}: `),
    ).toBe(true);
  });
});

describe("load errors", () => {
  const good = [
    { timestamp: "t", type: "turn_start" },
    { timestamp: "t", type: "chat_request", content: "x" },
  ];

  it.each<{
    name: string;
    files: Record<string, unknown>;
    kind: StoreError["kind"];
    file: string;
    message: (path: string) => string | RegExp;
  }>([
    {
      name: "a missing directory",
      files: {},
      kind: "not-found",
      file: "metadata.json",
      message: (p) => `${p} does not exist`,
    },
    {
      name: "a missing events.json",
      files: { "metadata.json": metadata },
      kind: "not-found",
      file: "events.json",
      message: (p) => `${p} does not exist`,
    },
    {
      name: "a missing metadata.json",
      files: { "events.json": good },
      kind: "not-found",
      file: "metadata.json",
      message: (p) => `${p} does not exist`,
    },
    {
      name: "metadata.json that is not JSON",
      files: { "metadata.json": "{ title: oops", "events.json": good },
      kind: "corrupt",
      file: "metadata.json",
      message: (p) => new RegExp(`^${escapeRegExp(p)} is corrupt: not valid JSON \\(`),
    },
    {
      name: "events.json that is not JSON",
      files: { "metadata.json": metadata, "events.json": "[{]" },
      kind: "corrupt",
      file: "events.json",
      message: (p) => new RegExp(`^${escapeRegExp(p)} is corrupt: not valid JSON \\(`),
    },
    {
      name: "events.json that is not an array",
      files: { "metadata.json": metadata, "events.json": { events: good } },
      kind: "corrupt",
      file: "events.json",
      message: (p) => `${p} is corrupt: expected an array of events`,
    },
    {
      name: "a bad event at index 2",
      files: {
        "metadata.json": metadata,
        "events.json": [...good, { timestamp: "t", type: "tool_call_request", id: 5, name: "x" }],
      },
      kind: "corrupt",
      file: "events.json",
      message: (p) =>
        new RegExp(`^${escapeRegExp(p)} is corrupt: \\[2\\]\\.id: tool_call_request: `),
    },
    {
      name: "an inquiry response with neither outcome nor answer at index 2",
      files: {
        "metadata.json": metadata,
        "events.json": [...good, { timestamp: "t", type: "inquiry_response", id: "c.q" }],
      },
      kind: "corrupt",
      file: "events.json",
      message: (p) =>
        new RegExp(`^${escapeRegExp(p)} is corrupt: \\[2\\]: inquiry_response: no \`outcome\``),
    },
    {
      name: "a null entry at index 2",
      files: { "metadata.json": metadata, "events.json": [...good, null] },
      kind: "corrupt",
      file: "events.json",
      message: (p) => `${p} is corrupt: [2]: expected an event object, got null`,
    },
    {
      name: "a tool response whose content is a number at index 2",
      files: {
        "metadata.json": metadata,
        "events.json": [
          ...good,
          { timestamp: "t", type: "tool_call_response", id: "c", content: 42, is_error: false },
        ],
      },
      kind: "corrupt",
      file: "events.json",
      message: (p) => new RegExp(`^${escapeRegExp(p)} is corrupt: \\[2\\]\\.content: `),
    },
    {
      // 1e400 is no number a double holds: saved again, it would be written as null.
      name: "a number past a double's range in an event's metadata at index 2",
      files: {
        "metadata.json": metadata,
        "events.json": `[{"timestamp":"t","type":"turn_start"},{"timestamp":"t","type":"chat_request","content":"x"},{"timestamp":"t","type":"turn_start","metadata":{"note":"aGk=","n":1e400}}]`,
      },
      kind: "corrupt",
      file: "events.json",
      message: (p) => `${p} is corrupt: [2].metadata: turn_start: expected a JSON object`,
    },
    {
      name: "a number past a double's range in a tool's arguments at index 2",
      files: {
        "metadata.json": metadata,
        "events.json": `[{"timestamp":"t","type":"turn_start"},{"timestamp":"t","type":"chat_request","content":"x"},{"timestamp":"t","type":"tool_call_request","id":"c","name":"n","arguments":{"path":"YQ==","n":[-1e999]}}]`,
      },
      kind: "corrupt",
      file: "events.json",
      message: (p) => `${p} is corrupt: [2].arguments: tool_call_request: expected a JSON object`,
    },
    {
      name: "metadata.json without last_activated_at",
      files: { "metadata.json": { title: "x" }, "events.json": good },
      kind: "corrupt",
      file: "metadata.json",
      message: (p) => new RegExp(`^${escapeRegExp(p)} is corrupt: `),
    },
    {
      name: "base_config.json that is an array",
      files: { "metadata.json": metadata, "events.json": good, "base_config.json": [] },
      kind: "corrupt",
      file: "base_config.json",
      message: (p) => `${p} is corrupt: expected a JSON object`,
    },
    {
      name: "base_config.json that is not JSON",
      files: { "metadata.json": metadata, "events.json": good, "base_config.json": "{" },
      kind: "corrupt",
      file: "base_config.json",
      message: (p) => new RegExp(`^${escapeRegExp(p)} is corrupt: not valid JSON`),
    },
  ])("$name is a $kind Err naming $file", async ({ files, kind, file, message }) => {
    const dir = join(root, "conv");
    if (Object.keys(files).length > 0) await writeConversation(dir, files);
    const loaded = await loadConversation(dir);
    const error = loaded._unsafeUnwrapErr();
    const path = join(dir, file);
    expect(error.kind).toBe(kind);
    expect(error.path).toBe(path);
    const expected = message(path);
    if (typeof expected === "string") expect(error.message).toBe(expected);
    else expect(error.message).toMatch(expected);
  });

  it("a pathologically deep events.json is a Result, not a rejected promise", async () => {
    const depth = 100_000;
    const dir = join(root, "deep");
    await writeConversation(dir, {
      "metadata.json": metadata,
      "events.json": `[{"timestamp":"t","type":"turn_start"},{"timestamp":"t","type":"chat_request","content":"x"},{"timestamp":"t","type":"tool_call_request","id":"a","name":"x","arguments":{"a":${"[".repeat(depth)}${"]".repeat(depth)}}}]`,
    });
    const loaded = await loadConversation(dir).then(
      (result) => ({ settled: "resolved" as const, result }),
      (cause: unknown) => ({ settled: "rejected" as const, cause: String(cause) }),
    );
    // The diff shows the rejection's cause when this fails.
    expect(loaded).toMatchObject({ settled: "resolved" });
    if (loaded.settled === "resolved" && loaded.result.isErr()) {
      expect(loaded.result.error.kind).toBe("corrupt");
      expect(loaded.result.error.message).toContain("[2]");
    }
  });
});

describe("list", () => {
  it("a missing root lists nothing", async () => {
    expect((await new FileConversationStore(join(root, "missing")).list())._unsafeUnwrap()).toEqual(
      [],
    );
  });

  it("lists the conversation directories, sorted, without hidden ones or files", async () => {
    for (const name of ["17758406187-b", "17659773217-a", ".archive"])
      await mkdir(join(root, name));
    await writeFile(join(root, "README.md"), "not a conversation");
    expect((await new FileConversationStore(root).list())._unsafeUnwrap()).toEqual([
      "17659773217-a",
      "17758406187-b",
    ]);
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

describe("a hand-built legacy stream", () => {
  it("saves and loads through saveConversation / loadConversation", async () => {
    const stream = ConversationStream.decode([
      { timestamp: "2026-03-05 22:00:00.0", type: "config_delta", delta: { assistant: {} } },
      { timestamp: "2026-03-05 22:00:00.0", type: "turn_start" },
      { timestamp: "2026-03-05 22:00:00.0", type: "chat_request", content: "hi" },
    ])._unsafeUnwrap();
    const dir = join(root, "17000000000-hand");
    const conversation = {
      name: "17000000000-hand",
      metadata,
      baseConfig: undefined,
      layout: "legacy_config_delta" as const,
      stream,
    };
    (await saveConversation(dir, conversation))._unsafeUnwrap();
    const loaded = (await loadConversation(dir))._unsafeUnwrap();
    expect(loaded).toMatchObject({
      name: "17000000000-hand",
      layout: "legacy_config_delta",
      metadata,
    });
    expect(loaded.stream.events).toStrictEqual(stream.events);
    expect(baseConfigOf(loaded)).toStrictEqual({ assistant: {} });
  });
});
