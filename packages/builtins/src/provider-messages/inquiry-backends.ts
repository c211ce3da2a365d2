import type { JsonObject } from "@jp/conversation";
import {
  createJsonSchemaInquiryBackend,
  type InquiryBackend,
  type InquiryRequestInput,
} from "@jp/coordinator";
import {
  type AnthropicMessageParam,
  type AnthropicReply,
  toAnthropicMessages,
} from "./anthropic.js";
import {
  type OpenAIChatMessage,
  type OpenAIChatReply,
  toOpenAIChatMessages,
} from "./openai-chat.js";
import {
  contentTexts,
  type OpenAIResponsesInputItem,
  type OpenAIResponsesReply,
  toOpenAIResponsesInput,
} from "./openai-responses.js";

// One InquiryBackend per provider family, on createJsonSchemaInquiryBackend: the conversation so
// far (a sanitized copy in which the asking tool looks paused), JP's inquiry prompt as the last
// user message, and the provider's way of getting JSON that fits the answer's schema. The clients
// are typed structurally: pass the official SDK's client as it is.

/** What each helper is given. */
export interface ProviderInquiryOptions<Client> {
  /** The provider's client, e.g. `new Anthropic()` or `new OpenAI()`. */
  readonly client: Client;
  /**
   * The model that answers. A question configured with `target = { model = "…" }` is answered by
   * that model instead.
   */
  readonly model: string;
  /** System text for the answering model. */
  readonly system?: string;
}

/** The request an Anthropic inquiry sends: the answer is a forced call of an `answer` tool. */
export interface AnthropicInquiryRequest {
  model: string;
  max_tokens: number;
  system?: string;
  messages: AnthropicMessageParam[];
  tools: { name: string; description: string; input_schema: { type: "object" } & JsonObject }[];
  tool_choice: { type: "tool"; name: string };
}

/** The part of the Anthropic client an inquiry uses (`client.messages.create`). */
export interface AnthropicMessagesClient {
  readonly messages: {
    create(
      body: AnthropicInquiryRequest,
      options: { signal: AbortSignal },
    ): PromiseLike<AnthropicReply>;
  };
}

/** The request an OpenAI Chat Completions inquiry sends (structured output). */
export interface OpenAIChatInquiryRequest {
  model: string;
  messages: ({ role: "system"; content: string } | OpenAIChatMessage)[];
  response_format: {
    type: "json_schema";
    json_schema: { name: string; schema: JsonObject; strict: boolean };
  };
}

/** The part of the OpenAI client a Chat Completions inquiry uses. */
export interface OpenAIChatClient {
  readonly chat: {
    readonly completions: {
      create(
        body: OpenAIChatInquiryRequest,
        options: { signal: AbortSignal },
      ): PromiseLike<OpenAIChatReply>;
    };
  };
}

/** The request an OpenAI Responses inquiry sends (structured output). */
export interface OpenAIResponsesInquiryRequest {
  model: string;
  instructions?: string;
  input: OpenAIResponsesInputItem[];
  text: { format: { type: "json_schema"; name: string; schema: JsonObject; strict: boolean } };
}

/** The part of the OpenAI client a Responses inquiry uses. */
export interface OpenAIResponsesClient {
  readonly responses: {
    create(
      body: OpenAIResponsesInquiryRequest,
      options: { signal: AbortSignal },
    ): PromiseLike<OpenAIResponsesReply>;
  };
}

const ANSWER_TOOL = "answer";
const ANSWER_DESCRIPTION = "Give your answer to the question.";

/**
 * An {@link InquiryBackend} that asks an Anthropic model: the answer comes as the input of a
 * forced `answer` tool call whose schema is the question's. Failures are `InquiryError`s (see
 * `createJsonSchemaInquiryBackend`); nothing throws.
 *
 * @example
 * const inquiries = createAnthropicInquiryBackend({ client: new Anthropic(), model: "claude-haiku-4-5" });
 */
