import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  createEvent,
  FileConversationStore,
  loadConversation,
  type StoredConversation,
  saveConversation,
} from "../src/index.js";

// Half of "😀" (U+1F600, the pair D83D DE00), as a cut of text by UTF-16 index leaves it.
const HIGH = "😀".slice(0, 1);
const LOW = "😀".slice(1);

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "jp-surrogates-"));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

// Why JP's reader (serde_json) would refuse a file that JSON.parse reads: bytes that are not
// UTF-8, or the escape of a lone surrogate. `undefined` when it reads the file.
function jpRefuses(bytes: Buffer): string | undefined {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return "not UTF-8";
  }
  const unit = (at: number) =>
    text.slice(at, at + 2) === "\\u" ? Number.parseInt(text.slice(at + 2, at + 6), 16) : -1;
  for (let i = 0; i < text.length; i++) {
    if (text[i] !== "\\") continue;
    const code = unit(i);
    if (code === -1) {
      i++; // `\\`, `\"`, `\n`…: the escaped character is no escape of its own
      continue;
    }
    if (code >= 0xdc00 && code <= 0xdfff) return `lone trailing surrogate at ${i}`;
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = unit(i + 6);
      if (next < 0xdc00 || next > 0xdfff) return `lone leading surrogate at ${i}`;
      i += 6;
    }
    i += 5;
  }
  try {
    JSON.parse(text);
  } catch {
    return "not JSON";
  }
  return undefined;
}

async function files(dir: string) {
  const read = async (file: string) => readFile(join(dir, file));
  const [metadata, events] = await Promise.all([read("metadata.json"), read("events.json")]);
  return { metadata, events };
}

describe("a lone surrogate is saved as U+FFFD, which JP can read", () => {
  const store = () => new FileConversationStore(root);

  // Each case puts `text` somewhere in a conversation and gives back what holds it once loaded.
  const places: [
    string,
    (c: StoredConversation, text: string) => void,
    (c: StoredConversation) => unknown,
  ][] = [
    [
      "an assistant's message",
      (c, text) => c.stream.append(createEvent("chat_response", { message: text })),
      (c) => (c.stream.events[2] as { message: string }).message,
    ],
    [
      "the person's message",
      (c, text) => c.stream.startTurn(text),
      (c) => (c.stream.events[3] as { content: string }).content,
    ],
    [
      "a key of a tool call's arguments (stored as it is, not as base64)",
      (c, text) =>
        c.stream.append(
          createEvent("tool_call_request", { id: "t1", name: "x", arguments: { [text]: "v" } }),
        ),
      (c) => Object.keys((c.stream.events[2] as { arguments: object }).arguments)[0],
    ],
    [
      "a tool's result (stored as base64)",
      (c, text) => {
        c.stream.append(createEvent("tool_call_request", { id: "t1", name: "x", arguments: {} }));
        c.stream.append(
          createEvent("tool_call_response", { id: "t1", content: text, is_error: false }),
        );
      },
      (c) => (c.stream.events[3] as { content: string }).content,
    ],
    [
      "the conversation's title",
      (c, text) => {
        c.metadata.title = text;
      },
      (c) => c.metadata.title,
    ],
  ];

  const halves: [string, string, string][] = [
    ["a leading half at the end", `cut ${HIGH}`, "cut \ufffd"],
    ["a leading half before text", `a${HIGH}b`, "a\ufffdb"],
    ["a trailing half at the start", `${LOW}tail`, "\ufffdtail"],
    ["two halves in the wrong order", `${LOW}${HIGH}`, "\ufffd\ufffd"],
  ];
  const cases = places.flatMap(([where, put, get]) =>
    halves.map(([half, text, written]) => [`${where}, ${half}`, put, get, text, written] as const),
  );

  it.each(cases)("%s", async (_name, put, get, text, written) => {
    const conversation = store().create({ title: "t" });
    conversation.stream.startTurn("hi");
    put(conversation, text);
    (await store().save(conversation))._unsafeUnwrap();
    const saved = await files(join(root, conversation.name));
    expect(jpRefuses(saved.events)).toBeUndefined();
    expect(jpRefuses(saved.metadata)).toBeUndefined();

    const loaded = (await store().load(conversation.name))._unsafeUnwrap();
    expect(get(loaded)).toBe(written);
    // Loaded and saved again, the conversation is what was written.
    (await saveConversation(join(root, "again"), loaded))._unsafeUnwrap();
    const again = await files(join(root, "again"));
    expect(again.events.equals(saved.events)).toBe(true);
    expect(JSON.parse(again.metadata.toString())).toStrictEqual(
      JSON.parse(saved.metadata.toString()),
    );
  });

  it("a whole emoji, and a backslash before the text ud83d, are written as they are", async () => {
    const conversation = store().create({ title: "t" });
    conversation.stream.startTurn("hi");
    const text = "😀 and \\ud83d and \\\\ud83d";
    conversation.stream.append(createEvent("chat_response", { message: text }));
    (await store().save(conversation))._unsafeUnwrap();
    const loaded = (await store().load(conversation.name))._unsafeUnwrap();
    expect((loaded.stream.events[2] as { message: string }).message).toBe(text);
  });
});

