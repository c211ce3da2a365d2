import {
  ConversationStream,
  createEvent,
  type JsonObject,
  type StreamEvent,
  type ToolCallRequest,
  type ToolCallResponse,
} from "@jp/conversation";
import { describe, expect, it } from "vitest";
import {
  OpenToolCallError,
  recordAnthropicReply,
  recordOpenAIChatReply,
  recordOpenAIResponsesReply,
  toAnthropicMessages,
  toOpenAIChatMessages,
  toOpenAIResponsesInput,
} from "../src/index.js";

const call = (id: string, name = "lookup", args: JsonObject = { q: id }) =>
  createEvent("tool_call_request", { id, name, arguments: args });
const result = (id: string, content: string, is_error = false) =>
  createEvent("tool_call_response", { id, content, is_error });
const says = (message: string) => createEvent("chat_response", { message });

/** A turn in which two calls finish in the opposite order, with a question in between. */
function twoCalls(): ConversationStream {
  const stream = ConversationStream.empty();
  stream.startTurn("Find a and b.");
  const events: StreamEvent[] = [
    says("Looking both up."),
    call("A"),
    call("B", "ask_user", { question: "Which b?" }),
    createEvent("inquiry_request", {
      id: "B.answer.1",
      source: { source: "assistant" },
      question: { text: "Which b?", answer_type: { type: "text" } },
    }),
    result("A", "a is 1"),
    createEvent("inquiry_response", { outcome: "answered", id: "B.answer.1", answer: "the big b" }),
    result("B", "the big b", true),
    createEvent("chat_response", { reasoning: "both found" }),
    says("a is 1 and b is big."),
  ];
  stream.append(...(events as never[]));
  return stream;
}

describe("toAnthropicMessages", () => {
  it("pairs each call with its result, in the order of the calls, and leaves inquiries out", () => {
    expect(toAnthropicMessages(twoCalls())).toEqual([
      { role: "user", content: [{ type: "text", text: "Find a and b." }] },
      {
        role: "assistant",
        content: [
          { type: "text", text: "Looking both up." },
          { type: "tool_use", id: "A", name: "lookup", input: { q: "A" } },
          { type: "tool_use", id: "B", name: "ask_user", input: { question: "Which b?" } },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "A", content: "a is 1" },
          { type: "tool_result", tool_use_id: "B", content: "the big b", is_error: true },
        ],
      },
      { role: "assistant", content: [{ type: "text", text: "a is 1 and b is big." }] },
    ]);
  });

  it("puts the user's words after the results when they answer within the turn", () => {
    const stream = ConversationStream.empty();
    stream.startTurn("Go.");
    stream.append(call("A"), result("A", "done"));
    stream.append(createEvent("chat_request", { content: "Now stop." }));
    expect(toAnthropicMessages(stream).at(-1)).toEqual({
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "A", content: "done" },
        { type: "text", text: "Now stop." },
      ],
    });
  });

  it("pairs a call id reused in a later turn with that turn's result", () => {
    const stream = ConversationStream.empty();
    for (const answer of ["one", "two"]) {
      stream.startTurn(`Ask ${answer}.`);
      stream.append(call("call_1"), result("call_1", answer), says(answer));
    }
    const results = toAnthropicMessages(stream)
      .flatMap((m) => m.content)
      .filter((b) => b.type === "tool_result");
    expect(results.map((b) => b.content)).toEqual(["one", "two"]);
  });

  it("sends structured data as JSON text and leaves empty text out", () => {
    const stream = ConversationStream.empty();
    stream.startTurn("Data?");
    stream.append(createEvent("chat_response", { data: { n: 1 } }), says(""));
    expect(toAnthropicMessages(stream)[1]).toEqual({
      role: "assistant",
      content: [{ type: "text", text: '{"n":1}' }],
    });
  });

  it("leaves out a response that answers no call (a damaged stream)", () => {
    const decoded = ConversationStream.decode([
      { type: "turn_start", timestamp: "2026-01-01 00:00:00.0" },
      { type: "chat_request", timestamp: "2026-01-01 00:00:00.0", content: "Hi" },
      { type: "tool_call_response", timestamp: "2026-01-01 00:00:00.0", id: "x", content: "?" },
    ])._unsafeUnwrap();
    expect(toAnthropicMessages(decoded)).toEqual([
      { role: "user", content: [{ type: "text", text: "Hi" }] },
    ]);
  });
});

describe("a suspended turn (a call without its result)", () => {
  function suspended(): ConversationStream {
    const stream = ConversationStream.empty();
    stream.startTurn("Go.");
    stream.append(says("Asking."), call("A"), call("B"), result("A", "ok"));
    return stream;
  }

  it.each([
    ["anthropic", toAnthropicMessages],
    ["openai-chat", toOpenAIChatMessages],
    ["openai-responses", toOpenAIResponsesInput],
  ] as const)("%s: throws a clear error naming the open call", (_, map) => {
    const thrown = (() => {
      try {
        map(suspended());
      } catch (error) {
        return error;
      }
    })();
    expect(OpenToolCallError.isInstance(thrown)).toBe(true);
    expect(thrown).toMatchObject({ toolCallId: "B", toolName: "lookup" });
    expect(String((thrown as Error).message)).toContain("resume the suspended turn first");
  });

  it("leaves the open call out with openCalls: skip", () => {
    const messages = toOpenAIChatMessages(suspended(), { openCalls: "skip" });
    expect(messages).toEqual([
      { role: "user", content: "Go." },
      {
        role: "assistant",
        content: "Asking.",
        tool_calls: [
          { id: "A", type: "function", function: { name: "lookup", arguments: '{"q":"A"}' } },
        ],
      },
      { role: "tool", tool_call_id: "A", content: "ok" },
    ]);
  });
});

