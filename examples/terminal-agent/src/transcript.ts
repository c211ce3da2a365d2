import {
  type ConversationStream,
  inquiryResponseLine,
  isConversationEvent,
} from "@jp/conversation";
import { neutralize } from "@jp/prompt-terminal";

/**
 * A readable transcript of the conversation: who said what, every question and how it was
 * answered. Calls and results of tools configured as hidden (`ask_user`) are left out, as a
 * terminal UI would; the questions they asked are shown. All text is neutralized: it comes from
 * a model and a tool. Text that spans lines keeps them, each line after its first marked `┆` as
 * a continuation, so a message cannot pass one of its lines off as a line of the transcript
 * (`You: …`).
 */
export function transcript(stream: ConversationStream, hidden: ReadonlySet<string>): string {
  const lines: string[] = [];
  const hiddenCalls = new Set<string>();
  for (const event of stream.events) {
    if (!isConversationEvent(event)) continue;
    switch (event.type) {
      case "chat_request":
        lines.push(`You: ${body(event.content)}`);
        break;
      case "chat_response":
        if ("message" in event) lines.push(`Assistant (scripted): ${body(event.message)}`);
        break;
      case "tool_call_request":
        if (hidden.has(event.name)) hiddenCalls.add(event.id);
        else lines.push(`  → ${line(event.name)} ${line(JSON.stringify(event.arguments))}`);
        break;
      case "inquiry_request": {
        const who = line("name" in event.source ? event.source.name : event.source.source);
        lines.push(
          `  ? ${body(event.question.text)}  [${line(event.question.answer_type.type)}, asked by ${who}]`,
        );
        break;
      }
      case "inquiry_response":
        lines.push(`    ${body(inquiryResponseLine(event))}`);
        break;
      case "tool_call_response": {
        if (!hiddenCalls.has(event.id))
          lines.push(`  ← ${event.is_error ? "error: " : ""}${body(event.content)}`);
        // A Reply's message reaches the model only in the tool's result: show it as the person's.
        const said = replyMessage(event.content);
        if (said !== undefined) lines.push(`You (reply): ${body(said)}`);
        break;
      }
      default:
        break;
    }
  }
  return lines.join("\n");
}

/** One-line text (a name, a type): inert, its line breaks shown as `\n`. */
function line(text: string): string {
  return neutralize(text);
}

/** Text that may span lines: inert, every line after the first marked as a continuation. */
function body(text: string): string {
  return neutralize(text, { multiline: true }).split("\n").join("\n  ┆ ");
}

/** The message of a Reply, from the result of a form the person left with one. */
function replyMessage(content: string): string | undefined {
  try {
    const value: unknown = JSON.parse(content);
    if (typeof value !== "object" || value === null) return undefined;
    const { cancelled, message } = value as { cancelled?: unknown; message?: unknown };
    return cancelled === true && typeof message === "string" && message !== ""
      ? message
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * JSON for a terminal or a pipe: the same value, with the characters `JSON.stringify` leaves as
 * they are but a terminal may act on (DEL, C1 controls such as the 8-bit CSI, bidi overrides and
 * other invisible format characters) written as `\u` escapes.
 */
export function inertJson(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(
    /[\u007f-\u009f\p{Cf}\u2028\u2029]/gu,
    // Per UTF-16 unit, so a tag character (beyond U+FFFF) becomes its surrogate pair's escapes.
    (char) =>
      Array.from(
        { length: char.length },
        (_, i) => `\\u${char.charCodeAt(i).toString(16).padStart(4, "0")}`,
      ).join(""),
  );
}
