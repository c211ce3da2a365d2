import { describe, expect, it } from "vitest";
import {
  ConversationStream,
  INTERRUPTED_TOOL_CALL_CONTENT,
  type SanitizeReason,
  type StreamEvent,
  type ToolCallRequest,
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

type Change = [SanitizeReason, StreamEvent];

interface Case {
  name: string;
  input: StreamEvent[];
  /** The repaired stream: the input's own objects, plus any inserted ones. */
  output: StreamEvent[];
  removed: Change[];
  inserted: Change[];
}

function check({ input, output, removed, inserted }: Case) {
  const stream = ConversationStream.from(input);
  const report = stream.sanitize();
  expect(stream.events).toStrictEqual(output);
  // Kept events are the very same objects, not copies.
  output.forEach((event, i) => {
    if (input.includes(event)) expect(stream.events[i]).toBe(event);
  });
  expect(report.removed).toStrictEqual(removed.map(([reason, event]) => ({ reason, event })));
  report.removed.forEach((change, i) => {
    expect(change.event).toBe(removed[i]?.[1]);
  });
  expect(report.inserted).toStrictEqual(inserted.map(([reason, event]) => ({ reason, event })));
  report.inserted.forEach((change) => {
    expect(stream.events).toContain(change.event);
  });
  expect(report.changed).toBe(removed.length + inserted.length > 0);
}

function interrupted(request: ToolCallRequest) {
  return {
    timestamp: request.timestamp,
    type: "tool_call_response" as const,
    id: request.id,
    content: INTERRUPTED_TOOL_CALL_CONTENT,
    is_error: true,
  };
}

describe("step 1: conversation events before the first chat_request", () => {
  it.each<Case>([
    (() => {
      const [delta, early, earlyCall, start, request, response] = [
        configDelta(),
        reply("stray"),
        call("t0"),
        turnStart(),
        chat(),
        reply(),
      ];
      return {
        name: "are dropped; config deltas and turn_starts stay",
        input: [delta, early, earlyCall, start, request, response],
        output: [delta, start, request, response],
        removed: [
          ["before-first-chat-request", early],
          ["before-first-chat-request", earlyCall],
        ],
        inserted: [],
      } satisfies Case;
    })(),
    (() => {
      const unknown = { timestamp: "t", type: "compaction", summary: "s" };
      const [start, early, request] = [turnStart(), answer("t0.q.1"), chat()];
      return {
        name: "are dropped; an unknown entry stays",
        input: [unknown, start, early, request],
        output: [unknown, start, request],
        removed: [["before-first-chat-request", early]],
        inserted: [],
      } satisfies Case;
    })(),
  ])("$name", check);
});

describe("step 2: orphaned tool call responses", () => {
  it.each<Case>([
    (() => {
      const [start, request, orphan, response] = [turnStart(), chat(), result("t9"), reply()];
      return {
        name: "a response with no request is removed",
        input: [start, request, orphan, response],
        output: [start, request, response],
        removed: [["orphaned-tool-call-response", orphan]],
        inserted: [],
      } satisfies Case;
    })(),
    (() => {
      const [start, request, toolCall, first, second] = [
        turnStart(),
        chat(),
        call("t1"),
        result("t1", "1"),
        result("t1", "2"),
      ];
      return {
        name: "a second response to one request is removed",
        input: [start, request, toolCall, first, second],
        output: [start, request, toolCall, first],
        removed: [["orphaned-tool-call-response", second]],
        inserted: [],
      } satisfies Case;
    })(),
    (() => {
      const [s1, c1, toolCall, s2, c2, late] = [
        turnStart("1"),
        chat(),
        call("t1", "1.5"),
        turnStart("2"),
        chat(),
        result("t1", "3"),
      ];
      return {
        name: "a response whose request is in an earlier turn is removed, and that request is interrupted",
        input: [s1, c1, toolCall, s2, c2, late],
        output: [s1, c1, toolCall, interrupted(toolCall), s2, c2],
        removed: [["orphaned-tool-call-response", late]],
        inserted: [["interrupted-tool-call", interrupted(toolCall)]],
      } satisfies Case;
    })(),
  ])("$name", check);
});

describe("step 3: interrupted tool calls", () => {
  it("each unanswered request gets an error response right after it, with its timestamp", () => {
    const a = call("ta", "2026-03-05 22:00:01.5");
    const b = call("tb", "2026-03-05 22:00:02.25");
    const start = turnStart();
    const request = chat();
    const answered = result("ta", "2026-03-05 22:00:03.0");
    const after = reply("done");
    check({
      name: "",
      input: [start, request, a, b, answered, after],
      output: [start, request, a, b, interrupted(b), answered, after],
      removed: [],
      inserted: [["interrupted-tool-call", interrupted(b)]],
    });
    expect(interrupted(b)).toStrictEqual({
      timestamp: "2026-03-05 22:00:02.25",
      type: "tool_call_response",
      id: "tb",
      content: "Tool call was interrupted.",
      is_error: true,
    });
  });

  it("a request at the very end of the stream is completed too", () => {
    const [start, request, last] = [turnStart(), chat(), call("t1", "9")];
    check({
      name: "",
      input: [start, request, last],
      output: [start, request, last, interrupted(last)],
      removed: [],
      inserted: [["interrupted-tool-call", interrupted(last)]],
    });
  });
});

describe("steps 4 and 5: orphaned inquiry events", () => {
  it.each<Case>([
    (() => {
      const [start, request, toolCall, orphan, response] = [
        turnStart(),
        chat(),
        call("t1"),
        answer("t1.q.1"),
        result("t1"),
      ];
      return {
        name: "an inquiry response with no request is removed",
        input: [start, request, toolCall, orphan, response],
        output: [start, request, toolCall, response],
        removed: [["orphaned-inquiry-response", orphan]],
        inserted: [],
      } satisfies Case;
    })(),
    (() => {
      const [start, request, toolCall, orphan, response] = [
        turnStart(),
        chat(),
        call("t1"),
        ask("t1.q.1"),
        result("t1"),
      ];
      return {
        name: "an inquiry request with no response is removed",
        input: [start, request, toolCall, orphan, response],
        output: [start, request, toolCall, response],
        removed: [["orphaned-inquiry-request", orphan]],
        inserted: [],
      } satisfies Case;
    })(),
    (() => {
      const [start, request, toolCall, question, orphanAnswer, pending] = [
        turnStart(),
        chat(),
        call("t1"),
        ask("t1.q.1"),
        answer("t1.other.1"),
        ask("t1.q.2"),
      ];
      return {
        name: "responses and requests of one turn are removed in stream order",
        input: [start, request, toolCall, question, orphanAnswer, pending],
        output: [start, request, toolCall, interrupted(toolCall)],
        removed: [
          ["orphaned-inquiry-request", question],
          ["orphaned-inquiry-response", orphanAnswer],
          ["orphaned-inquiry-request", pending],
        ],
        inserted: [["interrupted-tool-call", interrupted(toolCall)]],
      } satisfies Case;
    })(),
  ])("$name", check);

  it("cross-turn ID collision under sanitize: the turn-1 orphan is removed, the turn-2 pair stays", () => {
    const s1 = turnStart("1");
    const c1 = chat("first");
    const call1 = call("toolu_A", "1.1");
    const orphan = ask("toolu_A.apply_changes.1", "1.2");
    const result1 = result("toolu_A", "1.3");
    const s2 = turnStart("2");
    const c2 = chat("second");
    const call2 = call("toolu_A", "2.1");
    const request2 = ask("toolu_A.apply_changes.1", "2.2");
    const response2 = answer("toolu_A.apply_changes.1", "2.3");
    const result2 = result("toolu_A", "2.4");
    check({
      name: "",
      input: [s1, c1, call1, orphan, result1, s2, c2, call2, request2, response2, result2],
      output: [s1, c1, call1, result1, s2, c2, call2, request2, response2, result2],
      removed: [["orphaned-inquiry-request", orphan]],
      inserted: [],
    });
  });

  it("cross-turn: a response in turn 2 does not satisfy a request left open in turn 1", () => {
    const [s1, c1, open, s2, c2, late] = [
      turnStart("1"),
      chat(),
      ask("c.q.1", "1.1"),
      turnStart("2"),
      chat(),
      answer("c.q.1", "2.1"),
    ];
    check({
      name: "",
      input: [s1, c1, open, s2, c2, late],
      output: [s1, c1, s2, c2],
      removed: [
        ["orphaned-inquiry-request", open],
        ["orphaned-inquiry-response", late],
      ],
      inserted: [],
    });
  });

  it("legacy duplicate IDs within a turn under sanitize: the by-order pair stays, the second request goes", () => {
    const start = turnStart();
    const request = chat();
    const toolCall = call("toolu_B", "1");
    const first = ask("toolu_B.apply_changes", "2");
    const second = ask("toolu_B.apply_changes", "3");
    const response = answer("toolu_B.apply_changes", "4");
    const toolResult = result("toolu_B", "5");
    check({
      name: "",
      input: [start, request, toolCall, first, second, response, toolResult],
      output: [start, request, toolCall, first, response, toolResult],
      removed: [["orphaned-inquiry-request", second]],
      inserted: [],
    });
  });

  it("legacy duplicate IDs: asked, answered, asked again and left open", () => {
    const start = turnStart();
    const request = chat();
    const toolCall = call("toolu_C", "1");
    const first = ask("toolu_C.confirm", "2");
    const response = answer("toolu_C.confirm", "3");
    const again = ask("toolu_C.confirm", "4");
    const toolResult = result("toolu_C", "5");
    check({
      name: "",
      input: [start, request, toolCall, first, response, again, toolResult],
      output: [start, request, toolCall, first, response, toolResult],
      removed: [["orphaned-inquiry-request", again]],
      inserted: [],
    });
  });
});

describe("step 6: a trailing turn_start", () => {
  it.each<Case>([
    (() => {
      const [start, request, response, trailing] = [
        turnStart("1"),
        chat(),
        reply(),
        turnStart("2"),
      ];
      return {
        name: "is removed",
        input: [start, request, response, trailing],
        output: [start, request, response],
        removed: [["trailing-turn-start", trailing]],
        inserted: [],
      } satisfies Case;
    })(),
    (() => {
      const [start, request, response, trailing, delta] = [
        turnStart("1"),
        chat(),
        reply(),
        turnStart("2"),
        configDelta(),
      ];
      return {
        name: "is removed even when a config delta follows it",
        input: [start, request, response, trailing, delta],
        output: [start, request, response, delta],
        removed: [["trailing-turn-start", trailing]],
        inserted: [],
      } satisfies Case;
    })(),
  ])("$name", check);
});

describe("step 7: one turn_start before the first chat_request", () => {
  it.each<Case>([
    (() => {
      const [first, extra, request] = [turnStart("1"), turnStart("2"), chat()];
      return {
        name: "several are collapsed to the first",
        input: [first, extra, request],
        output: [first, request],
        removed: [["duplicate-turn-start", extra]],
        inserted: [],
      } satisfies Case;
    })(),
    (() => {
      const [delta, request, response] = [
        configDelta(),
        chat("hi", "2025-12-17 13:15:21.788991"),
        reply(),
      ];
      const start = { timestamp: "2025-12-17 13:15:21.788991", type: "turn_start" } as const;
      return {
        name: "a missing one is inserted right before it, with its timestamp",
        input: [delta, request, response],
        output: [delta, start, request, response],
        removed: [],
        inserted: [["missing-turn-start", start]],
      } satisfies Case;
    })(),
  ])("$name", check);

  it("consecutive turn_starts in the middle of the stream are not collapsed", () => {
    const input = [
      turnStart("1"),
      chat(),
      reply(),
      turnStart("2"),
      turnStart("3"),
      chat(),
      reply(),
    ];
    check({ name: "", input, output: input, removed: [], inserted: [] });
  });
});

describe("a sound stream", () => {
  it("is left identical and reported unchanged", () => {
    const input: StreamEvent[] = [
      configDelta(),
      turnStart(),
      chat(),
      reply(),
      call("t1"),
      ask("t1.q.1"),
      answer("t1.q.1"),
      result("t1"),
      configDelta({ conversation: {} }),
      turnStart(),
      chat(),
      call("t1"),
      result("t1"),
      reply(),
    ];
    const stream = ConversationStream.from(input);
    const report = stream.sanitize();
    expect(report).toStrictEqual({ changed: false, removed: [], inserted: [] });
    expect(stream.length).toBe(input.length);
    input.forEach((event, i) => {
      expect(stream.events[i]).toBe(event);
    });
  });

  it("a second pass after a repair changes nothing", () => {
    const stream = ConversationStream.from([
      configDelta(),
      reply("early"),
      chat(),
      call("t1"),
      ask("t1.q.1"),
      turnStart(),
    ]);
    expect(stream.sanitize().changed).toBe(true);
    const repaired = [...stream.events];
    expect(stream.sanitize()).toStrictEqual({ changed: false, removed: [], inserted: [] });
    repaired.forEach((event, i) => {
      expect(stream.events[i]).toBe(event);
    });
  });
});
