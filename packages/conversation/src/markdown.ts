import { type ConversationEvent, isConversationEvent, type StreamEvent } from "./events.js";
import type { InquiryQuestion, InquirySource } from "./inquiry.js";
import { jsonText } from "./internal/json-text.js";
import type { ConversationStream } from "./stream.js";

/**
 * Renders a conversation as Markdown, one section per turn. Inquiries follow RFD 082's reader
 * rules: `Answer: <value>`, `Answer: <redacted>` for a secret, `Cancelled (<reason>)` with the
 * reason's wire text (an unknown reason is shown verbatim).
 *
 * @example
 * const markdown = toMarkdown(stream);
 */
export function toMarkdown(stream: ConversationStream): string {
  const sections: string[] = [];
  for (const turn of stream.turns()) {
    const blocks = turn.events.flatMap((event) => renderEvent(event));
    if (blocks.length > 0) sections.push([`## Turn ${turn.index + 1}`, ...blocks].join("\n\n"));
  }
  return sections.length === 0 ? "" : `${sections.join("\n\n")}\n`;
}

/** The line RFD 082 prescribes for an inquiry response. */
export function inquiryResponseLine(
  event: Extract<ConversationEvent, { type: "inquiry_response" }>,
) {
  switch (event.outcome) {
    case "answered":
      return `Answer: ${renderValue(event.answer)}`;
    case "redacted":
      return "Answer: <redacted>";
    case "cancelled":
      return `Cancelled (${event.reason})`;
  }
}

function renderEvent(event: StreamEvent): string[] {
  if (!isConversationEvent(event)) return [];
  switch (event.type) {
    case "turn_start":
      return [];
    case "chat_request":
      return [`### ${event.author ?? "User"}`, event.content];
    case "chat_response":
      if ("message" in event) return ["### Assistant", event.message];
      if ("reasoning" in event) return [quote(`Reasoning:\n\n${event.reasoning}`)];
      return ["### Assistant (structured)", fence(jsonText(event.data, 2), "json")];
    case "tool_call_request":
      return [`#### Tool call \`${event.name}\``, fence(jsonText(event.arguments, 2), "json")];
    case "tool_call_response":
      return [`#### Tool ${event.is_error ? "error" : "result"}`, fence(event.content)];
    case "inquiry_request":
      return renderQuestion(event.source, event.question);
    case "inquiry_response":
      return [inquiryResponseLine(event)];
  }
}

function renderQuestion(source: InquirySource, question: InquiryQuestion): string[] {
  const out = [`**Question** (${describeSource(source)}): ${question.text}`];
  if (question.context !== undefined) out.push(quote(question.context));
  const type = question.answer_type;
  if (type.type === "select" || type.type === "multi_select") {
    out.push(type.options.map((o) => `- ${renderValue(o.value)}`).join("\n"));
  }
  return out;
}

function describeSource(source: InquirySource): string {
  return "name" in source ? `${source.source} \`${source.name}\`` : source.source;
}

function renderValue(value: unknown): string {
  return typeof value === "string" ? value : jsonText(value);
}

function quote(text: string): string {
  return text
    .split("\n")
    .map((line) => (line === "" ? ">" : `> ${line}`))
    .join("\n");
}

// A fence one backtick longer than the longest run inside, so content cannot close it early.
function fence(text: string, language = ""): string {
  // A loop, not Math.max(...runs): spreading a huge number of runs overflows the call stack.
  let longest = 2;
  for (const run of text.matchAll(/`+/g)) longest = Math.max(longest, run[0].length);
  const ticks = "`".repeat(longest + 1);
  return `${ticks}${language}\n${text}\n${ticks}`;
}
