import { createRequire } from "node:module";
import type { InquiryRequest, InquiryResponse } from "@jp/conversation";
import type { EventEmitter } from "eventemitter3";
import type { PromptRequest } from "../backends/prompt-backend.js";
import type {
  CoordinatorEvents,
  PromptOutcome,
  PromptRefusal,
  QuestionRouted,
  ToolCallState,
} from "../coordinator/events.js";

// OpenTelemetry spans from the coordinator's events. `@opentelemetry/api` is an optional peer
// dependency: it is loaded (synchronously, through `require`) only when a host turns tracing on,
// and the types below are structural, so a host without it neither loads nor needs it.

/** A span's attribute values, as OpenTelemetry takes them. */
export type SpanAttributeValue = string | number | boolean;

/** The part of an OpenTelemetry `Span` the coordinator uses (the official one fits). */
export interface SpanLike {
  setAttribute(key: string, value: SpanAttributeValue): unknown;
  addEvent(name: string, attributes?: Readonly<Record<string, SpanAttributeValue>>): unknown;
  setStatus(status: { code: number; message?: string }): unknown;
  end(): void;
}

/** The part of an OpenTelemetry `Tracer` the coordinator uses (`trace.getTracer(…)` fits). */
export interface TracerLike {
  startSpan(
    name: string,
    options?: { attributes?: Readonly<Record<string, SpanAttributeValue>> },
    context?: unknown,
  ): SpanLike;
}

/** Options of {@link traceCoordinator}. */
export interface TraceCoordinatorOptions {
  /**
   * The tracer the spans are made with. By default `trace.getTracer("@jp/coordinator")` of
   * `@opentelemetry/api`, which must then be installed.
   */
  readonly tracer?: TracerLike;
}

/** The names of the spans, events and attributes {@link traceCoordinator} writes. */
export const TRACE_NAMES = {
  /** A tool call's span: OpenTelemetry's GenAI name, `execute_tool <tool name>`. */
  toolCallSpan: "execute_tool",
  /** A question's span, a child of its tool call's span. */
  questionSpan: "jp.question",
  /** An event on a tool call's span for each state it moves to (`jp.tool_call.state`). */
  stateEvent: "jp.tool_call.state",
  /** Events on a tool call's span for its permission and delivery prompts. */
  promptShownEvent: "jp.prompt.shown",
  promptAnsweredEvent: "jp.prompt.answered",
  promptRefusedEvent: "jp.prompt.refused",
} as const;

/**
 * Stops tracing: no span is started after it, and the spans still open (a call that never
 * finished) are ended, marked `jp.trace.stopped`.
 */
export type StopTracing = () => void;

// The parts of @opentelemetry/api used here.
interface OtelApi {
  readonly trace: {
    getTracer(name: string): TracerLike;
    setSpan(context: unknown, span: SpanLike): unknown;
  };
  readonly context: { active(): unknown };
  readonly SpanStatusCode: { readonly ERROR: number };
}

let api: OtelApi | undefined;

function loadApi(required: boolean): OtelApi | undefined {
  if (api !== undefined) return api;
  try {
    api = createRequire(import.meta.url)("@opentelemetry/api") as OtelApi;
  } catch (cause) {
    if (!required) return undefined;
    throw new Error(
      "traceCoordinator: @opentelemetry/api is not installed (it is an optional peer dependency of @jp/coordinator). Install it (npm install @opentelemetry/api) or pass a `tracer`.",
      { cause },
    );
  }
  return api;
}

/** SpanStatusCode.ERROR, which is 2 in every version of the API. */
const STATUS_ERROR = 2;

// Recorded reasons that are a failure someone has to fix, not a decision.
const FAILURES: ReadonlySet<string> = new Set(["backend_error", "invalid_static_answer"]);

// Reasons under which the person themselves ended the prompt: their reply had a time.
const PERSONS: ReadonlySet<string> = new Set([
  "user",
  "back",
  "reply",
  "end_turn",
  "invalid_answer",
]);

interface QuestionTrace {
  readonly span: SpanLike;
  readonly callId: string | undefined;
  /** When its prompt was shown (`performance.now()`). */
  shownAt?: number;
  /** The person's reply's time, until the response says whether it was theirs. */
  repliedMs?: number;
  routed: boolean;
}

