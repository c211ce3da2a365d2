// The provider shapes against the official SDKs: their TypeScript request types (compile-time,
// checked by `tsc`), and their real clients sending requests to a fake `fetch` (run-time).
import Anthropic from "@anthropic-ai/sdk";
import { ConversationStream, type JsonObject } from "@jp/conversation";
import type { BuiltinTool } from "@jp/coordinator";
import { MockPromptBackend } from "@jp/coordinator/testing";
import { defineQuestion, needsInput, success } from "@jp/tool";
import OpenAI from "openai";
import { describe, expect, expectTypeOf, it } from "vitest";
import {
  type AnthropicInquiryRequest,
  type AnthropicMessageParam,
  type AnthropicTool,
  createAnthropicInquiryBackend,
  createCoordinator,
  createOpenAIChatInquiryBackend,
  createOpenAIResponsesInquiryBackend,
  type OpenAIChatInquiryRequest,
  type OpenAIChatMessage,
  type OpenAIChatTool,
  type OpenAIResponsesInputItem,
  type OpenAIResponsesInquiryRequest,
  type OpenAIResponsesTool,
  recordAnthropicReply,
  recordOpenAIChatReply,
  recordOpenAIResponsesReply,
  toAnthropicMessages,
  toOpenAIChatMessages,
  toOpenAIResponsesInput,
} from "../src/index.js";

describe("the shapes fit the official SDKs' request types", () => {
  it("Anthropic Messages", () => {
    expectTypeOf<AnthropicMessageParam[]>().toExtend<Anthropic.MessageParam[]>();
    expectTypeOf<AnthropicTool[]>().toExtend<Anthropic.ToolUnion[]>();
    expectTypeOf<AnthropicInquiryRequest>().toExtend<Anthropic.MessageCreateParamsNonStreaming>();
    expectTypeOf<Anthropic.Message>().toExtend<Parameters<typeof recordAnthropicReply>[1]>();
  });

  it("OpenAI Chat Completions", () => {
    expectTypeOf<OpenAIChatMessage[]>().toExtend<OpenAI.ChatCompletionMessageParam[]>();
    expectTypeOf<OpenAIChatTool[]>().toExtend<OpenAI.ChatCompletionTool[]>();
    expectTypeOf<OpenAIChatInquiryRequest>().toExtend<OpenAI.ChatCompletionCreateParamsNonStreaming>();
    expectTypeOf<OpenAI.ChatCompletion>().toExtend<Parameters<typeof recordOpenAIChatReply>[1]>();
  });

  it("OpenAI Responses", () => {
    expectTypeOf<OpenAIResponsesInputItem[]>().toExtend<OpenAI.Responses.ResponseInputItem[]>();
    expectTypeOf<OpenAIResponsesTool[]>().toExtend<OpenAI.Responses.Tool[]>();
    expectTypeOf<OpenAIResponsesInquiryRequest>().toExtend<OpenAI.Responses.ResponseCreateParamsNonStreaming>();
    expectTypeOf<OpenAI.Responses.Response>().toExtend<
      Parameters<typeof recordOpenAIResponsesReply>[1]
    >();
  });

  it("the SDK clients are accepted as they are by the inquiry backends", () => {
    expectTypeOf<Anthropic>().toExtend<
      Parameters<typeof createAnthropicInquiryBackend>[0]["client"]
    >();
    expectTypeOf<OpenAI>().toExtend<
      Parameters<typeof createOpenAIChatInquiryBackend>[0]["client"]
    >();
    expectTypeOf<OpenAI>().toExtend<
      Parameters<typeof createOpenAIResponsesInquiryBackend>[0]["client"]
    >();
  });
});

/** A fake provider endpoint: answers each request with the next reply, keeps every body sent. */
function fakeFetch(replies: readonly object[]) {
  const bodies: JsonObject[] = [];
  const fetch = async (_url: unknown, init?: { body?: unknown }): Promise<Response> => {
    bodies.push(JSON.parse(String(init?.body)) as JsonObject);
    const reply = replies[bodies.length - 1];
    if (reply === undefined) throw new Error("no reply left");
    return new Response(JSON.stringify(reply), {
      status: 200,
      headers: { "content-type": "application/json" },
    });
  };
  return { fetch, bodies };
}