describe("toOpenAIChatMessages", () => {
  it("one assistant message with the calls, then one tool message per call in call order", () => {
    expect(toOpenAIChatMessages(twoCalls())).toEqual([
      { role: "user", content: "Find a and b." },
      {
        role: "assistant",
        content: "Looking both up.",
        tool_calls: [
          { id: "A", type: "function", function: { name: "lookup", arguments: '{"q":"A"}' } },
          {
            id: "B",
            type: "function",
            function: { name: "ask_user", arguments: '{"question":"Which b?"}' },
          },
        ],
      },
      { role: "tool", tool_call_id: "A", content: "a is 1" },
      { role: "tool", tool_call_id: "B", content: "the big b" },
      { role: "assistant", content: "a is 1 and b is big." },
    ]);
  });

  it("gives a call with no text before it null content, and joins two texts", () => {
    const stream = ConversationStream.empty();
    stream.startTurn("Go.");
    stream.append(call("A"), result("A", "ok"), says("one"), says("two"));
    const messages = toOpenAIChatMessages(stream);
    expect(messages[1]).toMatchObject({ role: "assistant", content: null });
    expect(messages.at(-1)).toEqual({ role: "assistant", content: "one\n\ntwo" });
  });
});

describe("toOpenAIResponsesInput", () => {
  it("function_call items, then their outputs in call order", () => {
    expect(toOpenAIResponsesInput(twoCalls())).toEqual([
      { type: "message", role: "user", content: "Find a and b." },
      { type: "message", role: "assistant", content: "Looking both up." },
      { type: "function_call", call_id: "A", name: "lookup", arguments: '{"q":"A"}' },
      {
        type: "function_call",
        call_id: "B",
        name: "ask_user",
        arguments: '{"question":"Which b?"}',
      },
      { type: "function_call_output", call_id: "A", output: "a is 1" },
      { type: "function_call_output", call_id: "B", output: "the big b" },
      { type: "message", role: "assistant", content: "a is 1 and b is big." },
    ]);
  });
});

