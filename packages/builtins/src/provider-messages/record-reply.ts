import {
  type ConversationEvent,
  type ConversationStream,
  createEvent,
  type JsonObject,
  MAX_EVENT_VALUE_DEPTH,
  StreamAppendError,
  type ToolCallRequest,
} from "@jp/conversation";

/** One piece of a model's reply, in reply order. */
export type ReplyPart =
  | { readonly kind: "message"; readonly text: string }
  | { readonly kind: "reasoning"; readonly text: string }
  | {
      readonly kind: "call";
      readonly id: string;
      readonly name: string;
      /** The arguments, or why they are not a JSON object. */
      readonly arguments: JsonObject | ArgumentsProblem;
    };

/**
 * Why a call's arguments are not a JSON object. A class, not a `{problem}` object: the model's
 * own arguments may well have a `problem` key, and such a call must still run.
 */
export class ArgumentsProblem {
  readonly problem: string;
  /** How the model is asked to call again: "with its arguments as one JSON object" by default. */
  readonly fix: string;
  constructor(problem: string, fix = "with its arguments as one JSON object") {
    this.problem = problem;
    this.fix = fix;
  }
}

/**
 * Appends a reply to the stream: its text as `chat_response` events, then one
 * `tool_call_request` per call. A call whose arguments are not a JSON object, or are nested more
 * deeply than a conversation records (`MAX_EVENT_VALUE_DEPTH` levels), is answered at once with
 * an error the model can act on, and is not returned. Returns the calls to run.
 */
export function recordReply(
  stream: ConversationStream,
  parts: readonly ReplyPart[],
): ToolCallRequest[] {
  // The stream checks how deeply each event is nested as it appends: a call it refuses for that
  // is recorded without its arguments and answered, and the reply appended again. The usual
  // reply is appended at once, its arguments walked only by that one check.
  let current = parts;
  for (;;) {
    const { events, calls, callParts } = replyEvents(current);
    if (events.length === 0) return calls;
    const appended = stream.tryAppend(...events);
    if (appended.isOk()) return calls;
    const { error } = appended;
    const part = error.kind === "nested-too-deep" ? callParts.get(error.index ?? -1) : undefined;
    if (part === undefined) throw new StreamAppendError(error);
    current = current.map((p) =>
      p === part ? { ...part, arguments: new ArgumentsProblem(TOO_DEEP, TOO_DEEP_FIX) } : p,
    );
  }
}

const TOO_DEEP = `its arguments are nested more than ${MAX_EVENT_VALUE_DEPTH} levels deep (arrays and objects within one another), more than a conversation can record`;
const TOO_DEEP_FIX = `with its arguments nested at most ${MAX_EVENT_VALUE_DEPTH} levels deep`;

// The events of a reply, in the order they are appended; the calls to run; and which part each
// call's request was made from, by the request's position among the events.
function replyEvents(parts: readonly ReplyPart[]): {
  events: ConversationEvent[];
  calls: ToolCallRequest[];
  callParts: Map<number, ReplyPart>;
} {
  const callParts = new Map<number, ReplyPart>();
  const events: ConversationEvent[] = [];
  const calls: ToolCallRequest[] = [];
  const refused: ConversationEvent[] = [];
  for (const part of parts) {
    if (part.kind === "message") {
      if (part.text !== "") events.push(createEvent("chat_response", { message: part.text }));
    } else if (part.kind === "reasoning") {
      if (part.text !== "") events.push(createEvent("chat_response", { reasoning: part.text }));
    } else if (part.arguments instanceof ArgumentsProblem) {
      events.push(
        createEvent("tool_call_request", { id: part.id, name: part.name, arguments: {} }),
      );
      refused.push(
        createEvent("tool_call_response", {
          id: part.id,
          content: `The call was not run: ${part.arguments.problem}. Call ${part.name} again ${part.arguments.fix}.`,
          is_error: true,
        }),
      );
    } else {
      const call = createEvent("tool_call_request", {
        id: part.id,
        name: part.name,
        arguments: part.arguments,
      });
      callParts.set(events.length, part);
      events.push(call);
      calls.push(call);
    }
  }
  events.push(...refused);
  return { events, calls, callParts };
}

/** `value` as tool arguments, when it is a JSON object. */
export function argumentsOf(value: unknown): JsonObject | ArgumentsProblem {
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    return value as JsonObject;
  }
  return new ArgumentsProblem(`its arguments are ${describe(value)}, not a JSON object`);
}

/**
 * A call's arguments as an OpenAI-shaped reply carries them: JSON text, parsed; an object as it
 * is (some compatible servers send one); none at all as no arguments.
 */
export function callArguments(value: unknown): JsonObject | ArgumentsProblem {
  if (typeof value === "string") return parseArguments(value);
  if (value === undefined || value === null) return {};
  return argumentsOf(value);
}

/** Arguments sent as JSON text (OpenAI), parsed. */
export function parseArguments(text: string): JsonObject | ArgumentsProblem {
  // Some models send no text at all for a call without arguments.
  if (text.trim() === "") return {};
  try {
    return argumentsOf(JSON.parse(text));
  } catch {
    return new ArgumentsProblem("its arguments are not valid JSON");
  }
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  return value === undefined ? "missing" : `a ${typeof value}`;
}