const anthropicMessage = (content: object[]) => ({
  id: "msg",
  type: "message",
  role: "assistant",
  model: "claude-test",
  content,
  stop_reason: "end_turn",
  stop_sequence: null,
  usage: { input_tokens: 1, output_tokens: 1 },
});
const chatCompletion = (message: object) => ({
  id: "cmpl",
  object: "chat.completion",
  created: 0,
  model: "gpt-test",
  choices: [{ index: 0, message: { role: "assistant", ...message }, finish_reason: "stop" }],
});
const response = (output: object[]) => ({
  id: "resp",
  object: "response",
  created_at: 0,
  model: "gpt-test",
  status: "completed",
  output,
});

const ASK = { question: "Ship it?", answer_type: "boolean" };

function setUp() {
  const stream = ConversationStream.empty();
  const prompts = new MockPromptBackend({ questions: [{ type: "answer", value: true }] });
  const jp = createCoordinator({ stream, prompts });
  jp.stream.startTurn("Should we ship?");
  return { jp, prompts };
}

describe("a whole loop through the real SDK clients", () => {
  it("Anthropic: the second request carries the answer as the tool_result of the call", async () => {
    const { fetch, bodies } = fakeFetch([
      anthropicMessage([{ type: "tool_use", id: "toolu_1", name: "ask_user", input: ASK }]),
      anthropicMessage([{ type: "text", text: "Shipping." }]),
    ]);
    const client = new Anthropic({ apiKey: "test", fetch, maxRetries: 0 });
    const { jp, prompts } = setUp();
    for (let done = false; !done; ) {
      const reply = await client.messages.create({
        model: "claude-test",
        max_tokens: 1024,
        tools: jp.providerTools("anthropic"),
        messages: toAnthropicMessages(jp.stream),
      });
      const calls = recordAnthropicReply(jp.stream, reply);
      done = calls.length === 0 || (await jp.run(calls)).endTurn;
    }
    prompts.assertScriptUsed();
    expect(bodies[0]?.tools).toMatchObject([{ name: "ask_user" }]);
    expect(bodies[1]?.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "Should we ship?" }] },
      {
        role: "assistant",
        content: [{ type: "tool_use", id: "toolu_1", name: "ask_user", input: ASK }],
      },
      {
        role: "user",
        content: [
          {
            type: "tool_result",
            tool_use_id: "toolu_1",
            content: expect.stringContaining('"answer":true'),
          },
        ],
      },
    ]);
  });

  it("OpenAI Chat Completions: the answer goes back as a tool message", async () => {
    const { fetch, bodies } = fakeFetch([
      chatCompletion({
        content: null,
        tool_calls: [
          {
            id: "call_1",
            type: "function",
            function: { name: "ask_user", arguments: JSON.stringify(ASK) },
          },
        ],
      }),
      chatCompletion({ content: "Shipping." }),
    ]);
    const client = new OpenAI({ apiKey: "test", fetch, maxRetries: 0 });
    const { jp } = setUp();
    for (let done = false; !done; ) {
      const reply = await client.chat.completions.create({
        model: "gpt-test",
        tools: jp.providerTools("openai-chat"),
        messages: toOpenAIChatMessages(jp.stream),
      });
      const calls = recordOpenAIChatReply(jp.stream, reply);
      done = calls.length === 0 || (await jp.run(calls)).endTurn;
    }
    expect(bodies[1]?.messages).toMatchObject([
      { role: "user", content: "Should we ship?" },
      { role: "assistant", content: null, tool_calls: [{ id: "call_1" }] },
      { role: "tool", tool_call_id: "call_1", content: expect.stringContaining('"answer":true') },
    ]);
  });

  it("OpenAI Responses: the answer goes back as a function_call_output", async () => {
    const { fetch, bodies } = fakeFetch([
      response([
        {
          type: "function_call",
          id: "fc_1",
          call_id: "call_1",
          name: "ask_user",
          arguments: JSON.stringify(ASK),
          status: "completed",
        },
      ]),
      response([
        {
          type: "message",
          id: "m",
          role: "assistant",
          status: "completed",
          content: [{ type: "output_text", text: "Shipping.", annotations: [] }],
        },
      ]),
    ]);
    const client = new OpenAI({ apiKey: "test", fetch, maxRetries: 0 });
    const { jp } = setUp();
    for (let done = false; !done; ) {
      const reply = await client.responses.create({
        model: "gpt-test",
        tools: jp.providerTools("openai-responses"),
        input: toOpenAIResponsesInput(jp.stream),
      });
      const calls = recordOpenAIResponsesReply(jp.stream, reply);
      done = calls.length === 0 || (await jp.run(calls)).endTurn;
    }
    expect(bodies[1]?.input).toMatchObject([
      { type: "message", role: "user", content: "Should we ship?" },
      { type: "function_call", call_id: "call_1", name: "ask_user" },
      {
        type: "function_call_output",
        call_id: "call_1",
        output: expect.stringContaining('"answer":true'),
      },
    ]);
    expect(jp.stream.events.at(-1)).toMatchObject({ type: "chat_response", message: "Shipping." });
  });
});

