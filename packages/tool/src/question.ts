import { ok, type Result } from "neverthrow";
import type { z } from "zod";
import { answerTypeSchemas } from "./answer-type.js";
import type { DecodeError } from "./errors.js";
import { canonicalQuestion } from "./internal/canonical-question.js";
import { decodeWith } from "./internal/decode.js";
import { describeJson } from "./internal/describe.js";
import { isPlainObject } from "./internal/json-check.js";
import { lazy, lazySchema, zod } from "./internal/lazy.js";
import { jsonSchemas } from "./json.js";

/**
 * The zod schema of an {@link AnswerReusePolicy}: `"none"` asks again every time (for high-risk
 * confirmations), `"turn"` lets the human's answer be remembered for the rest of the turn.
 */
export const answerReusePolicySchema = lazySchema(() => questionSchemas().reusePolicy);

/** How long an answer to a question may be reused: `"none"` or `"turn"` (the default). */
export type AnswerReusePolicy = z.infer<typeof answerReusePolicySchema>;

/** Field values that equal the protocol defaults; they are dropped so the wire shape is canonical. */
const FIELD_DEFAULTS: Readonly<Record<string, unknown>> = { exclusive: false, persistence: "turn" };

/** JP's serde writes `null` for `None`; for these fields `null` therefore means "absent". */
const NULLABLE_FIELDS = ["context", "pre_amble", "default", "exclusive", "persistence"];

/**
 * Rewrites a raw question into the canonical shape before validation: nulls dropped, legacy
 * `pre_amble` read as `context` (an explicit `context` wins), default-valued fields dropped.
 */
function normaliseQuestion(input: unknown): unknown {
  if (!isPlainObject(input)) return input;
  const out: Record<string, unknown> = Object.fromEntries(
    Object.entries(input).filter(([key, value]) => !isDroppable(key, value)),
  );
  const { context, pre_amble: preAmble } = input;
  if ((context === undefined || context === null) && preAmble !== undefined && preAmble !== null) {
    out.context = preAmble;
  }
  return out;
}

function isDroppable(key: string, value: unknown): boolean {
  if (key === "pre_amble") return true;
  if (value === null && NULLABLE_FIELDS.includes(key)) return true;
  return Object.hasOwn(FIELD_DEFAULTS, key) && FIELD_DEFAULTS[key] === value;
}

// Built on first use (see internal/lazy.ts): importing the package does not load zod.
export const questionSchemas = lazy(() => {
  const z = zod();
  const reusePolicy = z.enum(["none", "turn"]);
  // A question id becomes one segment of the inquiry id `<tool_call_id>.<question_id>.<attempt>`.
  const idSchema = z
    .string()
    .refine((id) => id.length > 0, { error: "must not be empty" })
    .refine((id) => !id.includes("."), {
      error: (issue) =>
        `must not contain "." (it becomes one segment of the inquiry id ` +
        `<tool_call_id>.<question_id>.<attempt>), got ${describeJson(issue.input)}`,
    });
  // The question's fields, with the id only type-checked; `question` adds the id rules.
  const fields = {
    id: z.string(),
    text: z.string(),
    context: z.string().exactOptional(),
    answer_type: answerTypeSchemas().answerType,
    default: jsonSchemas().value.exactOptional(),
    exclusive: z.boolean().exactOptional(),
    persistence: reusePolicy.exactOptional(),
  };
  return {
    reusePolicy,
    // Without the id rules, so that `defineQuestion` can word those refusals for a tool author.
    shape: z.preprocess(normaliseQuestion, z.object(fields)),
    question: z.preprocess(normaliseQuestion, z.object({ ...fields, id: idSchema })),
  };
});

/**
 * The zod schema of a {@link Question}. It decodes JP's older shapes too (`pre_amble`, `null`
 * optional fields, legacy answer types) and outputs the canonical shape, defaults omitted.
 */
export const questionSchema = lazySchema(() => questionSchemas().question);

/**
 * A question a tool asks a human mid-turn. The fields are the wire JSON; absent `exclusive` means
 * `false` and absent `persistence` means `"turn"` (use {@link isExclusive} / {@link reusePolicy}).
 */
export type Question = z.infer<typeof questionSchema>;

/**
 * Decodes a question from foreign JSON. Never throws. Tolerates multi-line `text`, which only
 * {@link defineQuestion} refuses.
 */
export function decodeQuestion(json: unknown): Result<Question, DecodeError> {
  const canonical = canonicalQuestion(json, true);
  if (canonical !== undefined) return ok(canonical);
  return decodeWith(questionSchemas().question, json, "question");
}

/**
 * The canonical wire JSON of a question: known fields only, in a stable order, without
 * `exclusive: false` or `persistence: "turn"`.
 */
export function encodeQuestion(question: Question): Question {
  const { id, text, context, answer_type, exclusive, persistence } = question;
  return {
    id,
    text,
    ...(context === undefined ? {} : { context }),
    answer_type,
    ...("default" in question && question.default !== undefined
      ? { default: question.default }
      : {}),
    ...(exclusive === true ? { exclusive } : {}),
    ...(persistence === undefined || persistence === "turn" ? {} : { persistence }),
  };
}

/** Whether only a human may answer ("human-or-nothing": never routed to an LLM); default `false`. */
export function isExclusive(question: Pick<Question, "exclusive">): boolean {
  return question.exclusive ?? false;
}

/** How long the question's answer may be reused; default `"turn"`. */
export function reusePolicy(question: Pick<Question, "persistence">): AnswerReusePolicy {
  return question.persistence ?? "turn";
}
