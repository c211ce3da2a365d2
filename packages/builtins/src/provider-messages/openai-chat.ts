import type { ConversationStream, ToolCallRequest } from "@jp/conversation";
import { callArguments, type ReplyPart, recordReply } from "./record-reply.js";
import { type ProviderMessagesOptions, providerSegments } from "./segments.js";

// OpenAI Chat Completions (`POST /v1/chat/completions`). Structural types that fit the official
// SDK's `ChatCompletionMessageParam` (checked by the tests) without depending on it.

/** A user message. */
export interface OpenAIChatUserMessage {
  role: "user";
  content: string;
}

/** A function call in an assistant message; `arguments` is JSON text. */
export interface OpenAIChatToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/** An assistant message: text, tool calls, or both. */
export interface OpenAIChatAssistantMessage {
  role: "assistant";
  content: string | null;
  tool_calls?: OpenAIChatToolCall[];
}

/** A tool's result, right after the assistant message that called it. */
export interface OpenAIChatToolMessage {
  role: "tool";
  tool_call_id: string;
  content: string;
}

/** One entry of `messages` in a Chat Completions request. */
export type OpenAIChatMessage =
  | OpenAIChatUserMessage
  | OpenAIChatAssistantMessage
  | OpenAIChatToolMessage;

/** A Chat Completions reply (the SDK's `ChatCompletion`), as much of it as recording needs. */
export interface OpenAIChatReply {
  readonly choices: readonly {
    readonly message: {
      readonly content?: string | null;
      readonly refusal?: string | null;
      readonly tool_calls?: readonly {
        readonly id: string;
        readonly type: string;
        readonly function?: { readonly name: string; readonly arguments: string };
      }[];
    };
  }[];
}

/**
 * The stream's provider-visible events as the `messages` of a Chat Completions request: user
 * messages, assistant messages (text joined by a blank line, `tool_calls` with JSON arguments),
 * and one `tool` message per call right after, in the order of the calls. Inquiries, turn starts
 * and recorded reasoning are not sent. Put your system message first yourself.
 *
 * @throws {OpenToolCallError} when a call has no response yet, unless `openCalls: "skip"`.
 * @example
 * const messages = [{ role: "system", content: system }, ...toOpenAIChatMessages(stream)];
 */
export function toOpenAIChatMessages(
  stream: ConversationStream,
  options: ProviderMessagesOptions = {},
): OpenAIChatMessage[] {
  const messages: OpenAIChatMessage[] = [];
  // The assistant message being filled, with its texts so far; a message of another role ends it.
  let open: { message: OpenAIChatAssistantMessage; texts: string[] } | undefined;
  const assistant = () => {
    if (open === undefined) {
      open = { message: { role: "assistant", content: null }, texts: [] };
      messages.push(open.message);
    }
    return open;
  };
  for (const segment of providerSegments(stream.events, options)) {
    switch (segment.kind) {
      case "user-text":
        open = undefined;
        messages.push({ role: "user", content: segment.text });
        break;
      case "assistant-text": {
        const current = assistant();
        current.texts.push(segment.text);
        current.message.content = current.texts.join("\n\n");
        break;
      }
      case "call": {
        const { message } = assistant();
        const { id, name, arguments: args } = segment.call;
        message.tool_calls ??= [];
        message.tool_calls.push({
          id,
          type: "function",
          function: { name, arguments: JSON.stringify(args) },
        });
        break;
      }
      case "result":
        open = undefined;
        messages.push({
          role: "tool",
          tool_call_id: segment.response.id,
          content: segment.response.content,
        });
        break;
    }
  }
  return messages;
}

/**
 * Records a Chat Completions reply (its first choice) in the stream: the text (or refusal) as
 * the assistant's message and each function call as a tool call. A call whose arguments are not
 * a JSON object is answered at once with an error for the model and not returned. Returns the
 * calls to run.
 *
 * @example
 * const calls = recordOpenAIChatReply(stream, await client.chat.completions.create(request));
 */
export function recordOpenAIChatReply(
  stream: ConversationStream,
  reply: OpenAIChatReply,
): ToolCallRequest[] {
  const message = reply.choices[0]?.message;
  if (message === undefined) return [];
  const parts: ReplyPart[] = [];
  const text = message.content ?? message.refusal;
  if (typeof text === "string") parts.push({ kind: "message", text });
  for (const call of message.tool_calls ?? []) {
    if (call.type !== "function" || call.function == null || typeof call.id !== "string") continue;
    const { name, arguments: args } = call.function as { name?: unknown; arguments?: unknown };
    parts.push({
      kind: "call",
      id: call.id,
      name: typeof name === "string" ? name : "",
      arguments: callArguments(args),
    });
  }
  return recordReply(stream, parts);
}
