import { describe, expect, it } from "vitest";
import {
  type ConversationEvent,
  ConversationStream,
  type StreamError,
  type StreamEvent,
} from "../src/index.js";
import {
  answer,
  ask,
  call,
  chat,
  configDelta,
  reply,
  result,
  turnStart,
} from "./support/events.js";

const TS = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+$/;

describe("ConversationStream.decode", () => {
  it("decodes every entry in order", () => {
    const json = [
      { timestamp: "2026-03-05 22:07:43.369023", type: "config_delta", delta: { assistant: {} } },
      { timestamp: "2026-03-05 22:07:43.4", type: "turn_start" },
      { timestamp: "2026-03-05 22:07:43.5", type: "chat_request", content: "hi" },
      { timestamp: "2026-03-05 22:07:44.0", type: "compaction", summary: "kept verbatim" },
    ];
    const stream = ConversationStream.decode(structuredClone(json))._unsafeUnwrap();
    expect(stream.length).toBe(4);
    expect(stream.events).toStrictEqual(json);
    expect([...stream].map((e) => e.type)).toEqual([
      "config_delta",
      "turn_start",
      "chat_request",
      "compaction",
    ]);
    expect(stream.conversationEvents().map((e) => e.type)).toEqual(["turn_start", "chat_request"]);
  });

  it.each<{ name: string; json: unknown }>([
    { name: "an object", json: { events: [] } },
    { name: "null", json: null },
    { name: "a JSON string", json: "[]" },
  ])("$name is not a stream", ({ json }) => {
    expect(ConversationStream.decode(json)._unsafeUnwrapErr()).toStrictEqual({
      kind: "decode",
      path: [],
      message: "(root): expected an array of events",
    });
  });

  it.each<{ name: string; bad: unknown; path: (string | number)[]; message: string | RegExp }>([
    { name: "a number", bad: 5, path: [2], message: "[2]: expected an event object, got a number" },
    {
      name: "an entry without type",
      bad: { timestamp: "t" },
      path: [2, "type"],
      message: "[2].type: expected the event type as a string, got nothing",
    },
    {
      name: "a tool call with a numeric id",
      bad: { timestamp: "t", type: "tool_call_request", id: 9, name: "x" },
      path: [2, "id"],
      message: /^\[2\]\.id: tool_call_request: /,
    },
    {
      name: "an inquiry response with neither outcome nor answer",
      bad: { timestamp: "t", type: "inquiry_response", id: "c.q" },
      path: [2],
      message: /^\[2\]: inquiry_response: no `outcome` and no `answer`/,
    },
  ])("a bad entry at index 2 ($name) is an Err naming the index", ({ bad, path, message }) => {
    const json = [
      { timestamp: "t", type: "turn_start" },
      { timestamp: "t", type: "chat_request", content: "x" },
      bad,
    ];
    const error = ConversationStream.decode(json)._unsafeUnwrapErr();
    expect(error.kind).toBe("decode");
    expect(error.path).toEqual(path);
    if (typeof message === "string") expect(error.message).toBe(message);
    else expect(error.message).toMatch(message);
  });
});

