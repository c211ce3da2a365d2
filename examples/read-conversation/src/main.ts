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
import { neutralize } from "@jp/prompt-terminal";

const dir =
  process.argv[2] ?? join(import.meta.dirname, "../data/17790000000-rename-the-config-loader");

const loaded = await loadConversation(dir);
if (loaded.isErr()) {
  console.error(`Cannot read the conversation: ${loaded.error.message}`);
  process.exit(1);
}
const { metadata, layout, stream } = loaded.value;
console.log(
  `${oneLine(metadata.title ?? "(untitled)", Number.POSITIVE_INFINITY)} — ${stream.length} events, ${layout} layout\n`,
);

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
      console.log(`  tool ${oneLine(event.name)} ${oneLine(JSON.stringify(event.arguments))}`);
      return;
    case "inquiry_request": {
      const who = "name" in event.source ? event.source.name : event.source.source;
      console.log(
        `    ? ${oneLine(event.question.text)} [${oneLine(event.question.answer_type.type)}, asked by ${oneLine(who)}]`,
      );
      return;
    }
    case "inquiry_response":
      console.log(`      ${neutralize(inquiryResponseLine(event))}`);
      return;
    case "tool_call_response":
      console.log(`    ${event.is_error ? "error" : "result"}: ${oneLine(event.content)}`);
      return;
    default:
      return;
  }
}

// Text from a conversation (a model's, a tool's) is shown on one line and made inert: line breaks
// and tabs become spaces, and `neutralize` removes escape sequences and shows other controls and
// invisible format characters (bidi overrides) escaped, so a recorded string cannot move the
// cursor, restyle the terminal, write the clipboard or reorder what is shown.
function oneLine(text: string, max = 100): string {
  const flat = neutralize(text.replace(/[\t\n\r]+/g, " ")).trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
