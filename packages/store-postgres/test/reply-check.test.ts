// A live prompt's reply is checked with checkPromptReply on the request held in its row, without
// a stream around it; answerPendingPrompt on a one-entry stream holding the prompt must agree on
// every reply, accepted or refused, stored value, `remember` and error message included.
import { ConversationStream, createEvent, type JsonObject } from "@jp/conversation";
import {
  answerPendingPrompt,
  PENDING_METADATA_KEY,
  type PromptRequest,
  type StoredReply,
} from "@jp/coordinator";
import type { AnswerType } from "@jp/tool";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkLiveReply } from "../src/internal/answer.js";

const NOW = new Date("2026-01-01T00:00:00Z");

/** What answerPendingPrompt stores for a reply to `request`, or its refusal. */
function fullWay(request: PromptRequest, promptId: string, reply: StoredReply) {
  const marker = {
    v: 1,
    prompt_id: promptId,
    request,
    turn: { remembered_tool_answers: {}, remembered_permission_decisions: {}, attempts: [] },
    suspended_at: NOW.toISOString(),
  };
  const stream = ConversationStream.from([
    createEvent("tool_call_request", {
      id: request.tool_call_id,
      name: request.tool_name,
      arguments: {},
      metadata: { [PENDING_METADATA_KEY]: JSON.parse(JSON.stringify(marker)) },
    }),
  ]);
  const answered = answerPendingPrompt(stream, promptId, reply, NOW);
  if (answered.isErr()) return { error: answered.error.kind, message: answered.error.message };
  const metadata = (stream.events[0] as { metadata: JsonObject }).metadata;
  return { reply: (metadata[PENDING_METADATA_KEY] as { reply: StoredReply }).reply };
}

function viaInbox(request: PromptRequest, promptId: string, reply: StoredReply) {
  return checkLiveReply(request, promptId, reply, NOW).match(
    (ok) => ({ reply: ok }),
    (e) => ({ error: e.kind, message: e.message }),
  );
}

const answerTypes: fc.Arbitrary<AnswerType> = fc.oneof(
  fc.constant({ type: "boolean" as const }),
  fc.constant({ type: "text" as const }),
  fc.constant({ type: "secret" as const }),
  fc
    .uniqueArray(fc.string({ maxLength: 6 }), { minLength: 1, maxLength: 4 })
    .chain((options) =>
      fc.constantFrom(
        { type: "select" as const, options },
        { type: "multi_select" as const, options },
      ),
    ),
  fc.constant<AnswerType>({
    type: "schema",
    schema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
  }),
);

const requests = fc.record({
  answer_type: answerTypes,
  controls: fc.record({
    remember: fc.boolean(),
    back: fc.boolean(),
    reply: fc.boolean(),
    end_turn: fc.boolean(),
  }),
});

// Values that fit some answer types and not others, and arbitrary JSON besides.
const values = fc.oneof(
  fc.boolean(),
  fc.string({ maxLength: 6 }),
  fc.array(fc.string({ maxLength: 6 }), { maxLength: 4 }),
  fc.record({ n: fc.oneof(fc.integer(), fc.double(), fc.string()) }),
  fc.jsonValue({ maxDepth: 2 }),
);

const replies = fc.oneof(
  { weight: 4, arbitrary: fc.record({ type: fc.constant("answer"), value: values }) },
  {
    weight: 2,
    arbitrary: fc.record({
      type: fc.constant("answer"),
      value: values,
      remember: fc.oneof(fc.boolean(), fc.constant("yes")),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.oneof(
      fc.record({ type: fc.constantFrom("back", "end_turn", "cancelled", "run", "answer") }),
      fc.record({ type: fc.constant("reply"), message: fc.oneof(fc.string(), fc.integer()) }),
      fc.constant(null),
      fc.constant("answer"),
    ),
  },
);

describe("the check of a live reply", () => {
  it("agrees with answerPendingPrompt on every reply, accepted or refused", () => {
    fc.assert(
      fc.property(requests, replies, ({ answer_type, controls }, reply) => {
        const request: PromptRequest = {
          kind: "question",
          tool_name: "quiz",
          tool_call_id: "call_1",
          inquiry_id: "call_1.q.1",
          question: { id: "q", text: "Q?", answer_type },
          controls,
        };
        const given = reply as unknown as StoredReply;
        // Compared as the database carries them, JSON: a -0 in a reply is 0 either way there.
        expect(asJson(viaInbox(request, "call_1.q.1", given))).toEqual(
          asJson(fullWay(request, "call_1.q.1", given)),
        );
      }),
      { numRuns: 2_000 },
    );
  });

  it("permission and delivery prompts too, and a row whose request is not one is refused, typed", () => {
    const permission: PromptRequest = {
      kind: "permission",
      tool_name: "t",
      tool_call_id: "call_1",
      arguments: {},
      mode: "ask",
    };
    const permissionReplies = [
      { type: "run", remember: true },
      { type: "skip", reason: "later" },
      { type: "skip", reason: 3 },
      { type: "edit", arguments: { path: "a" } },
      { type: "edit", arguments: "a" },
      { type: "deliver" },
    ];
    for (const reply of permissionReplies) {
      const given = reply as unknown as StoredReply;
      expect(viaInbox(permission, "call_1#permission", given)).toEqual(
        fullWay(permission, "call_1#permission", given),
      );
    }
    // A row written by something else: never an exception, an unknown prompt as a loaded
    // stream's unreadable marker would be.
    for (const foreign of [null, {}, { kind: "question" }, { kind: "riddle", tool_call_id: 1 }]) {
      expect(
        viaInbox(foreign as unknown as PromptRequest, "p", { type: "answer", value: true }),
      ).toMatchObject({ error: "unknown_prompt" });
    }
  });
});

function asJson(value: unknown): unknown {
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
}