describe("the inquiry backends through the real SDK clients", () => {
  const question = {
    stream: ConversationStream.empty(),
    inquiryId: "c.q.1",
    toolName: "deploy",
    question: {
      id: "q",
      text: "Which region?",
      answer_type: { type: "select" as const, options: ["eu", "us"] },
    },
  };
  const signal = new AbortController().signal;

  it("Anthropic: a forced answer tool call; its input is the answer", async () => {
    const { fetch, bodies } = fakeFetch([
      anthropicMessage([{ type: "tool_use", id: "t", name: "answer", input: { answer: "eu" } }]),
    ]);
    const backend = createAnthropicInquiryBackend({
      client: new Anthropic({ apiKey: "test", fetch, maxRetries: 0 }),
      model: "claude-haiku-test",
    });
    expect((await backend.inquire(question, { signal }))._unsafeUnwrap()).toBe("eu");
    expect(bodies[0]).toMatchObject({
      model: "claude-haiku-test",
      tool_choice: { type: "tool", name: "answer" },
      tools: [{ name: "answer", input_schema: { type: "object", required: ["answer"] } }],
    });
  });

  it("Anthropic: a per-question model override is used", async () => {
    const { fetch, bodies } = fakeFetch([
      anthropicMessage([{ type: "tool_use", id: "t", name: "answer", input: { answer: "us" } }]),
    ]);
    const backend = createAnthropicInquiryBackend({
      client: new Anthropic({ apiKey: "test", fetch, maxRetries: 0 }),
      model: "default-model",
    });
    const overridden = { ...question, assistantOverrides: { model: "cheap-model" } };
    expect((await backend.inquire(overridden, { signal }))._unsafeUnwrap()).toBe("us");
    expect(bodies[0]?.model).toBe("cheap-model");
  });

  it("OpenAI Chat Completions: a json_schema response_format; an answer off the options is refused", async () => {
    const { fetch, bodies } = fakeFetch([chatCompletion({ content: '{"answer":"mars"}' })]);
    const backend = createOpenAIChatInquiryBackend({
      client: new OpenAI({ apiKey: "test", fetch, maxRetries: 0 }),
      model: "gpt-mini-test",
      system: "Answer briefly.",
    });
    const answered = await backend.inquire(question, { signal });
    expect(answered._unsafeUnwrapErr().kind).toBe("answer_extraction");
    expect(bodies[0]).toMatchObject({
      messages: [{ role: "system", content: "Answer briefly." }, { role: "user" }],
      response_format: { type: "json_schema", json_schema: { name: "answer", strict: false } },
    });
  });

  it("OpenAI Responses: a json_schema text format", async () => {
    const { fetch, bodies } = fakeFetch([
      response([
        {
          type: "message",
          id: "m",
          role: "assistant",
          status: "completed",
          content: [{ type: "output_text", text: '{"answer":"us"}', annotations: [] }],
        },
      ]),
    ]);
    const backend = createOpenAIResponsesInquiryBackend({
      client: new OpenAI({ apiKey: "test", fetch, maxRetries: 0 }),
      model: "gpt-mini-test",
    });
    expect((await backend.inquire(question, { signal }))._unsafeUnwrap()).toBe("us");
    expect(bodies[0]).toMatchObject({ text: { format: { type: "json_schema", name: "answer" } } });
  });

  it("a provider error is an InquiryError, not a throw", async () => {
    const fetch = async () => new Response('{"error":{"message":"overloaded"}}', { status: 529 });
    const backend = createAnthropicInquiryBackend({
      client: new Anthropic({ apiKey: "test", fetch, maxRetries: 0 }),
      model: "m",
    });
    expect((await backend.inquire(question, { signal }))._unsafeUnwrapErr().kind).toBe("provider");
  });
});

