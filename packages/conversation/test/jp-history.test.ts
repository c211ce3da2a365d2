import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  baseConfigOf,
  decodeEvent,
  EPOCH_TIMESTAMP,
  encodeEvent,
  type InquiryRequest,
  loadConversation,
  saveConversation,
  toMarkdown,
} from "../src/index.js";

// Small conversations in each on-disk shape JP has written over its history (its event stream
// replaced `messages.json` in December 2025), written by hand after JP's serde of the time.
const FIXTURES = join(import.meta.dirname, "fixtures/jp-history");

const temps: string[] = [];
afterAll(async () => {
  for (const dir of temps) await rm(dir, { recursive: true, force: true });
});

async function readJsonFile(path: string): Promise<unknown> {
  return JSON.parse(await readFile(path, "utf-8"));
}

const cases = [
  {
    name: "17654976000-inline-config-without-timestamp",
    era: "December 2025: base config fields inline on the first entry, no timestamp",
    baseConfig: {
      inherit: true,
      config_load_paths: [],
      extends: [],
      assistant: {
        system_prompt: "You are a helpful assistant.",
        tool_choice: "auto",
        model: {
          id: { provider: "anthropic", name: "claude-3-sonnet-20240229" },
          parameters: { stop_words: [], other: {} },
        },
      },
      conversation: { title: { generate: { auto: true } } },
    },
    markdown: ["### User\n\nWhich file defines the build script?", "crates/jp_cli/build.rs"],
  },
  {
    name: "17655840000-empty-inline-config",
    era: "December 2025: an empty base config written as a bare tag",
    baseConfig: {},
    markdown: ["### User\n\nhello", "### Assistant\n\nHi."],
  },
  {
    name: "17673408000-inline-config-with-timestamp",
    era: "January 2026: inline fields with a timestamp, then a change in the `delta` shape",
    baseConfig: {
      inherit: true,
      config_load_paths: [".config/jp"],
      extends: ["config.d/**/*"],
      assistant: { model: { id: { provider: "anthropic", name: "claude-sonnet-4-5" } } },
      editor: { cmd: "vim" },
      template: { values: {} },
    },
    markdown: ["Design a provider abstraction.", "And with another model?"],
  },
  {
    name: "17686000000-bare-select-options",
    era: "January to March 2026: select options as bare values, flat inquiry responses",
    baseConfig: { conversation: { tools: { fs_modify_file: { run: "ask" } } } },
    markdown: ["- apply\n- skip\n- 3\n- null", "Answer: apply"],
  },
];

describe("every on-disk shape JP has written loads", () => {
  it("has a fixture for each shape", async () => {
    expect((await readdir(FIXTURES)).sort()).toEqual(cases.map((c) => c.name).sort());
  });

  it.each(cases)("$era ($name): loads, with its base config", async ({ name, baseConfig }) => {
    const loaded = await loadConversation(join(FIXTURES, name));
    expect(loaded.isOk(), loaded.isErr() ? loaded.error.message : "").toBe(true);
    const conversation = loaded._unsafeUnwrap();
    expect(conversation.layout).toBe("legacy_config_delta");
    expect(baseConfigOf(conversation)).toStrictEqual(baseConfig);
  });

  it.each(cases)("$name: save(load(dir)) writes every file back as it was", async ({ name }) => {
    const conversation = (await loadConversation(join(FIXTURES, name)))._unsafeUnwrap();
    const out = await mkdtemp(join(tmpdir(), "jp-history-"));
    temps.push(out);
    (await saveConversation(join(out, name), conversation))._unsafeUnwrap();
    const files = (await readdir(join(FIXTURES, name))).sort();
    expect((await readdir(join(out, name))).sort()).toEqual(files);
    for (const file of files) {
      const written = await readJsonFile(join(out, name, file));
      expect(written, file).toStrictEqual(await readJsonFile(join(FIXTURES, name, file)));
    }
  });

  it.each(cases)(
    "$name: sanitize only adds the turn_start these streams predate; renders",
    async ({ name, markdown }) => {
      const { stream } = (await loadConversation(join(FIXTURES, name)))._unsafeUnwrap();
      const report = stream.sanitize();
      expect(report.removed).toEqual([]);
      expect(report.inserted.map((change) => change.reason)).toEqual(["missing-turn-start"]);
      const text = toMarkdown(stream);
      for (const part of markdown) expect(text).toContain(part);
    },
  );

  it.each(cases)(
    "$name: every event re-encoded canonically decodes to itself",
    async ({ name }) => {
      const { stream } = (await loadConversation(join(FIXTURES, name)))._unsafeUnwrap();
      stream.events.forEach((event, i) => {
        const text = JSON.stringify(encodeEvent(event, { canonical: true }));
        const decoded = decodeEvent(JSON.parse(text), [i]);
        expect(decoded.isOk() ? decoded.value : decoded.error).toStrictEqual(event);
      });
    },
  );
});

