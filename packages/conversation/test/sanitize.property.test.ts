import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ConversationStream, type StreamEvent, SUSPENDED_CALL_METADATA_KEY } from "../src/index.js";
import { sanitizeByStep } from "./support/sanitize-by-step.js";

// sanitize() repairs in one pass what JP describes as seven passes; the seven passes, one after
// the other, are the model it is held to on arbitrary streams: the same events (the very same
// objects where kept), the same report in the same order.

const T = "2026-11-24 10:00:00.000000";
const ids = fc.constantFrom("a", "b", "c");
const questionIds = fc.constantFrom("a.q.1", "b.q.1", "c.q.1", "x.q.1");

const event: fc.Arbitrary<StreamEvent> = fc.oneof(
  fc.constant({ timestamp: T, type: "turn_start" }),
  fc.constant({ timestamp: T, type: "chat_request", content: "hi" }),
  fc.constant({ timestamp: T, type: "chat_response", message: "ok" }),
  fc.constant({ timestamp: T, type: "config_delta", delta: {} }),
  fc.constant({ timestamp: T, type: "future_event", id: "a" }),
  fc.record({ id: ids, suspended: fc.boolean() }).map(({ id, suspended }) => ({
    timestamp: T,
    type: "tool_call_request" as const,
    id,
    name: "deploy",
    arguments: {},
    ...(suspended ? { metadata: { [SUSPENDED_CALL_METADATA_KEY]: { v: 1 } } } : {}),
  })),
  ids.map((id) => ({
    timestamp: T,
    type: "tool_call_response" as const,
    id,
    content: "done",
    is_error: false,
  })),
  questionIds.map((id) => ({
    timestamp: T,
    type: "inquiry_request" as const,
    id,
    source: { source: "tool" as const, name: "deploy" },
    question: { text: "Go?", answer_type: { type: "boolean" as const } },
  })),
  questionIds.map((id) => ({
    timestamp: T,
    type: "inquiry_response" as const,
    outcome: "answered" as const,
    id,
    answer: true,
  })),
) as fc.Arbitrary<StreamEvent>;

// Fresh objects per position, so identity tells which entry went where.
const stream = fc.array(event, { maxLength: 40 }).map((events) => events.map((e) => ({ ...e })));

describe("sanitize() against the seven steps run one after the other", () => {
  it("repairs every stream to the same events with the same report", () => {
    fc.assert(
      fc.property(stream, (input) => {
        const expected = sanitizeByStep(input);
        const actual = ConversationStream.from(input);
        const report = actual.sanitize();
        expect(actual.events).toStrictEqual(expected.events);
        expected.events.forEach((e, i) => {
          if (input.includes(e)) expect(actual.events[i]).toBe(e);
        });
        expect(report).toStrictEqual(expected.report);
        report.removed.forEach((change, i) => {
          expect(change.event).toBe(expected.report.removed[i]?.event);
        });
      }),
      { numRuns: 2000 },
    );
  });
});