// Whether text holds no lone surrogate (what String.prototype.isWellFormed, ES2024, tells).
const isWellFormed = (text: string) => !/\p{Cs}/u.test(text);

describe("a model's refusal is its declining, never the answer's text", () => {
  const question = {
    stream: ConversationStream.empty(),
    inquiryId: "c.q.1",
    toolName: "deploy",
    question: {
      id: "q",
      text: "Which region?",
      answer_type: { type: "select" as const, options: ["eu", "us"] },
    },
  };
  const signal = new AbortController().signal;
  const REFUSAL = "I can't help with choosing a region.";
  const declined = (reason: string) => ({
    kind: "missing_structured_data",
    message: `the secondary assistant declined to answer: ${JSON.stringify(reason)}`,
  });
  const chat = (message: object) => {
    const { fetch } = fakeFetch([chatCompletion(message)]);
    return createOpenAIChatInquiryBackend({
      client: new OpenAI({ apiKey: "test", fetch, maxRetries: 0 }),
      model: "gpt-mini-test",
    });
  };
  const responses = (content: object[]) => {
    const { fetch } = fakeFetch([
      response([{ type: "message", id: "m", role: "assistant", status: "completed", content }]),
    ]);
    return createOpenAIResponsesInquiryBackend({
      client: new OpenAI({ apiKey: "test", fetch, maxRetries: 0 }),
      model: "gpt-mini-test",
    });
  };
  const refusalPart = (refusal: string) => ({ type: "refusal", refusal });
  const anthropic = (content: object[]) => {
    const { fetch } = fakeFetch([{ ...anthropicMessage(content), stop_reason: "refusal" }]);
    return createAnthropicInquiryBackend({
      client: new Anthropic({ apiKey: "test", fetch, maxRetries: 0 }),
      model: "claude-haiku-test",
    });
  };

  it.each([
    ["OpenAI Chat: message.refusal", () => chat({ content: null, refusal: REFUSAL })],
    ["OpenAI Responses: a refusal content part", () => responses([refusalPart(REFUSAL)])],
    [
      "Anthropic: stop_reason refusal, with the text given",
      () => anthropic([{ type: "text", text: REFUSAL }]),
    ],
  ])("%s: no answer, with the model's reason", async (_name, backend) => {
    const result = await backend().inquire(question, { signal });
    expect(result._unsafeUnwrapErr()).toEqual(declined(REFUSAL));
  });

  it.each([
    ["OpenAI Chat", () => chat({ content: null, refusal: '{"answer":"eu"}' })],
    ["OpenAI Responses", () => responses([refusalPart('{"answer":"eu"}')])],
  ])("%s: a refusal that reads as an answer is not taken as one", async (_name, backend) => {
    const result = await backend().inquire(question, { signal });
    expect(result._unsafeUnwrapErr()).toEqual(declined('{"answer":"eu"}'));
  });

  it("OpenAI Chat: a refusal beside content is still a refusal", async () => {
    const result = await chat({ content: '{"answer":"eu"}', refusal: REFUSAL }).inquire(question, {
      signal,
    });
    expect(result._unsafeUnwrapErr()).toEqual(declined(REFUSAL));
  });

  it("OpenAI Responses: a refusal beside output text is still a refusal", async () => {
    const text = { type: "output_text", text: '{"answer":"eu"}', annotations: [] };
    const result = await responses([text, refusalPart(REFUSAL)]).inquire(question, { signal });
    expect(result._unsafeUnwrapErr()).toEqual(declined(REFUSAL));
  });

  it("Anthropic: a refusal that stopped inside the answer call is not the answer", async () => {
    const call = { type: "tool_use", id: "t", name: "answer", input: { answer: "eu" } };
    const result = await anthropic([call]).inquire(question, { signal });
    expect(result._unsafeUnwrapErr()).toEqual({
      kind: "missing_structured_data",
      message: "the secondary assistant declined to answer",
    });
  });

  it("OpenAI Chat: an empty refusal declines without a reason", async () => {
    const result = await chat({ content: null, refusal: "" }).inquire(question, { signal });
    expect(result._unsafeUnwrapErr()).toEqual({
      kind: "missing_structured_data",
      message: "the secondary assistant declined to answer",
    });
  });

  it("OpenAI Chat: an empty refusal beside an answer leaves the answer", async () => {
    const result = await chat({ content: '{"answer":"us"}', refusal: "" }).inquire(question, {
      signal,
    });
    expect(result._unsafeUnwrap()).toBe("us");
  });

  it("OpenAI Responses: a long refusal is cut to 200 characters, on one line", async () => {
    const long = `Sorry,\n\n${"no ".repeat(1_000)}`;
    const result = await responses([refusalPart(long)]).inquire(question, { signal });
    const cut = `${`Sorry, ${"no ".repeat(1_000)}`.slice(0, 199)}…`;
    expect(result._unsafeUnwrapErr()).toEqual(declined(cut));
  });

  // The quote keeps 199 characters (code points) and "…"; an emoji is two UTF-16 code units.
  it.each([
    ["just before an emoji", `${"x".repeat(199)}😀😀`, `${"x".repeat(199)}…`],
    ["inside an emoji", `ab${"😀".repeat(200)}`, `ab${"😀".repeat(197)}…`],
    ["just after an emoji", `${"x".repeat(197)}😀xxxx`, `${"x".repeat(197)}😀x…`],
  ])("a long refusal cut %s quotes whole characters", async (_name, refusal, cut) => {
    const result = await responses([refusalPart(refusal)]).inquire(question, { signal });
    const { message } = result._unsafeUnwrapErr();
    // Quoted as JSON: half an emoji would show as the escape of a lone surrogate.
    expect(message).not.toMatch(/\\u[dD][89a-fA-F]/);
    expect(isWellFormed(message)).toBe(true);
    expect(result._unsafeUnwrapErr()).toEqual(declined(cut));
  });

  it("the asking model reads the refusal; it is recorded as no answer, not the user's cancel", async () => {
    const { fetch } = fakeFetch([chatCompletion({ content: null, refusal: REFUSAL })]);
    const inquiries = createOpenAIChatInquiryBackend({
      client: new OpenAI({ apiKey: "test", fetch, maxRetries: 0 }),
      model: "gpt-mini-test",
    });
    const region = defineQuestion({
      id: "region",
      text: "Which region?",
      answer_type: { type: "select", options: ["eu", "us"] },
    })._unsafeUnwrap();
    const deploy: BuiltinTool = {
      execute: ({ answers }) =>
        answers.region === undefined
          ? needsInput(region)
          : success(`deployed to ${answers.region}`),
    };
    const stream = ConversationStream.empty();
    stream.startTurn("Deploy it.");
    const prompts = new MockPromptBackend();
    const jp = createCoordinator({
      stream,
      prompts,
      inquiries,
      executors: { deploy },
      tools: { deploy: { run: "unattended", questions: { region: { target: "assistant" } } } },
    });
    const { responses } = await jp.run([{ id: "c1", name: "deploy", arguments: {} }]);
    expect(responses[0]).toMatchObject({
      is_error: true,
      content: `The tool 'deploy' asked a follow-up question ("Which region?") that was routed to a secondary assistant for resolution, but the secondary assistant failed to provide a valid answer. Error: the secondary assistant declined to answer: ${JSON.stringify(REFUSAL)}. You may retry the tool call or end the turn.`,
    });
    expect(stream.events.filter((e) => e.type === "inquiry_response")).toMatchObject([
      { outcome: "cancelled", reason: "backend_error" },
    ]);
    expect(prompts.requests).toEqual([]);
  });
});
