import {
  type ConversationStream,
  inquiryResponseLine,
  isConversationEvent,
} from "@jp/conversation";
import { neutralize } from "@jp/prompt-terminal";

/**
 * The recorded conversation as a person reads it: what was said, each tool call and result, and
 * every question with how it was answered (or why it closed without an answer). Everything is
 * neutralized: the tools' text comes from an MCP server.
 */
export function transcript(stream: ConversationStream): string {
  const lines: string[] = [];
  for (const event of stream.events) {
    if (!isConversationEvent(event)) continue;
    switch (event.type) {
      case "chat_request":
        lines.push(`You: ${event.content}`);
        break;
      case "chat_response":
        if ("message" in event) lines.push(`Assistant (scripted): ${event.message}`);
        break;
      case "tool_call_request":
        lines.push(`  → ${event.name} ${JSON.stringify(event.arguments)}`);
        break;
      case "inquiry_request": {
        const { question } = event;
        lines.push(`  ? ${question.text}  [${question.answer_type.type}, id ${event.id}]`);
        break;
      }
      case "inquiry_response":
        lines.push(`    ${inquiryResponseLine(event)}`);
        break;
      case "tool_call_response":
        lines.push(`  ← ${event.is_error ? "error: " : ""}${event.content}`);
        break;
      default:
        break;
    }
  }
  return neutralize(lines.join("\n"), { multiline: true });
}
