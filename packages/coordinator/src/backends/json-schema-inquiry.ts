import type { ConversationStream, JsonObject, JsonValue } from "@jp/conversation";
import { type Question, validateAnswer } from "@jp/tool";
import { err, ok, type Result } from "neverthrow";
import type { InquiryBackend, InquiryError, InquiryRequestInput } from "./inquiry-backend.js";
import { inquiryPromptText, inquirySchemaFor } from "./inquiry-schema.js";

/** What a host's structured completion is asked. */
export interface JsonSchemaCompletionInput {
  /** The user message to add to the conversation, from {@link inquiryPromptText}. */
  readonly prompt: string;
  /** The JSON Schema the reply must match, from {@link inquirySchemaFor}. */
  readonly schema: JsonObject;
  /** A sanitized copy of the conversation so far; the host may change it freely. */
  readonly stream: ConversationStream;
  readonly signal: AbortSignal;
  /** The whole request, e.g. to pick a per-question model. */
  readonly request: InquiryRequestInput;
}

/**
 * A host's "complete with a JSON Schema" call to its LLM client. It resolves with the structured
 * data (`{"answer": …}`), or with the reply's raw text, which is parsed as JSON.
 */
export type JsonSchemaCompletion = (input: JsonSchemaCompletionInput) => Promise<unknown>;

/**
 * An {@link InquiryBackend} on top of a host's structured-output completion: it builds JP's
 * prompt and schema, calls `complete`, and checks the `answer` against the question. Never
 * throws; failures map to {@link InquiryError} kinds:
 *
 * | what happened | kind |
 * |---|---|
 * | the signal is aborted (before, during or after the call) | `cancelled` |
 * | `complete` throws or rejects | `provider` |
 * | the reply is not a JSON object, or has no `answer` | `missing_structured_data` |
 * | the `answer` does not fit the question | `answer_extraction` |
 * | a `secret` question, no options, or an unusable schema | `other` (nothing is sent) |
 *
 * An exclusive question is not refused here: the configuration may lift `exclusive`, and routing
 * has already decided. A `secret` is refused whatever was decided.
 *
 * @example
 * ```ts
 * const backend = createJsonSchemaInquiryBackend(async ({ prompt, schema, stream, signal }) =>
 *   client.complete({ messages: [...toMessages(stream), { role: "user", content: prompt }], schema, signal }),
 * );
 * ```
 */
export function createJsonSchemaInquiryBackend(complete: JsonSchemaCompletion): InquiryBackend {
  return {
    async inquire(request, { signal }) {
      try {
        return await inquire(complete, request, signal);
      } catch (cause) {
        return err({ kind: "other", message: `the inquiry failed: ${describe(cause)}` });
      }
    },
  };
}

type Reply =
  | { readonly type: "value"; readonly value: unknown }
  | { readonly type: "rejected"; readonly cause: unknown }
  | { readonly type: "cancelled" };

const CANCELLED: InquiryError = { kind: "cancelled", message: "the inquiry was cancelled" };

async function inquire(
  complete: JsonSchemaCompletion,
  request: InquiryRequestInput,
  signal: AbortSignal,
): Promise<Result<JsonValue, InquiryError>> {
  if (signal.aborted) return err(CANCELLED);
  const schema = inquirySchemaFor(request.question.answer_type);
  if (schema.isErr()) return err(schema.error);
  // Providers refuse dangling tool calls; a copy keeps the caller's stream as it was.
  const stream = request.stream.clone();
  stream.sanitize();
  const prompt = inquiryPromptText(request.toolName, request.question);
  const reply = await race(
    () => complete({ prompt, schema: schema.value, stream, signal, request }),
    signal,
  );
  switch (reply.type) {
    case "cancelled":
      return err(CANCELLED);
    case "rejected":
      return err({ kind: "provider", message: `the completion failed: ${describe(reply.cause)}` });
    case "value":
      return extractAnswer(request.question, reply.value);
  }
}

/** Settles on the abort as soon as it comes, even if `complete` ignores the signal. */
function race(run: () => Promise<unknown>, signal: AbortSignal): Promise<Reply> {
  return new Promise((resolve) => {
    const onAbort = (): void => resolve({ type: "cancelled" });
    signal.addEventListener("abort", onAbort, { once: true });
    Promise.resolve()
      .then(run)
      .then(
        (value) => resolve(signal.aborted ? { type: "cancelled" } : { type: "value", value }),
        (cause: unknown) =>
          resolve(signal.aborted ? { type: "cancelled" } : { type: "rejected", cause }),
      )
      .finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** A whole reply wrapped in one Markdown code fence, as chat models like to send JSON. */
const FENCED = /^```(?:json)?\s*\n([\s\S]*?)\n?```$/;

function extractAnswer(question: Question, reply: unknown): Result<JsonValue, InquiryError> {
  let data = reply;
  if (typeof reply === "string") {
    const text = reply.trim();
    try {
      data = JSON.parse(FENCED.exec(text)?.[1] ?? text);
    } catch {
      return err(missing("the reply is text, not JSON"));
    }
  }
  if (!isPlainObject(data)) {
    return err(missing(`expected an object with an "answer" field, got ${kindOf(data)}`));
  }
  if (!Object.hasOwn(data, "answer")) return err(missing('the reply has no "answer" field'));
  const checked = validateAnswer(question.answer_type, data.answer);
  if (checked.isOk()) return ok(checked.value);
  // `invalid-schema` is the tool's fault (its schema does not compile), not the model's.
  const kind = checked.error.kind === "invalid-answer" ? "answer_extraction" : "other";
  return err({ kind, message: checked.error.message });
}

function missing(message: string): InquiryError {
  return { kind: "missing_structured_data", message };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (value === undefined) return "nothing";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "a non-plain object" : `a ${typeof value}`;
}

function describe(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
}
