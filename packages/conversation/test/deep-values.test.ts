// Data nested too deeply to be saved never gets into a conversation: appending it is refused,
// and what was recorded before still saves and loads.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  ConversationStream,
  createEvent,
  FileConversationStore,
  type JsonObject,
  type JsonValue,
  MAX_EVENT_VALUE_DEPTH,
  nestedTooDeeply,
  StreamAppendError,
} from "../src/index.js";

// `levels` arrays within one another around "x": `nest(2)` is [["x"]].
function nest(levels: number): JsonValue {
  let value: JsonValue = "x";
  for (let i = 0; i < levels; i++) value = [value];
  return value;
}

// Arguments whose own object is the first of `levels` levels.
const argumentsOf = (levels: number): JsonObject => ({ a: nest(levels - 1) });

const callWith = (args: JsonObject, id = "c1") =>
  createEvent("tool_call_request", { id, name: "t", arguments: args });

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "jp-deep-values-"));
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

describe("appending values nested too deeply to save", () => {
  it("is limited at 128 levels", () => {
    expect(MAX_EVENT_VALUE_DEPTH).toBe(128);
  });

  it("records arguments nested exactly 128 levels deep, and the conversation saves and loads", async () => {
    const store = new FileConversationStore(root);
    const conversation = store.create({ title: "Deep", now: new Date(Date.UTC(2026, 0, 1)) });
    conversation.stream.startTurn("go");
    conversation.stream.append(callWith(argumentsOf(128)));

    expect((await store.save(conversation)).isOk()).toBe(true);
    const loaded = (await store.load(conversation.name))._unsafeUnwrap();
    expect(loaded.stream.events).toStrictEqual(conversation.stream.events);
  });

  it("refuses arguments nested 129 levels deep, naming the event, and the conversation still saves", async () => {
    const store = new FileConversationStore(root);
    const conversation = store.create({ title: "Deep", now: new Date(Date.UTC(2026, 0, 1)) });
    conversation.stream.startTurn("go");
    const before = conversation.stream.length;

    const refused = conversation.stream.tryAppend(callWith(argumentsOf(129)));

    expect(refused._unsafeUnwrapErr()).toEqual({
      kind: "nested-too-deep",
      message:
        'the tool_call_request (id "c1") cannot be recorded: its "arguments" field is nested more than 128 levels deep (arrays and objects within one another), deeper than a conversation can be saved with',
      id: "c1",
      index: 0,
    });
    expect(conversation.stream.length).toBe(before);
    expect((await store.save(conversation)).isOk()).toBe(true);
    expect((await store.load(conversation.name))._unsafeUnwrap().stream.length).toBe(before);
  });

  it("refuses an answer nested 200,000 levels deep; append throws the same refusal", () => {
    const stream = ConversationStream.empty();
    stream.startTurn("go");
    const answer = createEvent("inquiry_response", {
      outcome: "answered",
      id: "c1.q.1",
      answer: nest(200_000),
    });
    let thrown: unknown;
    try {
      stream.append(answer);
    } catch (error) {
      thrown = error;
    }
    expect(StreamAppendError.isInstance(thrown)).toBe(true);
    expect((thrown as StreamAppendError).error).toMatchObject({
      kind: "nested-too-deep",
      id: "c1.q.1",
      index: 0,
    });
    expect((thrown as Error).message).toContain(
      'its "answer" field is nested more than 128 levels deep',
    );
    expect(() => JSON.stringify(stream.toJSON())).not.toThrow();
  });

  it("refuses a whole batch, naming the position of the deep event in it", () => {
    const stream = ConversationStream.empty();
    stream.startTurn("go");
    const before = stream.length;
    const refused = stream.tryAppend(
      callWith({ path: "a.txt" }, "c1"),
      callWith(argumentsOf(129), "c2"),
    );
    expect(refused._unsafeUnwrapErr()).toMatchObject({
      kind: "nested-too-deep",
      id: "c2",
      index: 1,
    });
    expect(stream.length).toBe(before);
    // The refused batch counted nothing: c1's request can still be appended and answered.
    stream.append(callWith({ path: "a.txt" }, "c1"));
    stream.append(createEvent("tool_call_response", { id: "c1", content: "ok", is_error: false }));
  });

  it("refuses deep metadata and structured data as well", () => {
    const stream = ConversationStream.empty();
    stream.startTurn("go");
    const data = createEvent("chat_response", { data: { a: nest(128) } });
    expect(stream.tryAppend(data)._unsafeUnwrapErr().message).toBe(
      'the chat_response cannot be recorded: its "data" field is nested more than 128 levels deep (arrays and objects within one another), deeper than a conversation can be saved with',
    );
    const tagged = {
      ...createEvent("chat_response", { message: "hi" }),
      metadata: { k: nest(128) },
    };
    expect(stream.tryAppend(tagged)._unsafeUnwrapErr().message).toContain(
      'its "metadata" field is nested more than 128 levels deep',
    );
  });
});

describe("nestedTooDeeply", () => {
  it("tells beforehand what append refuses: 128 levels pass, 129 do not", () => {
    expect(nestedTooDeeply(argumentsOf(MAX_EVENT_VALUE_DEPTH))).toBe(false);
    expect(nestedTooDeeply(argumentsOf(MAX_EVENT_VALUE_DEPTH + 1))).toBe(true);
    expect(nestedTooDeeply(nest(200_000))).toBe(true);
    expect(nestedTooDeeply("x")).toBe(false);
    expect(nestedTooDeeply(null)).toBe(false);
    for (const levels of [MAX_EVENT_VALUE_DEPTH, MAX_EVENT_VALUE_DEPTH + 1]) {
      const stream = ConversationStream.empty();
      stream.startTurn("go");
      const args = argumentsOf(levels);
      expect(stream.tryAppend(callWith(args)).isErr()).toBe(nestedTooDeeply(args));
    }
  });
});
