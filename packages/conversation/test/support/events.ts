// Small hand-written events for the stream, sanitize and markdown tests. Each builder takes an
// optional timestamp so a test can tell events apart by it.
import {
  type ChatRequest,
  type ChatResponse,
  type ConfigDelta,
  createEvent,
  type InquiryRequest,
  type InquiryResponse,
  type JsonObject,
  type ToolCallRequest,
  type ToolCallResponse,
  type TurnStart,
} from "../../src/index.js";

export const T0 = "2026-03-05 22:00:00.0";

export const turnStart = (timestamp = T0): TurnStart => createEvent("turn_start", { timestamp });

export const chat = (content = "hello", timestamp = T0): ChatRequest =>
  createEvent("chat_request", { timestamp, content });

export const reply = (message = "ok", timestamp = T0): ChatResponse =>
  createEvent("chat_response", { timestamp, message });

export const call = (id: string, timestamp = T0, args: JsonObject = {}): ToolCallRequest =>
  createEvent("tool_call_request", { timestamp, id, name: "fs_modify_file", arguments: args });

export const result = (id: string, timestamp = T0, content = "done"): ToolCallResponse =>
  createEvent("tool_call_response", { timestamp, id, content, is_error: false });

export const ask = (id: string, timestamp = T0): InquiryRequest =>
  createEvent("inquiry_request", {
    timestamp,
    id,
    source: { source: "tool", name: "fs_modify_file" },
    question: { text: "Apply the patch?", answer_type: { type: "boolean" } },
  });

export const answer = (id: string, timestamp = T0): InquiryResponse =>
  createEvent("inquiry_response", { timestamp, outcome: "answered", id, answer: true });

export const configDelta = (
  delta: JsonObject = { assistant: { name: "jp" } },
  timestamp = T0,
): ConfigDelta => ({
  timestamp,
  type: "config_delta",
  delta,
});
