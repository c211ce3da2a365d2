import { ConversationStream, type JsonValue } from "@jp/conversation";
import type { Question } from "@jp/tool";
import { describe, expect, it, vi } from "vitest";
import type {
  InquiryBackend,
  InquiryError,
  InquiryRequestInput,
} from "../../src/backends/inquiry-backend.js";
import { inquiryPromptText, inquirySchemaFor } from "../../src/backends/inquiry-schema.js";
import {
  createJsonSchemaInquiryBackend,
  type JsonSchemaCompletion,
} from "../../src/backends/json-schema-inquiry.js";
import { ToolCoordinator, TurnState } from "../../src/index.js";
import { MockExecutor, MockExecutorSource } from "../../src/testing/index.js";

const select: Question = {
  id: "color",
  text: "Which color?",
  answer_type: { type: "select", options: ["red", "green"] },
};

function request(question: Question = select): InquiryRequestInput {
  return {
    stream: ConversationStream.empty(),
    inquiryId: `call_1.${question.id}.1`,
    toolName: "paint",
    question,
  };
}

const live = (): AbortSignal => new AbortController().signal;

type Expected = { ok: JsonValue } | { err: InquiryError["kind"]; message?: RegExp };

describe("createJsonSchemaInquiryBackend", () => {
  it.each<[string, JsonSchemaCompletion, Question, Expected]>([
    ["structured data", async () => ({ answer: "red" }), select, { ok: "red" }],
    ["JSON text", async () => ' {"answer":"green"}\n', select, { ok: "green" }],
    [
      "JSON text in a code fence",
      async () => '```json\n{"answer":"green"}\n```',
      select,
      { ok: "green" },
    ],
    [
      "a boolean answer",
      async () => ({ answer: false }),
      { id: "ok", text: "OK?", answer_type: { type: "boolean" } },
      { ok: false },
    ],
    [
      "a rejection",
      async () => Promise.reject(new Error("rate limited")),
      select,
      { err: "provider", message: /rate limited/ },
    ],
    [
      "a synchronous throw",
      (() => {
        throw new Error("no client");
      }) as JsonSchemaCompletion,
      select,
      { err: "provider", message: /no client/ },
    ],
    [
      "text that is not JSON",
      async () => "I think red.",
      select,
      { err: "missing_structured_data" },
    ],
    [
      "a non-object",
      async () => ["red"],
      select,
      { err: "missing_structured_data", message: /array/ },
    ],
    ["null", async () => null, select, { err: "missing_structured_data", message: /null/ }],
    ["nothing", async () => undefined, select, { err: "missing_structured_data" }],
    [
      "an object without answer",
      async () => ({ color: "red" }),
      select,
      { err: "missing_structured_data", message: /no "answer"/ },
    ],
    [
      "an answer outside the options",
      async () => ({ answer: "blue" }),
      select,
      { err: "answer_extraction", message: /expected one of "red", "green", got "blue"/ },
    ],
    [
      "an answer failing the question's schema",
      async () => ({ answer: { y: 1 } }),
      {
        id: "point",
        text: "Where?",
        answer_type: { type: "schema", schema: { type: "object", required: ["x"] } },
      },
      { err: "answer_extraction", message: /JSON Schema/ },
    ],
    [
      "a question schema that does not compile",
      async () => ({ answer: 1 }),
      { id: "bad", text: "?", answer_type: { type: "schema", schema: { type: "no-such-type" } } },
      { err: "other", message: /does not compile/ },
    ],
  ])("maps %s", async (_name, complete, question, expected) => {
    const result = await createJsonSchemaInquiryBackend(complete).inquire(request(question), {
      signal: live(),
    });
    if ("ok" in expected) {
      expect(result._unsafeUnwrap()).toEqual(expected.ok);
    } else {
      const error = result._unsafeUnwrapErr();
      expect(error.kind).toBe(expected.err);
      if (expected.message !== undefined) expect(error.message).toMatch(expected.message);
    }
  });

  it("refuses a secret question without calling the completion", async () => {
    const complete = vi.fn(async () => ({ answer: "hunter2" }));
    const secret: Question = { id: "token", text: "Token?", answer_type: { type: "secret" } };
    const result = await createJsonSchemaInquiryBackend(complete).inquire(request(secret), {
      signal: live(),
    });
    expect(result._unsafeUnwrapErr().kind).toBe("other");
    expect(complete).not.toHaveBeenCalled();
  });

  it("is cancelled without a call when the signal is already aborted", async () => {
    const complete = vi.fn(async () => ({ answer: "red" }));
    const result = await createJsonSchemaInquiryBackend(complete).inquire(request(), {
      signal: AbortSignal.abort(),
    });
    expect(result._unsafeUnwrapErr().kind).toBe("cancelled");
    expect(complete).not.toHaveBeenCalled();
  });

  it("is cancelled as soon as the signal aborts, even if the completion ignores it", async () => {
    const controller = new AbortController();
    const backend = createJsonSchemaInquiryBackend(() => new Promise(() => {}));
    const pending = backend.inquire(request(), { signal: controller.signal });
    controller.abort();
    expect((await pending)._unsafeUnwrapErr().kind).toBe("cancelled");
  });

  it("reports a rejection caused by the abort as cancelled, not provider", async () => {
    const controller = new AbortController();
    const backend = createJsonSchemaInquiryBackend(
      ({ signal }) =>
        new Promise((_resolve, reject) =>
          signal.addEventListener("abort", () => reject(new Error("aborted"))),
        ),
    );
    const pending = backend.inquire(request(), { signal: controller.signal });
    controller.abort();
    expect((await pending)._unsafeUnwrapErr().kind).toBe("cancelled");
  });

  it("asks with JP's prompt and schema, on a sanitized copy of the stream", async () => {
    const complete = vi.fn<JsonSchemaCompletion>(async () => ({ answer: "red" }));
    const input = request();
    const signal = live();
    await createJsonSchemaInquiryBackend(complete).inquire(input, { signal });
    expect(complete).toHaveBeenCalledOnce();
    const [call] = complete.mock.calls[0] ?? [];
    expect(call).toMatchObject({
      prompt: inquiryPromptText("paint", select),
      schema: inquirySchemaFor(select.answer_type)._unsafeUnwrap(),
      signal,
      request: input,
    });
    expect(call?.stream).not.toBe(input.stream);
  });

  it("through the coordinator: the paused copy, repaired once, and never the same copy twice", async () => {
    const seen: ConversationStream[] = [];
    const complete = vi.fn<JsonSchemaCompletion>(async ({ stream }) => {
      seen.push(stream);
      // A host may change the copy it is given, e.g. by adding its prompt.
      stream.startTurn("changed by the host");
      return { answer: "red" };
    });
    const jsonSchema = createJsonSchemaInquiryBackend(complete);
    // A backend that asks again with the same request (a host's retry).
    const twice: InquiryBackend = {
      async inquire(input, options) {
        await jsonSchema.inquire(input, options);
        return jsonSchema.inquire(input, options);
      },
    };
    const stream = ConversationStream.empty();
    stream.startTurn("Paint it.");
    const paint = new MockExecutor((input) =>
      input.answers.color === undefined
        ? { type: "needs_input", question: select }
        : { type: "success", content: `painted ${String(input.answers.color)}` },
    );
    const coordinator = new ToolCoordinator({
      stream,
      tools: { paint: { run: "unattended", questions: { color: { target: "assistant" } } } },
      executors: new MockExecutorSource({ paint }),
      inquiries: twice,
    });
    const { responses } = await coordinator.run([{ id: "call_1", name: "paint", arguments: {} }], {
      turn: new TurnState(),
    });
    expect(responses[0]?.content).toBe("painted red");
    expect(seen).toHaveLength(2);
    expect(seen[0]).not.toBe(seen[1]);
    // Each was the conversation with the call paused and the open question removed, and the
    // second did not get what the host added to the first.
    for (const copy of seen) {
      const types = copy.events.map((e) => e.type);
      expect(types.slice(0, 4)).toEqual([
        "turn_start",
        "chat_request",
        "tool_call_request",
        "tool_call_response",
      ]);
      expect(types).not.toContain("inquiry_request");
      expect(types.filter((t) => t === "turn_start")).toHaveLength(2);
    }
    // The coordinator's own stream is untouched by either.
    expect(stream.events.filter((e) => e.type === "turn_start")).toHaveLength(1);
  });
});
