import type { z } from "zod";
import { keepUnknownKeys } from "./internal/keep-unknown-keys.js";
import { lazy, zod } from "./internal/lazy.js";
import { isPlainObject, jsonSchemas } from "./json.js";

function buildInquirySchemas() {
  const z = zod();
  const json = jsonSchemas();
  // JP wrote bare values (`"options": ["yes", "no"]`) before options had descriptions; such a
  // value reads as `{ value }`.
  const selectOption = z.preprocess(
    (option) =>
      isPlainObject(option) && Object.hasOwn(option, "value") ? option : { value: option },
    keepUnknownKeys(z.object({ value: json.value, description: z.string().optional() })),
  );
  const reusePolicy = z.enum(["none", "turn"]);
  /** The answer type of a recorded question, tagged by `type`. */
  const answerType = z.discriminatedUnion("type", [
    z.object({ type: z.literal("boolean") }),
    z.object({ type: z.literal("select"), options: z.array(selectOption) }),
    z.object({ type: z.literal("multi_select"), options: z.array(selectOption) }),
    z.object({ type: z.literal("text") }),
    z.object({ type: z.literal("secret") }),
    z.object({ type: z.literal("schema"), schema: json.object }),
  ]);
  return {
    /**
     * Who asked a recorded question. Derived from tool metadata at the executor boundary, never
     * from user configuration, so the audit trail cannot be relabelled by a config file.
     */
    source: z.discriminatedUnion("source", [
      z.object({ source: z.literal("tool"), name: z.string() }),
      z.object({ source: z.literal("assistant") }),
      z.object({ source: z.literal("user") }),
      z.object({ source: z.literal("other"), name: z.string() }),
    ]),
    selectOption,
    answerType,
    reusePolicy,
    /**
     * The question as persisted. `exclusive` (default `false`) and `persistence` (default
     * `"turn"`) are absent at their defaults, both when read and when written.
     */
    question: z.preprocess(
      dropNullOptionals,
      keepUnknownKeys(
        z.object({
          text: z.string(),
          answer_type: answerType,
          default: json.value.optional(),
          context: z.string().optional(),
          exclusive: z.boolean().optional(),
          persistence: reusePolicy.optional(),
        }),
      ).transform(dropDefaults),
    ),
  };
}

/** The zod schemas of recorded questions, built (and zod loaded) on first use. */
export const inquirySchemas = lazy(buildInquirySchemas);
type Schemas = ReturnType<typeof buildInquirySchemas>;

/** Who asked a recorded question: `{"source":"tool","name":…}`, `assistant`, `user` or `other`. */
export type InquirySource = z.infer<Schemas["source"]>;
/** One choice of a recorded select or multi-select question. */
export type SelectOption = z.infer<Schemas["selectOption"]>;
/** The answer type of a recorded question, tagged by `type`. */
export type InquiryAnswerType = z.infer<Schemas["answerType"]>;
/** Whether an answer may be remembered for the rest of the turn (`turn`, the default) or not. */
export type InquiryAnswerReusePolicy = z.infer<Schemas["reusePolicy"]>;
/** The question as persisted in an `inquiry_request` event. */
export type InquiryQuestion = z.output<Schemas["question"]>;

// JP's serde writes `null` for an absent `default` or `context` in some versions; both mean
// "not set".
function dropNullOptionals(value: unknown): unknown {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return value;
  const record = value as Record<string, unknown>;
  if (record.default !== null && record.context !== null) return value;
  const out = { ...record };
  if (out.default === null) delete out.default;
  if (out.context === null) delete out.context;
  return out;
}

// Canonical form: defaults are absent, so two questions that mean the same thing compare equal
// and encode identically.
function dropDefaults<
  Q extends { exclusive?: boolean | undefined; persistence?: string | undefined },
>(question: Q): Q {
  if (question.exclusive === true || question.exclusive === undefined) {
    if (question.persistence !== "turn") return question;
  }
  const out = { ...question };
  if (out.exclusive !== true) delete out.exclusive;
  if (out.persistence !== "none") delete out.persistence;
  return out;
}

/**
 * The cancellation reasons this SDK writes. The first five are RFD 082/083's; `back`, `reply`
 * and `end_turn` record a form prompt the human left with that control, and `invalid_answer` a
 * reply that did not fit the question (the question is asked again). The last three are never
 * the person's decision: `turn_ended` (the person ended the turn at another prompt), `timeout`
 * (nobody answered in time) and `interrupted` (the host stopped the run, e.g. a shutdown). Any
 * other string read from disk is kept verbatim.
 */
export const KNOWN_CANCELLATION_REASONS = [
  "user",
  "backend_error",
  "no_prompt_backend",
  "assistant_routing_denied",
  "invalid_static_answer",
  "back",
  "reply",
  "end_turn",
  "invalid_answer",
  "turn_ended",
  "timeout",
  "interrupted",
] as const;

/** A reason this SDK writes (see {@link KNOWN_CANCELLATION_REASONS}). */
export type KnownCancellationReason = (typeof KNOWN_CANCELLATION_REASONS)[number];

/**
 * Why an inquiry closed without an answer. Reasons written by a newer version are preserved
 * verbatim: audit-trail only, readers must not branch on them.
 */
// The `string & {}` keeps editor completion for the known reasons while accepting any string.
export type CancellationReason = KnownCancellationReason | (string & {});

/** Whether `reason` is one this SDK knows by name. */
export function isKnownCancellationReason(reason: string): reason is KnownCancellationReason {
  return (KNOWN_CANCELLATION_REASONS as readonly string[]).includes(reason);
}