describe("a file an earlier version saved with a lone surrogate's escape", () => {
  const metadata = `${JSON.stringify({ title: "t", last_activated_at: "2026-03-05 22:07:43.369023" })}\n`;
  const write = async (events: string) => {
    const dir = join(root, "a");
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, "metadata.json"), metadata);
    await writeFile(join(dir, "events.json"), events);
    return dir;
  };

  it("loads, and is readable by JP once saved again", async () => {
    const events = [
      { timestamp: "t", type: "turn_start" },
      { timestamp: "t", type: "chat_request", content: "hi" },
      { timestamp: "t", type: "chat_response", message: `cut ${HIGH}` },
    ];
    const dir = await write(`${JSON.stringify(events, null, 2)}\n`);
    expect(jpRefuses(await readFile(join(dir, "events.json")))).toMatch(/^lone leading surrogate/);
    const loaded = (await loadConversation(dir))._unsafeUnwrap();
    (await saveConversation(dir, loaded))._unsafeUnwrap();
    const bytes = await readFile(join(dir, "events.json"));
    expect(jpRefuses(bytes)).toBeUndefined();
    expect(JSON.parse(bytes.toString("utf-8"))[2].message).toBe("cut \ufffd");
  });

  it("an entry written back as its text (an integer a double cannot hold) is repaired too", async () => {
    const text = `[
  {
    "timestamp": "t",
    "type": "turn_start"
  },
  {"timestamp":"t","type":"chat_request","content":"a \\uD83D, a pair \\ud83d\\ude00","trace":{"span":12345678901234567891}}
]
`;
    const dir = await write(text);
    const loaded = (await loadConversation(dir))._unsafeUnwrap();
    (await saveConversation(dir, loaded))._unsafeUnwrap();
    const bytes = await readFile(join(dir, "events.json"));
    expect(jpRefuses(bytes)).toBeUndefined();
    // Only the lone half changed: the escaped pair and the exact integer are as they were.
    expect(bytes.toString("utf-8")).toBe(text.replace("\\uD83D", "\ufffd"));
  });

  it("metadata.json kept as it was read (an integer a double cannot hold) is repaired too", async () => {
    const dir = await write("[]\n");
    const text =
      '{"title":"cut \\ud83d","last_activated_at":"2026-03-05 22:07:43.369023","n":12345678901234567891}\n';
    await writeFile(join(dir, "metadata.json"), text);
    const loaded = (await loadConversation(dir))._unsafeUnwrap();
    (await saveConversation(dir, loaded))._unsafeUnwrap();
    const bytes = await readFile(join(dir, "metadata.json"));
    expect(jpRefuses(bytes)).toBeUndefined();
    expect(bytes.toString("utf-8")).toBe(text.replace("\\ud83d", "\ufffd"));
  });

  it("a well-formed file is still written back byte for byte", async () => {
    const text = `[
  {
    "timestamp": "t",
    "type": "turn_start"
  },
  {"timestamp":"t","type":"chat_request","content":"a pair \\ud83d\\ude00, a backslash \\\\ud83d","trace":{"span":12345678901234567891}}
]
`;
    const dir = await write(text);
    const loaded = (await loadConversation(dir))._unsafeUnwrap();
    (await saveConversation(dir, loaded))._unsafeUnwrap();
    expect(await readFile(join(dir, "events.json"), "utf-8")).toBe(text);
  });
});
