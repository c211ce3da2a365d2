import type { ConversationStream, JsonObject, ToolCallRequest } from "@jp/conversation";
import { argumentsOf, type ReplyPart, recordReply } from "./record-reply.js";
import { type ProviderMessagesOptions, providerSegments } from "./segments.js";

// Anthropic Messages (`POST /v1/messages`). The types are structural: they fit the official
// SDK's request types (checked by the tests) without depending on it.

/** A text block of an Anthropic message. */
export interface AnthropicTextBlockParam {
  type: "text";
  text: string;
}

/** The assistant's call of a tool. */
export interface AnthropicToolUseBlockParam {
  type: "tool_use";
  id: string;
  name: string;
  input: JsonObject;
}

/** A tool's result, in the user message after the call. */
export interface AnthropicToolResultBlockParam {
  type: "tool_result";
  tool_use_id: string;
  content: string;
  is_error?: boolean;
}

/** One entry of `messages` in a Messages API request. */
export interface AnthropicMessageParam {
  role: "user" | "assistant";
  content: (AnthropicTextBlockParam | AnthropicToolUseBlockParam | AnthropicToolResultBlockParam)[];
}

/** A block of a Messages API reply, as much of it as recording needs. */
export interface AnthropicReplyBlock {
  readonly type: string;
  readonly text?: unknown;
  readonly thinking?: unknown;
  readonly id?: unknown;
  readonly name?: unknown;
  readonly input?: unknown;
}

/** A Messages API reply (the SDK's `Message`), as much of it as recording needs. */
export interface AnthropicReply {
  readonly content: readonly AnthropicReplyBlock[];
  /** Why the model stopped; `"refusal"` when it declined. */
  readonly stop_reason?: unknown;
}

/**
 * The stream's provider-visible events as the `messages` of an Anthropic Messages request: user
 * text, the assistant's text and `tool_use` blocks, and each call's `tool_result` (with
 * `is_error`) in the next user message, in the order of the calls. Inquiries and turn starts are
 * not sent; neither is recorded reasoning (it has no signature). Consecutive blocks of one role
 * share a message.
 *
 * @throws {OpenToolCallError} when a call has no response yet, unless `openCalls: "skip"`.
 * @example
 * const reply = await client.messages.create({ model, max_tokens, messages: toAnthropicMessages(stream) });
 */
export function toAnthropicMessages(
  stream: ConversationStream,
  options: ProviderMessagesOptions = {},
): AnthropicMessageParam[] {
  const messages: AnthropicMessageParam[] = [];
  const add = (
    role: AnthropicMessageParam["role"],
    block: AnthropicMessageParam["content"][number],
  ) => {
    const last = messages.at(-1);
    if (last?.role === role) last.content.push(block);
    else messages.push({ role, content: [block] });
  };
  for (const segment of providerSegments(stream.events, options)) {
    switch (segment.kind) {
      case "user-text":
        add("user", { type: "text", text: segment.text });
        break;
      case "assistant-text":
        add("assistant", { type: "text", text: segment.text });
        break;
      case "call":
        add("assistant", toolUse(segment.call));
        break;
      case "result": {
        const { response } = segment;
        add("user", {
          type: "tool_result",
          tool_use_id: response.id,
          content: response.content,
          ...(response.is_error ? { is_error: true } : {}),
        });
        break;
      }
    }
  }
  return messages;
}

function toolUse(call: ToolCallRequest): AnthropicToolUseBlockParam {
  return { type: "tool_use", id: call.id, name: call.name, input: call.arguments };
}

/**
 * Records an Anthropic reply in the stream: `text` blocks as the assistant's messages,
 * `thinking` as its reasoning, `tool_use` blocks as tool calls. Returns the calls to run (give
 * them to the coordinator). Other blocks (server tools) are not recorded.
 *
 * @example
 * const calls = recordAnthropicReply(stream, await client.messages.create(request));
 * if (calls.length > 0) await coordinator.run(calls);
 */
export function recordAnthropicReply(
  stream: ConversationStream,
  reply: AnthropicReply,
): ToolCallRequest[] {
  const parts: ReplyPart[] = [];
  for (const block of reply.content) {
    if (block.type === "text" && typeof block.text === "string") {
      parts.push({ kind: "message", text: block.text });
    } else if (block.type === "thinking" && typeof block.thinking === "string") {
      parts.push({ kind: "reasoning", text: block.thinking });
    } else if (block.type === "tool_use" && typeof block.id === "string") {
      const name = typeof block.name === "string" ? block.name : "";
      parts.push({ kind: "call", id: block.id, name, arguments: argumentsOf(block.input) });
    }
  }
  return recordReply(stream, parts);
}