describe("config_delta shapes", () => {
  const fields = {
    assistant: { name: "jp" },
    conversation: { title: { generate: { auto: false } } },
  };

  it.each([
    {
      shape: "current: a `delta` object",
      wire: { timestamp: "2026-04-01 10:00:00.0", type: "config_delta", delta: fields },
      timestamp: "2026-04-01 10:00:00.0",
      delta: fields,
    },
    {
      shape: "inline fields with a timestamp",
      wire: { type: "config_delta", timestamp: "2025-12-04 09:28:23.202081", ...fields },
      timestamp: "2025-12-04 09:28:23.202081",
      delta: fields,
    },
    {
      shape: "inline fields without a timestamp",
      wire: { type: "config_delta", ...fields },
      timestamp: EPOCH_TIMESTAMP,
      delta: fields,
    },
    { shape: "a bare tag", wire: { type: "config_delta" }, timestamp: EPOCH_TIMESTAMP, delta: {} },
  ])("$shape decodes to { timestamp, type, delta } and encodes back as read", (c) => {
    const wire = structuredClone(c.wire);
    const event = decodeEvent(wire)._unsafeUnwrap();
    expect(event).toStrictEqual({ timestamp: c.timestamp, type: "config_delta", delta: c.delta });
    expect(JSON.stringify(encodeEvent(event))).toBe(JSON.stringify(c.wire));
  });

  it("an inline field named __proto__ stays data", () => {
    const event = decodeEvent(JSON.parse('{"type":"config_delta","__proto__":{"x":1}}'));
    const delta = (event._unsafeUnwrap() as { delta: object }).delta;
    expect(Object.hasOwn(delta, "__proto__")).toBe(true);
    expect(Object.getPrototypeOf(delta)).toBe(Object.prototype);
  });

  it("a `delta` that is not an object is still an error naming it", () => {
    const result = decodeEvent({ type: "config_delta", timestamp: "t", delta: [1] }, [0]);
    expect(result._unsafeUnwrapErr().message).toBe(
      "[0].delta: config_delta: expected a JSON object",
    );
  });
});

describe("select options", () => {
  const question = (options: unknown[]) => ({
    timestamp: "2026-01-17 12:00:03.0",
    type: "inquiry_request",
    id: "c.q",
    source: { source: "tool", name: "t" },
    question: { text: "?", answer_type: { type: "select", options } },
  });

  it("bare values (JP before March 2026) read as { value } and are written back bare", () => {
    const wire = question(["apply", 3, null, ["x"], { label: "no value key" }]);
    const event = decodeEvent(structuredClone(wire))._unsafeUnwrap() as InquiryRequest;
    expect(event.question.answer_type).toStrictEqual({
      type: "select",
      options: [
        { value: "apply" },
        { value: 3 },
        { value: null },
        { value: ["x"] },
        { value: { label: "no value key" } },
      ],
    });
    expect(encodeEvent(event)).toStrictEqual(wire);
  });

  it("current options with a description are unchanged", () => {
    const wire = question([{ value: "y", description: "yes" }, { value: "n" }]);
    const event = decodeEvent(structuredClone(wire))._unsafeUnwrap() as InquiryRequest;
    expect(event.question.answer_type).toStrictEqual(wire.question.answer_type);
  });
});