describe("toJSON", () => {
  it("writes a decoded stream back exactly as it was read", () => {
    const text = JSON.stringify([
      {
        timestamp: "2026-03-05 22:07:43.369023",
        type: "config_delta",
        delta: { assistant: { name: "jp" } },
      },
      { timestamp: "2026-03-05 22:07:43.4", type: "turn_start" },
      { timestamp: "2026-03-05 22:07:43.5", type: "chat_request", content: "hi" },
      {
        timestamp: "2026-03-05 22:07:44.1",
        type: "tool_call_request",
        id: "t1",
        name: "fs_modify_file",
      },
      {
        timestamp: "2026-03-05 22:13:20.314981",
        type: "inquiry_request",
        id: "t1.apply_changes",
        source: { source: "tool", name: "fs_modify_file" },
        question: { text: "Apply?", answer_type: { type: "boolean" }, default: null },
      },
      {
        timestamp: "2026-03-05 22:13:24.147869",
        type: "inquiry_response",
        id: "t1.apply_changes",
        answer: true,
      },
      { timestamp: "2026-03-05 22:13:25.0", type: "tool_call_response", id: "t1", content: "ok" },
      { timestamp: "2026-03-05 22:13:26.0", type: "compaction", summary: "kept verbatim" },
    ]);
    const stream = ConversationStream.decode(JSON.parse(text))._unsafeUnwrap();
    expect(JSON.stringify(stream.toJSON())).toBe(text);
  });

  it("writes new events in the canonical shape", () => {
    const stream = ConversationStream.empty();
    const [start, request] = stream.startTurn("hi");
    expect(stream.tryAppend(call("t1"), result("t1", "2026-03-05 22:00:01.0")).isOk()).toBe(true);
    expect(JSON.stringify(stream.toJSON())).toBe(
      JSON.stringify([
        { timestamp: start.timestamp, type: "turn_start" },
        { timestamp: request.timestamp, type: "chat_request", content: "hi" },
        {
          timestamp: "2026-03-05 22:00:00.0",
          type: "tool_call_request",
          id: "t1",
          name: "fs_modify_file",
          arguments: {},
        },
        {
          timestamp: "2026-03-05 22:00:01.0",
          type: "tool_call_response",
          id: "t1",
          content: "done",
          is_error: false,
        },
      ]),
    );
  });
});

describe("turns", () => {
  it("splits at every turn_start; a leading config_delta belongs to no turn", () => {
    const events: StreamEvent[] = [
      configDelta(),
      turnStart("1"),
      chat("a"),
      reply("b"),
      configDelta({ conversation: {} }),
      turnStart("2"),
      chat("c"),
      call("t1"),
      result("t1"),
      turnStart("3"),
      chat("d"),
    ];
    const turns = ConversationStream.from(events).turns();
    expect(
      turns.map((t) => ({ index: t.index, offset: t.offset, length: t.events.length })),
    ).toEqual([
      { index: 0, offset: 1, length: 4 },
      { index: 1, offset: 5, length: 4 },
      { index: 2, offset: 9, length: 2 },
    ]);
    expect(turns[0]?.events).toStrictEqual(events.slice(1, 5));
    turns.forEach((turn) => {
      expect(turn.events[0]?.type).toBe("turn_start");
      turn.events.forEach((event, i) => {
        expect(event).toBe(events[turn.offset + i]);
      });
    });
  });

  it("a legacy stream without turn_start is one implicit turn", () => {
    const events: StreamEvent[] = [configDelta(), chat("a"), reply("b"), chat("c"), reply("d")];
    const turns = ConversationStream.from(events).turns();
    expect(turns).toHaveLength(1);
    expect(turns[0]).toStrictEqual({ index: 0, offset: 1, events: events.slice(1) });
  });

  it("legacy events before the first turn_start form their own turn", () => {
    const events: StreamEvent[] = [chat("a"), reply("b"), turnStart(), chat("c")];
    const turns = ConversationStream.from(events).turns();
    expect(turns.map((t) => [t.offset, t.events.length])).toEqual([
      [0, 2],
      [2, 2],
    ]);
  });

  it("consecutive turn_starts each open a turn", () => {
    const events: StreamEvent[] = [turnStart("1"), chat(), turnStart("2"), turnStart("3"), chat()];
    expect(
      ConversationStream.from(events)
        .turns()
        .map((t) => t.events.length),
    ).toEqual([2, 1, 2]);
  });

  it.each<{ name: string; events: StreamEvent[] }>([
    { name: "an empty stream", events: [] },
    { name: "only config deltas", events: [configDelta(), configDelta()] },
  ])("$name has no turns", ({ events }) => {
    expect(ConversationStream.from(events).turns()).toEqual([]);
  });
});

