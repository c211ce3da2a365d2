// Reads a conversation stored in JP's directory layout and prints its turns and the questions
// asked in them. Usage: `npm run read-conversation [-- <conversation-dir>]`; without an argument
// it reads the small conversation shipped in ./data.
import { join } from "node:path";
import {
  type ConversationEvent,
  inquiryResponseLine,
  isConversationEvent,
  loadConversation,
} from "@jp/conversation";

const dir =
  process.argv[2] ?? join(import.meta.dirname, "../data/17790000000-rename-the-config-loader");

const loaded = await loadConversation(dir);
if (loaded.isErr()) {
  console.error(`Cannot read the conversation: ${loaded.error.message}`);
  process.exit(1);
}
const { metadata, layout, stream } = loaded.value;
console.log(`${metadata.title ?? "(untitled)"} — ${stream.length} events, ${layout} layout\n`);

for (const turn of stream.turns()) {
  const events = turn.events.filter(isConversationEvent);
  const request = events.find((e) => e.type === "chat_request");
  console.log(`Turn ${turn.index + 1}: ${oneLine(request?.content ?? "(no request)")}`);
  for (const event of events) printEvent(event);
  console.log("");
}

function printEvent(event: ConversationEvent): void {
  switch (event.type) {
    case "tool_call_request":
      console.log(`  tool ${event.name} ${oneLine(JSON.stringify(event.arguments))}`);
      return;
    case "inquiry_request": {
      const who = "name" in event.source ? event.source.name : event.source.source;
      console.log(
        `    ? ${oneLine(event.question.text)} [${event.question.answer_type.type}, asked by ${who}]`,
      );
      return;
    }
    case "inquiry_response":
      console.log(`      ${inquiryResponseLine(event)}`);
      return;
    case "tool_call_response":
      console.log(`    ${event.is_error ? "error" : "result"}: ${oneLine(event.content)}`);
      return;
    default:
      return;
  }
}

// Text from a conversation is shown on one line, without control characters, so a recorded
// string cannot move the cursor or restyle the terminal.
function oneLine(text: string, max = 100): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
  const flat = text.replace(/[\u0000-\u001f\u007f-\u009f]+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