/**
 * Traces a coordinator with OpenTelemetry, from its events, until the returned function is
 * called:
 *
 * - one span per tool call, `execute_tool <tool name>` (OpenTelemetry's GenAI convention:
 *   `gen_ai.operation.name`, `gen_ai.tool.name`, `gen_ai.tool.call.id`), from `queued` to
 *   `completed` (or `suspended`, in `jp.tool_call.final_state`), with an event per state and per
 *   permission or delivery prompt (its kind, outcome and `jp.prompt.answer_ms`);
 * - one `jp.question` span per recorded question, a child of its tool call's span, with who
 *   answered it (`jp.question.route`: `static`, `remembered`, `default`, `assistant`, `human`,
 *   `refused`; `jp.question.detached` when the detached policy decided), how it ended
 *   (`jp.question.outcome`: `answered`, `redacted`, `cancelled` with `jp.question.cancel_reason`,
 *   or `pending`), how long its prompt was shown (`jp.question.shown_ms`) and how long the person
 *   took to answer (`jp.question.answer_ms`, only when the reply was theirs: a timeout or a
 *   shutdown is not an answer time).
 *
 * No span, attribute or event carries an answer, a default, a question's text or a tool's
 * arguments or result: only ids, names, answer types, routes, outcomes, reasons and durations. A
 * tool call's span is a child of the context active when the call started (the host's span
 * around `run`, with a context manager registered).
 *
 * @throws {Error} without a `tracer` when `@opentelemetry/api` is not installed.
 *
 * @example
 * import { trace } from "@opentelemetry/api";
 * const stop = traceCoordinator(coordinator, { tracer: trace.getTracer("my-agent") });
 * await coordinator.run(calls, { turn });
 * stop();
 */
