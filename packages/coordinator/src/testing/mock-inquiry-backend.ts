import type { JsonValue } from "@jp/conversation";
import { err, ok, type Result } from "neverthrow";
import type {
  InquiryBackend,
  InquiryError,
  InquiryRequestInput,
} from "../backends/inquiry-backend.js";

/** A scripted LLM answer: a value, an error, or a function of the request. */
export type InquiryAnswerScript =
  | Readonly<Record<string, JsonValue>>
  | ((
      input: InquiryRequestInput,
      signal: AbortSignal,
    ) =>
      | JsonValue
      | Result<JsonValue, InquiryError>
      | Promise<JsonValue | Result<JsonValue, InquiryError>>);

/**
 * A scripted LLM for tests: answers by inquiry id (`{"call_1.confirm.1": true}`) or by function.
 * An id with no answer is an `other` error, as JP's mock reports it.
 *
 * @example
 * const llm = new MockInquiryBackend({ "call_1.apply_changes.1": true });
 */
export class MockInquiryBackend implements InquiryBackend {
  /** Every inquiry received, in order. */
  readonly requests: InquiryRequestInput[] = [];
  readonly #script: InquiryAnswerScript;

  constructor(script: InquiryAnswerScript) {
    this.#script = script;
  }

  async inquire(
    input: InquiryRequestInput,
    options: { readonly signal: AbortSignal },
  ): Promise<Result<JsonValue, InquiryError>> {
    this.requests.push(input);
    if (typeof this.#script === "function") {
      const answer = await this.#script(input, options.signal);
      return isResult(answer) ? answer : ok(answer);
    }
    if (!Object.hasOwn(this.#script, input.inquiryId)) {
      return err({ kind: "other", message: `No mock answer for inquiry: ${input.inquiryId}` });
    }
    return ok(this.#script[input.inquiryId] as JsonValue);
  }
}

function isResult(value: unknown): value is Result<JsonValue, InquiryError> {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { isOk?: unknown }).isOk === "function" &&
    typeof (value as { isErr?: unknown }).isErr === "function"
  );
}
