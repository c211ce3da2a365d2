import type { ConversationStream, ToolCallRequest } from "@jp/conversation";
import { callArguments, type ReplyPart, recordReply } from "./record-reply.js";
import { type ProviderMessagesOptions, providerSegments, type Segment } from "./segments.js";

// OpenAI Responses (`POST /v1/responses`). Structural types that fit the official SDK's
// `ResponseInputItem` (checked by the tests) without depending on it.

/** A message of the user or the assistant. */
export interface OpenAIResponsesMessage {
  type: "message";
  role: "user" | "assistant";
  content: string;
}

/** The assistant's call of a function; `arguments` is JSON text. */
export interface OpenAIResponsesFunctionCall {
  type: "function_call";
  call_id: string;
  name: string;
  arguments: string;
}

/** A function's result. */
export interface OpenAIResponsesFunctionCallOutput {
  type: "function_call_output";
  call_id: string;
  output: string;
}

/** One entry of `input` in a Responses request. */
export type OpenAIResponsesInputItem =
  | OpenAIResponsesMessage
  | OpenAIResponsesFunctionCall
  | OpenAIResponsesFunctionCallOutput;

/** A Responses API reply (the SDK's `Response`), as much of it as recording needs. */
export interface OpenAIResponsesReply {
  readonly output: readonly {
    readonly type: string;
    readonly content?: unknown;
    readonly summary?: unknown;
    readonly call_id?: unknown;
    readonly name?: unknown;
    readonly arguments?: unknown;
  }[];
}

/**
 * The stream's provider-visible events as the `input` of a Responses request: messages,
 * `function_call` items, and each call's `function_call_output` after the calls, in the order of
 * the calls. Inquiries, turn starts and recorded reasoning are not sent. Pass your system text as
 * `instructions`.
 *
 * @throws {OpenToolCallError} when a call has no response yet, unless `openCalls: "skip"`.
 * @example
 * const response = await client.responses.create({ model, input: toOpenAIResponsesInput(stream) });
 */
export function toOpenAIResponsesInput(
  stream: ConversationStream,
  options: ProviderMessagesOptions = {},
): OpenAIResponsesInputItem[] {
  return providerSegments(stream.events, options).map(inputItem);
}

function inputItem(segment: Segment): OpenAIResponsesInputItem {
  switch (segment.kind) {
    case "user-text":
      return { type: "message", role: "user", content: segment.text };
    case "assistant-text":
      return { type: "message", role: "assistant", content: segment.text };
    case "call": {
      const { id, name, arguments: args } = segment.call;
      return { type: "function_call", call_id: id, name, arguments: JSON.stringify(args) };
    }
    case "result":
      return {
        type: "function_call_output",
        call_id: segment.response.id,
        output: segment.response.content,
      };
  }
}

/**
 * Records a Responses API reply in the stream: output text (or a refusal) as the assistant's
 * messages, reasoning summaries as its reasoning, `function_call` items as tool calls. A call
 * whose arguments are not a JSON object is answered at once with an error for the model and not
 * returned. Returns the calls to run.
 *
 * @example
 * const calls = recordOpenAIResponsesReply(stream, await client.responses.create(request));
 */
export function recordOpenAIResponsesReply(
  stream: ConversationStream,
  reply: OpenAIResponsesReply,
): ToolCallRequest[] {
  const parts: ReplyPart[] = [];
  for (const item of reply.output) {
    if (item.type === "message") {
      for (const text of contentTexts(item.content)) parts.push({ kind: "message", text });
    } else if (item.type === "reasoning") {
      parts.push({ kind: "reasoning", text: contentTexts(item.summary).join("\n\n") });
    } else if (item.type === "function_call" && typeof item.call_id === "string") {
      const name = typeof item.name === "string" ? item.name : "";
      parts.push({
        kind: "call",
        id: item.call_id,
        name,
        arguments: callArguments(item.arguments),
      });
    }
  }
  return recordReply(stream, parts);
}

/** The texts (or refusals) of a message's content parts, or of reasoning summary parts. */
export function contentTexts(parts: unknown): string[] {
  if (!Array.isArray(parts)) return [];
  return parts.flatMap((part: unknown) => {
    if (typeof part !== "object" || part === null) return [];
    const { type, text, refusal } = part as { type?: unknown; text?: unknown; refusal?: unknown };
    const value = type === "refusal" ? refusal : text;
    return typeof value === "string" ? [value] : [];
  });
}
