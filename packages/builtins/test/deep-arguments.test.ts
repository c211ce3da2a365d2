// A model's call whose arguments are nested too deeply to be saved is recorded without them and
// answered with an error the model can act on; the conversation still saves and loads.
import { ConversationStream, createEvent, type JsonValue } from "@jp/conversation";
import { describe, expect, it } from "vitest";
import {
  recordAnthropicReply,
  recordOpenAIChatReply,
  recordOpenAIResponsesReply,
  toAnthropicMessages,
} from "../src/index.js";

// `levels` arrays within one another around "x": `nest(2)` is [["x"]].
function nest(levels: number): JsonValue {
  let value: JsonValue = "x";
  for (let i = 0; i < levels; i++) value = [value];
  return value;
}

function fresh(): ConversationStream {
  const stream = ConversationStream.empty();
  stream.startTurn("Go.");
  return stream;
}

function savedAndLoaded(stream: ConversationStream): ConversationStream {
  return ConversationStream.decode(JSON.parse(JSON.stringify(stream.toJSON())))._unsafeUnwrap();
}

const REFUSAL =
  "The call was not run: its arguments are nested more than 128 levels deep (arrays and objects within one another), more than a conversation can record. Call lookup again with its arguments nested at most 128 levels deep.";

describe("a reply whose call's arguments are nested too deeply", () => {
  it("Anthropic: that call is answered with the refusal, the others are run, and the stream saves", () => {
    const stream = fresh();
    const calls = recordAnthropicReply(stream, {
      content: [
        { type: "text", text: "Three calls." },
        { type: "tool_use", id: "t1", name: "lookup", input: { q: nest(200_000) } },
        { type: "tool_use", id: "t2", name: "lookup", input: { q: nest(127) } },
        { type: "tool_use", id: "t3", name: "lookup", input: { q: nest(128) } },
      ],
    });

    expect(calls.map((c) => c.id)).toEqual(["t2"]);
    expect(stream.events.slice(2)).toMatchObject([
      { type: "chat_response", message: "Three calls." },
      { type: "tool_call_request", id: "t1", arguments: {} },
      { type: "tool_call_request", id: "t2", arguments: { q: nest(127) } },
      { type: "tool_call_request", id: "t3", arguments: {} },
      { type: "tool_call_response", id: "t1", content: REFUSAL, is_error: true },
      { type: "tool_call_response", id: "t3", content: REFUSAL, is_error: true },
    ]);
    expect(calls[0]).toBe(stream.events[4]);
    expect(savedAndLoaded(stream).events).toEqual(stream.events);
    stream.append(
      createEvent("tool_call_response", { id: "t2", content: "found", is_error: false }),
    );
    expect(JSON.stringify(toAnthropicMessages(stream))).toContain(JSON.stringify(REFUSAL));
  });

  it("OpenAI Chat and Responses: arguments sent as JSON text are refused the same way", () => {
    const text = JSON.stringify({ q: nest(128) });
    const chat = fresh();
    const chatCalls = recordOpenAIChatReply(chat, {
      choices: [
        {
          message: {
            content: null,
            tool_calls: [
              { id: "c1", type: "function", function: { name: "lookup", arguments: text } },
            ],
          },
        },
      ],
    });
    const responses = fresh();
    const responsesCalls = recordOpenAIResponsesReply(responses, {
      output: [{ type: "function_call", call_id: "c1", name: "lookup", arguments: text }],
    });

    for (const [stream, calls] of [
      [chat, chatCalls],
      [responses, responsesCalls],
    ] as const) {
      expect(calls).toEqual([]);
      expect(stream.events.at(-1)).toMatchObject({
        type: "tool_call_response",
        id: "c1",
        content: REFUSAL,
        is_error: true,
      });
      expect(savedAndLoaded(stream).events).toEqual(stream.events);
    }
  });
});