describe("startTurn", () => {
  it("appends a turn_start and the user's chat_request with one JP timestamp", () => {
    const stream = ConversationStream.from([configDelta()]);
    const [start, request] = stream.startTurn("Why is the date missing?");
    expect(start.timestamp).toMatch(TS);
    expect(start).toStrictEqual({ timestamp: start.timestamp, type: "turn_start" });
    expect(request).toStrictEqual({
      timestamp: start.timestamp,
      type: "chat_request",
      content: "Why is the date missing?",
    });
    expect(stream.events.slice(1)).toEqual([start, request]);
    expect(stream.events[1]).toBe(start);
    expect(stream.events[2]).toBe(request);
    expect(stream.turns()).toHaveLength(1);
  });

  it("takes a request with an author and a schema", () => {
    const stream = ConversationStream.empty();
    const [, request] = stream.startTurn({
      content: "Summarize",
      author: "reviewer",
      schema: { type: "object" },
    });
    expect(request).toMatchObject({
      type: "chat_request",
      content: "Summarize",
      author: "reviewer",
      schema: { type: "object" },
    });
  });

  it("starts a new turn after an earlier one", () => {
    const stream = ConversationStream.empty();
    stream.startTurn("one");
    stream.startTurn("two");
    expect(stream.turns().map((t) => t.events.map((e) => e.type))).toEqual([
      ["turn_start", "chat_request"],
      ["turn_start", "chat_request"],
    ]);
  });
});