export function traceCoordinator(
  coordinator: EventEmitter<CoordinatorEvents>,
  options: TraceCoordinatorOptions = {},
): StopTracing {
  const otel = loadApi(options.tracer === undefined);
  const tracer = options.tracer ?? (otel as OtelApi).trace.getTracer("@jp/coordinator");
  const errorCode = otel?.SpanStatusCode.ERROR ?? STATUS_ERROR;
  // Open spans: a call id may repeat (providers send duplicates), so each id holds a list.
  const calls = new Map<string, SpanLike[]>();
  const questions = new Map<string, QuestionTrace>();
  const promptsShown = new Map<PromptRequest, number>();

  const callSpan = (id: string | undefined) =>
    id === undefined ? undefined : calls.get(id)?.at(-1);
  // The open call an inquiry belongs to: ids are `<call id>.<question id>.<attempt>`.
  const callOf = (inquiryId: string): string | undefined => {
    let found: string | undefined;
    for (const id of calls.keys()) {
      if (inquiryId.startsWith(`${id}.`) && (found === undefined || id.length > found.length))
        found = id;
    }
    return found;
  };

  const openQuestion = (inquiryId: string, callId?: string): QuestionTrace => {
    const open = questions.get(inquiryId);
    if (open !== undefined) return open;
    const owner = callId ?? callOf(inquiryId);
    const parent = callSpan(owner);
    const context =
      parent === undefined || otel === undefined
        ? undefined
        : otel.trace.setSpan(otel.context.active(), parent);
    const attributes: Record<string, SpanAttributeValue> = { "jp.inquiry.id": inquiryId };
    if (owner !== undefined) attributes["gen_ai.tool.call.id"] = owner;
    const span = tracer.startSpan(TRACE_NAMES.questionSpan, { attributes }, context);
    const trace: QuestionTrace = { span, callId: owner, routed: false };
    questions.set(inquiryId, trace);
    return trace;
  };

  const endQuestion = (inquiryId: string, trace: QuestionTrace) => {
    trace.span.end();
    questions.delete(inquiryId);
  };

  const listeners: { [K in keyof CoordinatorEvents]: CoordinatorEvents[K] } = {
    "tool-state": ({ tool_call_id, tool_name, state, is_error }) => {
      if (state === "queued") {
        const span = tracer.startSpan(`${TRACE_NAMES.toolCallSpan} ${tool_name}`, {
          attributes: {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": tool_name,
            "gen_ai.tool.call.id": tool_call_id,
          },
        });
        calls.set(tool_call_id, [...(calls.get(tool_call_id) ?? []), span]);
      }
      const span = callSpan(tool_call_id);
      if (span === undefined) return;
      span.addEvent(TRACE_NAMES.stateEvent, { "jp.tool_call.state": state });
      if (is_error === true) {
        // OpenTelemetry's convention for a failed tool call; the content itself is never copied.
        span.setAttribute("error.type", "tool_error");
        span.setStatus({ code: errorCode, message: "the tool call's response is an error" });
      }
      if (state === "completed" || state === "suspended") endCall(tool_call_id, span, state);
    },
    "inquiry-recorded": ({ event }) => {
      if (event.type === "inquiry_request") {
        openQuestion((event as InquiryRequest).id);
        return;
      }
      const response = event as InquiryResponse;
      const trace = questions.get(response.id);
      if (trace === undefined) return;
      const { span } = trace;
      span.setAttribute("jp.question.outcome", response.outcome);
      if (response.outcome === "cancelled") {
        span.setAttribute("jp.question.cancel_reason", response.reason);
        if (FAILURES.has(response.reason)) {
          span.setStatus({ code: errorCode, message: response.reason });
        }
      }
      const theirs = response.outcome !== "cancelled" || PERSONS.has(response.reason);
      if (trace.repliedMs !== undefined && theirs) {
        span.setAttribute("jp.question.answer_ms", trace.repliedMs);
      }
      if (!trace.routed && trace.shownAt !== undefined)
        span.setAttribute("jp.question.route", "human");
      endQuestion(response.id, trace);
    },
    "question-routed": (routed: QuestionRouted) => {
      const trace = openQuestion(routed.inquiry_id, routed.tool_call_id);
      trace.routed = true;
      const { span } = trace;
      span.setAttribute("gen_ai.tool.name", routed.tool_name);
      span.setAttribute("jp.question.id", routed.question_id);
      span.setAttribute("jp.question.answer_type", routed.answer_type);
      span.setAttribute("jp.question.route", routed.route);
      span.setAttribute("jp.question.detached", routed.detached);
      if (routed.reason !== undefined)
        span.setAttribute("jp.question.refusal_reason", routed.reason);
    },
    "prompt-shown": ({ request }) => {
      const now = performance.now();
      promptsShown.set(request, now);
      if (request.kind === "question") {
        const trace = openQuestion(request.inquiry_id, request.tool_call_id);
        trace.shownAt = now;
        trace.span.setAttribute("jp.question.id", request.question.id);
        trace.span.setAttribute("jp.question.answer_type", request.question.answer_type.type);
        trace.span.setAttribute("gen_ai.tool.name", request.tool_name);
      } else {
        callSpan(request.tool_call_id)?.addEvent(TRACE_NAMES.promptShownEvent, {
          "jp.prompt.kind": request.kind,
        });
      }
    },
    "prompt-answered": ({ request, outcome }) => {
      const shownAt = promptsShown.get(request);
      promptsShown.delete(request);
      const ms = shownAt === undefined ? undefined : Math.round(performance.now() - shownAt);
      if (request.kind === "question") {
        const trace = questions.get(request.inquiry_id);
        if (trace === undefined || ms === undefined) return;
        trace.span.setAttribute("jp.question.shown_ms", ms);
        // Whether the person ended it (a cancel of theirs included) the recorded reason says.
        if (outcome !== "failed") trace.repliedMs = ms;
        return;
      }
      const attributes: Record<string, SpanAttributeValue> = {
        "jp.prompt.kind": request.kind,
        "jp.prompt.outcome": outcome,
      };
      if (ms !== undefined) {
        attributes["jp.prompt.shown_ms"] = ms;
        if (personReplied(outcome)) attributes["jp.prompt.answer_ms"] = ms;
      }
      callSpan(request.tool_call_id)?.addEvent(TRACE_NAMES.promptAnsweredEvent, attributes);
    },
    "prompt-refused": (refusal: PromptRefusal) => {
      if (refusal.kind === "question") return; // on the question's own span, as its route
      callSpan(refusal.tool_call_id)?.addEvent(TRACE_NAMES.promptRefusedEvent, {
        "jp.prompt.kind": refusal.kind,
        "jp.prompt.refusal_reason": refusal.reason,
      });
    },
  };

  function endCall(id: string, span: SpanLike, state: ToolCallState | "stopped") {
    // A question still open when its call ends was left pending (the call suspends).
    for (const [inquiryId, trace] of questions) {
      if (trace.callId !== id) continue;
      trace.span.setAttribute("jp.question.outcome", state === "suspended" ? "pending" : "open");
      if (state === "stopped") trace.span.setAttribute("jp.trace.stopped", true);
      endQuestion(inquiryId, trace);
    }
    if (state === "stopped") span.setAttribute("jp.trace.stopped", true);
    else span.setAttribute("jp.tool_call.final_state", state);
    span.end();
    const open = calls.get(id) ?? [];
    open.splice(open.lastIndexOf(span), 1);
    if (open.length === 0) calls.delete(id);
  }

  for (const [name, listener] of Object.entries(listeners)) {
    coordinator.on(name as keyof CoordinatorEvents, listener as never);
  }
  let stopped = false;
  return () => {
    if (stopped) return;
    stopped = true;
    for (const [name, listener] of Object.entries(listeners)) {
      coordinator.off(name as keyof CoordinatorEvents, listener as never);
    }
    for (const [id, open] of [...calls]) {
      for (const span of [...open].reverse()) endCall(id, span, "stopped");
    }
    for (const [inquiryId, trace] of [...questions]) {
      trace.span.setAttribute("jp.trace.stopped", true);
      endQuestion(inquiryId, trace);
    }
    promptsShown.clear();
  };
}

// A reply the person gave (a decision, an edit) has an answer time; a prompt that ended without
// one (a deadline, a shutdown, End Turn elsewhere, a failure, or a cancel) has none.
const NOT_REPLIED: ReadonlySet<PromptOutcome> = new Set<PromptOutcome>([
  "failed",
  "cancelled",
  "timeout",
  "interrupted",
  "turn_ended",
]);

function personReplied(outcome: PromptOutcome): boolean {
  return !NOT_REPLIED.has(outcome);
}