export function createAnthropicInquiryBackend(
  options: ProviderInquiryOptions<AnthropicMessagesClient> & { readonly maxTokens?: number },
): InquiryBackend {
  return createJsonSchemaInquiryBackend(async ({ prompt, schema, stream, signal, request }) => {
    const messages = toAnthropicMessages(stream, { openCalls: "skip" });
    const last = messages.at(-1);
    if (last?.role === "user") last.content.push({ type: "text", text: prompt });
    else messages.push({ role: "user", content: [{ type: "text", text: prompt }] });
    const reply = await options.client.messages.create(
      {
        model: modelFor(options, request),
        max_tokens: options.maxTokens ?? 1024,
        ...(options.system === undefined ? {} : { system: options.system }),
        messages,
        tools: [
          {
            name: ANSWER_TOOL,
            description: ANSWER_DESCRIPTION,
            input_schema: { ...schema, type: "object" },
          },
        ],
        tool_choice: { type: "tool", name: ANSWER_TOOL },
      },
      { signal },
    );
    const call = reply.content.find((block) => block.type === "tool_use");
    if (call !== undefined) return call.input;
    // No call: the text, which the generic backend parses (and reports if it is not the answer).
    return reply.content
      .map((block) => (typeof block.text === "string" ? block.text : ""))
      .join("");
  });
}

/**
 * An {@link InquiryBackend} that asks an OpenAI model through Chat Completions with a JSON
 * Schema `response_format`. Failures are `InquiryError`s; nothing throws.
 *
 * @example
 * const inquiries = createOpenAIChatInquiryBackend({ client: new OpenAI(), model: "gpt-4.1-mini" });
 */
export function createOpenAIChatInquiryBackend(
  options: ProviderInquiryOptions<OpenAIChatClient>,
): InquiryBackend {
  return createJsonSchemaInquiryBackend(async ({ prompt, schema, stream, signal, request }) => {
    const system =
      options.system === undefined ? [] : [{ role: "system" as const, content: options.system }];
    const reply = await options.client.chat.completions.create(
      {
        model: modelFor(options, request),
        messages: [
          ...system,
          ...toOpenAIChatMessages(stream, { openCalls: "skip" }),
          { role: "user", content: prompt },
        ],
        // Not strict: strict mode needs every property required, which optional answers are not.
        response_format: {
          type: "json_schema",
          json_schema: { name: ANSWER_TOOL, schema, strict: false },
        },
      },
      { signal },
    );
    const message = reply.choices[0]?.message;
    return message?.content ?? message?.refusal ?? undefined;
  });
}

/**
 * An {@link InquiryBackend} that asks an OpenAI model through the Responses API with a JSON
 * Schema text format. Failures are `InquiryError`s; nothing throws.
 *
 * @example
 * const inquiries = createOpenAIResponsesInquiryBackend({ client: new OpenAI(), model: "gpt-4.1-mini" });
 */
export function createOpenAIResponsesInquiryBackend(
  options: ProviderInquiryOptions<OpenAIResponsesClient>,
): InquiryBackend {
  return createJsonSchemaInquiryBackend(async ({ prompt, schema, stream, signal, request }) => {
    const reply = await options.client.responses.create(
      {
        model: modelFor(options, request),
        ...(options.system === undefined ? {} : { instructions: options.system }),
        input: [
          ...toOpenAIResponsesInput(stream, { openCalls: "skip" }),
          { type: "message", role: "user", content: prompt },
        ],
        text: { format: { type: "json_schema", name: ANSWER_TOOL, schema, strict: false } },
      },
      { signal },
    );
    return reply.output
      .flatMap((item) => (item.type === "message" ? contentTexts(item.content) : []))
      .join("");
  });
}

// JP's per-question override: `questions.<id>.target = { model = "…" }`.
function modelFor(options: { readonly model: string }, request: InquiryRequestInput): string {
  const model = request.assistantOverrides?.model;
  return typeof model === "string" && model !== "" ? model : options.model;
}