describe("append", () => {
  type Row = {
    name: string;
    before: StreamEvent[];
    append: ConversationEvent[];
    error?: Pick<StreamError, "kind" | "id" | "message">;
  };

  it.each<Row>([
    {
      name: "a tool response without a request in this turn",
      before: [turnStart(), chat()],
      append: [result("t1")],
      error: {
        kind: "orphaned-tool-call-response",
        id: "t1",
        message: 'tool call response "t1" has no matching request in this turn',
      },
    },
    {
      name: "an inquiry response without a request in this turn",
      before: [turnStart(), chat(), call("t1")],
      append: [answer("t1.q.1")],
      error: {
        kind: "orphaned-inquiry-response",
        id: "t1.q.1",
        message: 'inquiry response "t1.q.1" has no matching request in this turn',
      },
    },
    {
      name: "a tool response whose request is only in the previous turn",
      before: [turnStart(), chat(), call("t1"), turnStart(), chat()],
      append: [result("t1")],
      error: {
        kind: "orphaned-tool-call-response",
        id: "t1",
        message: 'tool call response "t1" has no matching request in this turn',
      },
    },
    {
      name: "an inquiry response whose request is only in the previous turn",
      before: [turnStart(), chat(), call("t1"), ask("t1.q.1"), turnStart(), chat()],
      append: [answer("t1.q.1")],
      error: {
        kind: "orphaned-inquiry-response",
        id: "t1.q.1",
        message: 'inquiry response "t1.q.1" has no matching request in this turn',
      },
    },
    {
      name: "a second tool response for one request",
      before: [turnStart(), chat(), call("t1"), result("t1")],
      append: [result("t1")],
      error: {
        kind: "duplicate-tool-call-response",
        id: "t1",
        message: 'tool call response "t1" has more responses than requests in this turn',
      },
    },
    {
      name: "two tool responses for one request in one call",
      before: [turnStart(), chat(), call("t1")],
      append: [result("t1"), result("t1")],
      error: {
        kind: "duplicate-tool-call-response",
        id: "t1",
        message: 'tool call response "t1" has more responses than requests in this turn',
      },
    },
    {
      name: "a request and two responses in one call",
      before: [turnStart(), chat(), call("t1")],
      append: [ask("t1.q.1"), answer("t1.q.1"), answer("t1.q.1")],
      error: {
        kind: "duplicate-inquiry-response",
        id: "t1.q.1",
        message: 'inquiry response "t1.q.1" has more responses than requests in this turn',
      },
    },
    {
      name: "a second inquiry response for one request",
      before: [turnStart(), chat(), call("t1"), ask("t1.q.1"), answer("t1.q.1")],
      append: [answer("t1.q.1")],
      error: {
        kind: "duplicate-inquiry-response",
        id: "t1.q.1",
        message: 'inquiry response "t1.q.1" has more responses than requests in this turn',
      },
    },
    {
      name: "legacy duplicate ids: three responses for two requests",
      before: [
        turnStart(),
        chat(),
        call("t1"),
        ask("t1.q"),
        answer("t1.q"),
        ask("t1.q"),
        answer("t1.q"),
      ],
      append: [answer("t1.q")],
      error: {
        kind: "duplicate-inquiry-response",
        id: "t1.q",
        message: 'inquiry response "t1.q" has more responses than requests in this turn',
      },
    },
    {
      name: "a tool response answering an inquiry request id (families do not mix)",
      before: [turnStart(), chat(), ask("x")],
      append: [result("x")],
      error: {
        kind: "orphaned-tool-call-response",
        id: "x",
        message: 'tool call response "x" has no matching request in this turn',
      },
    },
    {
      name: "a turn_start",
      before: [turnStart(), chat()],
      append: [turnStart()],
      error: {
        kind: "turn-start-not-allowed",
        message: "a turn_start cannot be appended within a turn: call startTurn() instead",
      },
    },
    {
      name: "a request and its response",
      before: [turnStart(), chat()],
      append: [call("t1"), result("t1")],
    },
    {
      name: "a response to a request already in the turn",
      before: [turnStart(), chat(), call("t1")],
      append: [result("t1")],
    },
    {
      name: "the same tool call id reused in a new turn",
      before: [turnStart(), chat(), call("t1"), result("t1"), turnStart(), chat()],
      append: [call("t1"), result("t1")],
    },
    {
      name: "the same inquiry id reused in a new turn",
      before: [
        turnStart(),
        chat(),
        call("t1"),
        ask("t1.q.1"),
        answer("t1.q.1"),
        result("t1"),
        turnStart(),
        chat(),
        call("t1"),
        ask("t1.q.1"),
      ],
      append: [answer("t1.q.1")],
    },
    {
      name: "legacy duplicate ids within a turn, paired by count",
      before: [turnStart(), chat(), call("t1"), ask("t1.q"), ask("t1.q")],
      append: [answer("t1.q"), answer("t1.q")],
    },
    {
      name: "an interrupt reply and an assistant message within the turn",
      before: [turnStart(), chat(), reply()],
      append: [chat("wait"), reply("sure")],
    },
    {
      name: "into the implicit turn of a legacy stream",
      before: [configDelta(), chat(), call("t1")],
      append: [result("t1")],
    },
  ])("$name", ({ before, append, error }) => {
    const stream = ConversationStream.from(before);
    const outcome = stream.tryAppend(...append);
    if (error === undefined) {
      expect(outcome.isOk()).toBe(true);
      expect(stream.events).toEqual([...before, ...append]);
      append.forEach((event, i) => {
        expect(stream.events[before.length + i]).toBe(event);
      });
    } else {
      const actual = outcome._unsafeUnwrapErr();
      expect({ kind: actual.kind, id: actual.id, message: actual.message }).toStrictEqual({
        id: undefined,
        ...error,
      });
      expect(stream.events).toEqual(before);
    }
  });

  it.each<{ name: string; append: ConversationEvent[] }>([
    { name: "the last event is an orphan", append: [call("t2"), result("t2"), result("t3")] },
    { name: "a turn_start in the middle", append: [call("t2"), turnStart(), result("t2")] },
    { name: "a duplicate after valid events", append: [reply(), result("t1"), result("t1")] },
  ])("is atomic: nothing is appended when one event fails ($name)", ({ append }) => {
    const before = [turnStart(), chat(), call("t1")];
    const stream = ConversationStream.from(before);
    expect(stream.tryAppend(...append).isErr()).toBe(true);
    expect(stream.length).toBe(3);
    before.forEach((event, i) => {
      expect(stream.events[i]).toBe(event);
    });
    // Nor is anything counted: the call the batch closed is still open, the one it opened is not.
    expect(stream.tryAppend(result("t1")).isOk()).toBe(true);
    expect(stream.tryAppend(result("t2")).isErr()).toBe(true);
  });

  it.each<{ name: string; before: StreamEvent[] }>([
    { name: "an empty stream", before: [] },
    { name: "a stream with only a config delta", before: [configDelta()] },
  ])("on $name is a no-turn Err", ({ before }) => {
    const stream = ConversationStream.from(before);
    expect(stream.tryAppend(chat())._unsafeUnwrapErr()).toStrictEqual({
      kind: "no-turn",
      message: "no turn has started: call startTurn() first",
    });
    expect(stream.length).toBe(before.length);
  });
});

