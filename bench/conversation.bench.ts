import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ConversationStream, createEvent, encodeEvent, type StreamEvent } from "@jp/conversation";
import { medianPairMs, ms } from "./stats.js";

const FIXTURES = join(import.meta.dirname, "../../shared/fixtures/jp-conversations");

/** The fixture conversations' events.json arrays joined into one, or undefined without ../shared. */
function fixtureText(): string | undefined {
  if (!existsSync(FIXTURES)) return undefined;
  const all: unknown[] = [];
  for (const dir of readdirSync(FIXTURES).sort()) {
    all.push(
      ...(JSON.parse(readFileSync(join(FIXTURES, dir, "events.json"), "utf-8")) as unknown[]),
    );
  }
  return JSON.stringify(all);
}

/** A synthetic stream of `count` events shaped like a tool-heavy JP conversation. */
function generatedEvents(count: number): StreamEvent[] {
  const events: StreamEvent[] = [];
  const ts = "2026-03-05 22:13:20.314981";
  for (let i = 0; events.length < count; i++) {
    const call = `call_${i}`;
    events.push(
      createEvent("turn_start", { timestamp: ts }),
      createEvent("chat_request", { timestamp: ts, content: `Please look at file ${i}.` }),
      createEvent("chat_response", { timestamp: ts, reasoning: "Reading the file first." }),
      createEvent("tool_call_request", {
        timestamp: ts,
        id: call,
        name: "fs_modify_file",
        arguments: { path: `src/file_${i}.rs`, patterns: [{ old: "a", new: "b" }] },
      }),
      createEvent("inquiry_request", {
        timestamp: ts,
        id: `${call}.apply_changes.1`,
        source: { source: "tool", name: "fs_modify_file" },
        question: { text: "Apply the patch?", answer_type: { type: "boolean" }, default: true },
      }),
      createEvent("inquiry_response", {
        timestamp: ts,
        outcome: "answered",
        id: `${call}.apply_changes.1`,
        answer: true,
      }),
      createEvent("tool_call_response", {
        timestamp: ts,
        id: call,
        content: "File modified successfully",
        is_error: false,
      }),
      createEvent("chat_response", { timestamp: ts, message: `Done with file ${i}.` }),
    );
  }
  return events.slice(0, count);
}

function measure(label: string, text: string): string[] {
  // Each pair is measured alternately, so drift in the machine affects both sides alike.
  const [parse, decode] = medianPairMs(
    () => JSON.parse(text),
    () => ConversationStream.decode(JSON.parse(text))._unsafeUnwrap(),
  );
  const raw = JSON.parse(text) as unknown[];
  const stream = ConversationStream.decode(raw)._unsafeUnwrap();
  // toJSON writes decoded, unchanged events as read; `canonical` ignores what was read.
  const [stringify, writeBack] = medianPairMs(
    () => JSON.stringify(raw),
    () => JSON.stringify(stream.toJSON()),
  );
  const [, canonical] = medianPairMs(
    () => JSON.stringify(raw),
    () => JSON.stringify(stream.events.map((e) => encodeEvent(e, { canonical: true }))),
  );
  const mb = (Buffer.byteLength(text) / 1e6).toFixed(1);
  return [
    `${label}: ${raw.length} events, ${mb} MB`,
    `  decode   ${ms(decode)}  vs JSON.parse ${ms(parse)}  ratio ${(decode / parse).toFixed(2)}`,
    `  encode   ${ms(writeBack)}  vs JSON.stringify ${ms(stringify)}  ratio ${(writeBack / stringify).toFixed(2)} (stream.toJSON())`,
    `  encode   ${ms(canonical)}  vs JSON.stringify ${ms(stringify)}  ratio ${(canonical / stringify).toFixed(2)} (encodeEvent with canonical: true)`,
  ];
}

/** Decode and encode of the fixture conversations and of a generated 100k-event stream. */
export function conversationBench(): string[] {
  const lines: string[] = ["## @jp/conversation"];
  const fixtures = fixtureText();
  if (fixtures === undefined) lines.push("fixture conversations: skipped (../shared is absent)");
  else lines.push(...measure("fixture conversations concatenated", fixtures));
  const generated = JSON.stringify(generatedEvents(100_000).map((e) => encodeEvent(e)));
  lines.push(...measure("generated stream", generated));
  return lines;
}