describe("recording a reply", () => {
  function fresh(): ConversationStream {
    const stream = ConversationStream.empty();
    stream.startTurn("Go.");
    return stream;
  }

  it("Anthropic: text, thinking and tool_use blocks, in order; returns the calls", () => {
    const stream = fresh();
    const calls = recordAnthropicReply(stream, {
      content: [
        { type: "thinking", thinking: "hm" },
        { type: "text", text: "Let me ask." },
        { type: "tool_use", id: "t1", name: "ask_user", input: { question: "Why?" } },
        { type: "server_tool_use", id: "s1", name: "web_search", input: {} },
      ],
    });
    expect(calls).toMatchObject([{ type: "tool_call_request", id: "t1", name: "ask_user" }]);
    expect(stream.events.slice(2)).toMatchObject([
      { type: "chat_response", reasoning: "hm" },
      { type: "chat_response", message: "Let me ask." },
      { type: "tool_call_request", id: "t1", arguments: { question: "Why?" } },
    ]);
    expect(calls[0]).toBe(stream.events[4]);
  });

  it("OpenAI Chat: parses JSON arguments; a call with broken ones is answered with an error", () => {
    const stream = fresh();
    const calls = recordOpenAIChatReply(stream, {
      choices: [
        {
          message: {
            content: "Two calls.",
            tool_calls: [
              { id: "c1", type: "function", function: { name: "lookup", arguments: '{"q":1}' } },
              { id: "c2", type: "function", function: { name: "lookup", arguments: "{nope" } },
              { id: "c3", type: "function", function: { name: "now", arguments: "" } },
            ],
          },
        },
      ],
    });
    expect(calls.map((c) => [c.id, c.arguments])).toEqual([
      ["c1", { q: 1 }],
      ["c3", {}],
    ]);
    const refused = stream.events.at(-1);
    expect(refused).toMatchObject({ type: "tool_call_response", id: "c2", is_error: true });
    expect((refused as { content: string }).content).toBe(
      "The call was not run: its arguments are not valid JSON. Call lookup again with its arguments as one JSON object.",
    );
  });

  it("runs a call whose own arguments have a `problem` key, in every format", () => {
    const args = { problem: "login fails", severity: "high" };
    const replies: [string, (stream: ConversationStream) => { arguments: unknown }[]][] = [
      [
        "Anthropic",
        (stream) =>
          recordAnthropicReply(stream, {
            content: [{ type: "tool_use", id: "t1", name: "file_bug", input: args }],
          }),
      ],
      [
        "OpenAI Chat",
        (stream) =>
          recordOpenAIChatReply(stream, {
            choices: [
              {
                message: {
                  content: null,
                  tool_calls: [
                    {
                      id: "t1",
                      type: "function",
                      function: { name: "file_bug", arguments: JSON.stringify(args) },
                    },
                  ],
                },
              },
            ],
          }),
      ],
      [
        "OpenAI Responses",
        (stream) =>
          recordOpenAIResponsesReply(stream, {
            output: [
              {
                type: "function_call",
                call_id: "t1",
                name: "file_bug",
                arguments: JSON.stringify(args),
              },
            ],
          }),
      ],
    ];
    for (const [format, record] of replies) {
      const stream = fresh();
      const calls = record(stream);
      expect([format, calls.map((c) => c.arguments)]).toEqual([format, [args]]);
      expect([format, stream.events.filter((e) => e.type === "tool_call_response")]).toEqual([
        format,
        [],
      ]);
    }
  });

  it("OpenAI Chat: arguments sent as an object, null or not at all are not a crash", () => {
    const stream = fresh();
    const call = (id: string, args: unknown) => ({
      id,
      type: "function",
      function: { name: "lookup", arguments: args as string },
    });
    const calls = recordOpenAIChatReply(stream, {
      choices: [
        {
          message: {
            content: null,
            tool_calls: [
              call("c1", { q: 1 }),
              call("c2", null),
              call("c3", undefined),
              call("c4", 42),
              call("c5", ["q"]),
            ],
          },
        },
      ],
    });
    expect(calls.map((c) => [c.id, c.arguments])).toEqual([
      ["c1", { q: 1 }],
      ["c2", {}],
      ["c3", {}],
    ]);
    expect(
      stream.events
        .filter((e) => e.type === "tool_call_response")
        .map((e) => [(e as ToolCallResponse).id, (e as ToolCallResponse).content]),
    ).toEqual([
      [
        "c4",
        "The call was not run: its arguments are a number, not a JSON object. Call lookup again with its arguments as one JSON object.",
      ],
      [
        "c5",
        "The call was not run: its arguments are a list, not a JSON object. Call lookup again with its arguments as one JSON object.",
      ],
    ]);
  });

  it("OpenAI Chat: a call without a string id is not recorded; a name that is not a string is empty", () => {
    const stream = fresh();
    const calls = recordOpenAIChatReply(stream, {
      choices: [
        {
          message: {
            content: null,
            tool_calls: [
              {
                id: 7 as unknown as string,
                type: "function",
                function: { name: "a", arguments: "{}" },
              },
              {
                id: "c2",
                type: "function",
                function: { name: 7 as unknown as string, arguments: "{}" },
              },
            ],
          },
        },
      ],
    });
    expect(calls.map((c) => [c.id, c.name])).toEqual([["c2", ""]]);
    expect(stream.events.slice(2).map((e) => (e as ToolCallRequest).id)).toEqual(["c2"]);
  });

  it("OpenAI Responses: arguments sent as an object are the call's, not an empty call", () => {
    const stream = fresh();
    const calls = recordOpenAIResponsesReply(stream, {
      output: [{ type: "function_call", call_id: "c1", name: "lookup", arguments: { q: 1 } }],
    });
    expect(calls.map((c) => [c.id, c.arguments])).toEqual([["c1", { q: 1 }]]);
  });

  it("OpenAI Chat: a refusal is recorded as the assistant's message", () => {
    const stream = fresh();
    recordOpenAIChatReply(stream, { choices: [{ message: { content: null, refusal: "No." } }] });
    expect(stream.events.at(-1)).toMatchObject({ type: "chat_response", message: "No." });
  });

  it("OpenAI Responses: messages, reasoning summaries and function calls", () => {
    const stream = fresh();
    const calls = recordOpenAIResponsesReply(stream, {
      output: [
        { type: "reasoning", summary: [{ text: "think" }] },
        { type: "message", content: [{ type: "output_text", text: "Asking." }] },
        { type: "function_call", call_id: "f1", name: "ask_user", arguments: '{"question":"?"}' },
        { type: "function_call", call_id: "f2", name: "lookup", arguments: "[1]" },
      ],
    });
    expect(calls.map((c) => c.id)).toEqual(["f1"]);
    expect(stream.events.at(-1)).toMatchObject({
      id: "f2",
      is_error: true,
      content: expect.stringContaining("its arguments are a list, not a JSON object"),
    });
  });

  it("a recorded reply maps back to what the provider sent", () => {
    const stream = fresh();
    recordAnthropicReply(stream, {
      content: [
        { type: "text", text: "Asking." },
        { type: "tool_use", id: "t1", name: "lookup", input: { q: "x" } },
      ],
    });
    stream.append(result("t1", "found"));
    expect(toAnthropicMessages(stream).slice(1)).toEqual([
      {
        role: "assistant",
        content: [
          { type: "text", text: "Asking." },
          { type: "tool_use", id: "t1", name: "lookup", input: { q: "x" } },
        ],
      },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "found" }] },
    ]);
  });
});