describe("copies", () => {
  it("from() and clone() do not share the event list", () => {
    const events: StreamEvent[] = [turnStart(), chat()];
    const stream = ConversationStream.from(events);
    const copy = stream.clone();
    stream.startTurn("more");
    expect(events).toHaveLength(2);
    expect(copy.length).toBe(2);
    expect(stream.length).toBe(4);
    expect(copy.events[0]).toBe(events[0]);
  });
});

describe("openRequests", () => {
  it("counts the current turn's requests of an id that have no response yet", () => {
    const stream = ConversationStream.from([turnStart(), chat()]);
    expect(stream.openRequests("tool_call", "t1")).toBe(0);
    stream.append(call("t1"), call("t1"), call("t2"));
    expect(stream.openRequests("tool_call", "t1")).toBe(2);
    expect(stream.openRequests("tool_call", "t2")).toBe(1);
    stream.append(result("t1"));
    expect(stream.openRequests("tool_call", "t1")).toBe(1);
    stream.append(result("t1"), result("t2"));
    expect(stream.openRequests("tool_call", "t1")).toBe(0);
    expect(stream.openRequests("tool_call", "t2")).toBe(0);
  });

  it("keeps tool calls and inquiries apart", () => {
    const stream = ConversationStream.from([turnStart(), chat(), call("t1"), ask("t1")]);
    expect(stream.openRequests("tool_call", "t1")).toBe(1);
    expect(stream.openRequests("inquiry", "t1")).toBe(1);
    stream.append(answer("t1"));
    expect(stream.openRequests("inquiry", "t1")).toBe(0);
    expect(stream.openRequests("tool_call", "t1")).toBe(1);
  });

  it("counts only the current turn: a new turn starts with nothing open", () => {
    const stream = ConversationStream.from([turnStart(), chat(), call("t1")]);
    expect(stream.openRequests("tool_call", "t1")).toBe(1);
    stream.startTurn("again");
    expect(stream.openRequests("tool_call", "t1")).toBe(0);
  });

  it("is 0 before any turn has started", () => {
    expect(ConversationStream.empty().openRequests("tool_call", "t1")).toBe(0);
  });

  it("reads a decoded stream's last turn, a refused append changing nothing", () => {
    const json = [turnStart(), chat(), call("t1"), result("t1"), call("t1"), call("t2")];
    const stream = ConversationStream.decode(structuredClone(json))._unsafeUnwrap();
    expect(stream.openRequests("tool_call", "t1")).toBe(1);
    expect(stream.openRequests("tool_call", "t2")).toBe(1);
    // The batch is refused as a whole (its second response has no request): nothing is counted.
    expect(stream.tryAppend(result("t1"), result("t3")).isErr()).toBe(true);
    expect(stream.openRequests("tool_call", "t1")).toBe(1);
  });

  it("after sanitize() counts the repaired turn", () => {
    const stream = ConversationStream.from([turnStart(), chat(), call("t1")]);
    expect(stream.openRequests("tool_call", "t1")).toBe(1);
    // JP's repair answers the dangling call.
    stream.sanitize();
    expect(stream.openRequests("tool_call", "t1")).toBe(0);
  });
});

describe("setMetadata", () => {
  it("keeps the other keys in order, `__proto__` and `constructor` as own keys", () => {
    const event = JSON.parse(
      '{"timestamp":"t","type":"chat_request","content":"x","metadata":{"b":1,"__proto__":{"p":true},"constructor":"c","a":[2]}}',
    );
    const stream = ConversationStream.decode([turnStart(), event])._unsafeUnwrap();
    stream.setMetadata(1, "b", undefined)._unsafeUnwrap();
    stream.setMetadata(1, "z", "new")._unsafeUnwrap();
    const metadata = (stream.events[1] as { metadata?: Record<string, unknown> }).metadata ?? {};
    expect(Object.keys(metadata)).toEqual(["__proto__", "constructor", "a", "z"]);
    expect(Object.getPrototypeOf(metadata)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(metadata, "__proto__")?.value).toEqual({ p: true });
    expect(({} as Record<string, unknown>).p).toBeUndefined();
    expect(JSON.stringify(metadata)).toBe(
      '{"__proto__":{"p":true},"constructor":"c","a":[2],"z":"new"}',
    );
  });
});
