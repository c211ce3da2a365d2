import type { JsonObject } from "@jp/conversation";
import {
  createJsonSchemaInquiryBackend,
  type InquiryBackend,
  type InquiryRequestInput,
  type JsonSchemaCompletionInput,
} from "@jp/coordinator";
import { err } from "neverthrow";
import { cutText } from "../cut-text.js";
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
 * `createJsonSchemaInquiryBackend`); nothing throws. A refusal (`stop_reason: "refusal"`) is no
 * answer: `missing_structured_data`, with the model's words as the reason.
 *
 * @example
 * const inquiries = createAnthropicInquiryBackend({ client: new Anthropic(), model: "claude-haiku-4-5" });
 */
export function createAnthropicInquiryBackend(
  options: ProviderInquiryOptions<AnthropicMessagesClient> & { readonly maxTokens?: number },
): InquiryBackend {
  return declinableInquiryBackend(async ({ prompt, schema, stream, signal, request }) => {
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
    const text = reply.content
      .map((block) => (typeof block.text === "string" ? block.text : ""))
      .join("");
    // A refusal stops the reply wherever it stood, even inside the answer's call.
    if (reply.stop_reason === "refusal") return new Declined(text);
    const call = reply.content.find((block) => block.type === "tool_use");
    if (call !== undefined) return call.input;
    // No call: the text, which the generic backend parses (and reports if it is not the answer).
    return text;
  });
}

/**
 * An {@link InquiryBackend} that asks an OpenAI model through Chat Completions with a JSON
 * Schema `response_format`. Failures are `InquiryError`s; nothing throws. A refusal
 * (`message.refusal`) is no answer: `missing_structured_data`, with the model's words as the reason.
 *
 * @example
 * const inquiries = createOpenAIChatInquiryBackend({ client: new OpenAI(), model: "gpt-4.1-mini" });
 */
export function createOpenAIChatInquiryBackend(
  options: ProviderInquiryOptions<OpenAIChatClient>,
): InquiryBackend {
  return declinableInquiryBackend(async ({ prompt, schema, stream, signal, request }) => {
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
    const refusal = message?.refusal;
    if (
      typeof refusal === "string" &&
      (refusal.trim() !== "" || typeof message?.content !== "string")
    ) {
      return new Declined(refusal);
    }
    return message?.content ?? undefined;
  });
}

/**
 * An {@link InquiryBackend} that asks an OpenAI model through the Responses API with a JSON
 * Schema text format. Failures are `InquiryError`s; nothing throws. A refusal content part is no
 * answer: `missing_structured_data`, with the model's words as the reason.
 *
 * @example
 * const inquiries = createOpenAIResponsesInquiryBackend({ client: new OpenAI(), model: "gpt-4.1-mini" });
 */
export function createOpenAIResponsesInquiryBackend(
  options: ProviderInquiryOptions<OpenAIResponsesClient>,
): InquiryBackend {
  return declinableInquiryBackend(async ({ prompt, schema, stream, signal, request }) => {
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
    const texts: string[] = [];
    const refusals: string[] = [];
    for (const item of reply.output) {
      if (item.type !== "message" || !Array.isArray(item.content)) continue;
      for (const part of item.content as unknown[]) {
        if (typeof part !== "object" || part === null) continue;
        const { type, text, refusal } = part as {
          type?: unknown;
          text?: unknown;
          refusal?: unknown;
        };
        if (type === "refusal") refusals.push(typeof refusal === "string" ? refusal : "");
        else if (typeof text === "string") texts.push(text);
      }
    }
    if (
      refusals.some((refusal) => refusal.trim() !== "") ||
      (refusals.length > 0 && texts.length === 0)
    ) {
      return new Declined(refusals.join(" "));
    }
    return texts.join("");
  });
}

/** The answering model declined to answer (a provider's refusal), in its own words. */
class Declined {
  constructor(readonly reason: string) {}
}

/** Most characters of a refusal that an error quotes. */
const MAX_REFUSAL = 200;

/**
 * The model-facing reason of a refusal: the model's words on one line, cut to
 * {@link MAX_REFUSAL} characters, since they go back into the asking model's context.
 */
function declinedMessage(reason: string): string {
  const words = reason.replace(/\s+/g, " ").trim();
  if (words === "") return "the secondary assistant declined to answer";
  return `the secondary assistant declined to answer: ${JSON.stringify(cutText(words, MAX_REFUSAL))}`;
}

/**
 * {@link createJsonSchemaInquiryBackend} for a completion that may come back {@link Declined}: a
 * refusal is the model declining, not a reply to parse, so it is reported as no answer
 * (`missing_structured_data`) with the model's reason, never read as the answer's text. A
 * cancellation still wins.
 */
function declinableInquiryBackend(
  complete: (input: JsonSchemaCompletionInput) => Promise<unknown>,
): InquiryBackend {
  return {
    async inquire(request, options) {
      let declined: Declined | undefined;
      const backend = createJsonSchemaInquiryBackend(async (input) => {
        const reply = await complete(input);
        if (!(reply instanceof Declined)) return reply;
        declined = reply;
        return undefined;
      });
      const result = await backend.inquire(request, options);
      if (declined === undefined || result.isOk() || result.error.kind === "cancelled") {
        return result;
      }
      return err({ kind: "missing_structured_data", message: declinedMessage(declined.reason) });
    },
  };
}

// JP's per-question override: `questions.<id>.target = { model = "…" }`.
function modelFor(options: { readonly model: string }, request: InquiryRequestInput): string {
  const model = request.assistantOverrides?.model;
  return typeof model === "string" && model !== "" ? model : options.model;
}
