// Shared fixtures of the coordinator behaviour tests (routing, recording, concurrency,
// permission/delivery, secrets). Only plain helpers: every assertion stays in the tests.
import type {
  ConversationStream,
  InquiryRequest,
  InquiryResponse,
  JsonValue,
  StreamEvent,
  ToolCallResponse,
} from "@jp/conversation";
import type { Question } from "@jp/tool";
import type { CoordinatorEvents, ToolCall, ToolCoordinator, ToolsConfig } from "../src/index.js";
import { MockExecutor } from "../src/testing/index.js";

/** Every tool runs without a permission prompt; questions and delivery keep their defaults. */
export const UNATTENDED: ToolsConfig = { "*": { run: "unattended" } };

/** A tool call as the assistant sends it. */
export function call(id: string, name: string, args: Record<string, JsonValue> = {}): ToolCall {
  return { id, name, arguments: args };
}

export const booleanQuestion = (id = "confirm", extra: Partial<Question> = {}): Question => ({
  id,
  text: "Go ahead?",
  answer_type: { type: "boolean" },
  ...extra,
});

export const selectQuestion = (id = "pick", extra: Partial<Question> = {}): Question => ({
  id,
  text: "Which one?",
  answer_type: { type: "select", options: ["red", "green", "blue"] },
  ...extra,
});

export const textQuestion = (id = "name", extra: Partial<Question> = {}): Question => ({
  id,
  text: "What name?",
  answer_type: { type: "text" },
  ...extra,
});

export const secretQuestion = (id = "token", extra: Partial<Question> = {}): Question => ({
  id,
  text: "API token?",
  answer_type: { type: "secret" },
  ...extra,
});

/**
 * A tool that asks `questions` in order, one per pass, until each has an answer, then succeeds
 * with `done(answers)` (by default the answers as JSON).
 */
export function asking(
  questions: readonly Question[],
  done: (answers: Readonly<Record<string, JsonValue>>) => string = (answers) =>
    `answers: ${JSON.stringify(answers)}`,
): MockExecutor {
  return new MockExecutor((input) => {
    const next = questions.find((q) => input.answers[q.id] === undefined);
    if (next !== undefined) return { type: "needs_input", question: next };
    return { type: "success", content: done(input.answers) };
  });
}

/** The inquiry events of a stream, typed. */
export function inquiryEvents(stream: ConversationStream): (InquiryRequest | InquiryResponse)[] {
  return stream.events.filter(
    (e): e is InquiryRequest | InquiryResponse =>
      e.type === "inquiry_request" || e.type === "inquiry_response",
  );
}

/** The recorded tool call responses, reduced to id, content and is_error. */
export function toolResponses(stream: ConversationStream) {
  return stream.events
    .filter((e): e is ToolCallResponse => e.type === "tool_call_response")
    .map((e) => ({ id: e.id, content: e.content, is_error: e.is_error }));
}

/**
 * Requests and responses of one family that do not pair up one-to-one by id (counted, so two
 * requests with one response leave one unpaired). Empty when every request has exactly one
 * response and no response lacks a request.
 */
export function unpaired(
  events: readonly StreamEvent[],
  family: "inquiry" | "tool_call",
): { requests: string[]; responses: string[] } {
  const open = new Map<string, number>();
  const responses: string[] = [];
  for (const event of events) {
    if (event.type === `${family}_request`) {
      const id = (event as { id: string }).id;
      open.set(id, (open.get(id) ?? 0) + 1);
    } else if (event.type === `${family}_response`) {
      const id = (event as { id: string }).id;
      const count = open.get(id) ?? 0;
      if (count === 0) responses.push(id);
      else open.set(id, count - 1);
    }
  }
  const requests = [...open].flatMap(([id, count]) => Array<string>(count).fill(id));
  return { requests, responses };
}

export type EmittedEvent = {
  [K in keyof CoordinatorEvents]: { name: K; payload: Parameters<CoordinatorEvents[K]>[0] };
}[keyof CoordinatorEvents];

/** Records every event the coordinator emits, in order. */
export function recordEmitted(coordinator: ToolCoordinator): EmittedEvent[] {
  const seen: EmittedEvent[] = [];
  coordinator.on("tool-state", (payload) => seen.push({ name: "tool-state", payload }));
  coordinator.on("inquiry-recorded", (payload) => seen.push({ name: "inquiry-recorded", payload }));
  coordinator.on("prompt-shown", (payload) => seen.push({ name: "prompt-shown", payload }));
  coordinator.on("prompt-answered", (payload) => seen.push({ name: "prompt-answered", payload }));
  return seen;
}

/** A promise with its resolve function outside. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** Lets the event loop run `n` macrotasks (no timers): other async work gets its turn. */
export async function macrotasks(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise<void>((r) => setImmediate(r));
}
