import {
  type InquirySource,
  type JsonObject,
  type JsonValue,
  type StreamEvent,
  SUSPENDED_CALL_METADATA_KEY,
} from "@jp/conversation";
import { questionSchema } from "@jp/tool";
import type { FormProgress } from "../backends/executor.js";
import type {
  DeliverReply,
  PermissionReply,
  PromptRequest,
  QuestionReply,
} from "../backends/prompt-backend.js";
import type { WalkJson } from "../coordinator/answer-walk.js";
import type { EscalatedJson } from "../coordinator/escalation.js";
import { lazy, zod } from "../internal/lazy.js";
import type { TurnStateJson } from "../turn-state.js";

// A suspended prompt is kept in the conversation itself: in the `metadata` of its tool call's
// `tool_call_request`, under one key. JP and older versions of this SDK keep metadata they do
// not know, so they read a suspended conversation as an interrupted turn. Resuming removes the
// key, which leaves the stream exactly as a live run would have written it.

/** The `metadata` key of a `tool_call_request` that holds its call's suspended prompt. */
export const PENDING_METADATA_KEY = SUSPENDED_CALL_METADATA_KEY;

/** The version of {@link PendingMarker}'s shape. */
export const PENDING_MARKER_VERSION = 1;

// Built (and zod loaded) on first use: only a conversation with suspended prompts needs it.
const markerSchema = lazy(() => {
  const z = zod();
  const json = z.json();
  const jsonObject = z.record(z.string(), json);

  const controlsSchema = z.object({
    remember: z.boolean(),
    back: z.boolean(),
    reply: z.boolean(),
    end_turn: z.boolean(),
  });
  const progressSchema = z.object({ index: z.number().int(), total: z.number().int() });

  const questionRequestSchema = z.looseObject({
    kind: z.literal("question"),
    tool_name: z.string(),
    tool_call_id: z.string(),
    inquiry_id: z.string(),
    question: questionSchema,
    prompt_label: z.string().optional(),
    progress: progressSchema.optional(),
    controls: controlsSchema,
    initial: json.optional(),
    error: z.string().optional(),
  });
  const permissionRequestSchema = z.looseObject({
    kind: z.literal("permission"),
    tool_name: z.string(),
    tool_call_id: z.string(),
    prompt_id: z.string().optional(),
    tool_source: z.string().optional(),
    arguments: jsonObject,
    mode: z.enum(["ask", "edit"]),
  });
  const deliverRequestSchema = z.looseObject({
    kind: z.literal("deliver"),
    tool_name: z.string(),
    tool_call_id: z.string(),
    prompt_id: z.string().optional(),
    content: z.string(),
    is_error: z.boolean(),
    mode: z.enum(["ask", "edit"]),
  });

  const replySchema = z.looseObject({ type: z.string() });

  return z.looseObject({
    v: z.literal(PENDING_MARKER_VERSION),
    prompt_id: z.string(),
    seq: z.number().int().optional(),
    request: z.discriminatedUnion("kind", [
      questionRequestSchema,
      permissionRequestSchema,
      deliverRequestSchema,
    ]),
    source: z.looseObject({ source: z.string() }).optional(),
    form: progressSchema.optional(),
    arguments: jsonObject.optional(),
    walk: z
      .object({
        answers: z.array(
          z.object({
            id: z.string(),
            value: json.optional(),
            prompted: z.boolean(),
            secret: z.boolean(),
          }),
        ),
        prefill: z.array(z.tuple([z.string(), json])),
      })
      .optional(),
    asked: z.number().int().optional(),
    escalated: z
      .object({
        agent: z.string(),
        done: z.array(
          z.object({
            agent: z.string(),
            kind: z.enum(["question", "permission", "deliver"]),
            key: z.string(),
            prompt_id: z.string(),
            asked: z.string().optional(),
            reply: replySchema.optional(),
            ended: z
              .union([
                z.object({ type: z.literal("timeout"), ms: z.number().optional() }),
                z.object({ type: z.enum(["interrupted", "turn_ended"]) }),
                z.object({
                  type: z.literal("failed"),
                  error: z.string(),
                  failure: z.enum(["unreachable", "unsupported"]).optional(),
                }),
              ])
              .optional(),
          }),
        ),
      })
      .optional(),
    turn: z
      .object({
        remembered_tool_answers: jsonObject,
        remembered_permission_decisions: z.record(z.string(), z.boolean()),
        attempts: z.array(z.tuple([z.string(), z.string(), z.number().int()])),
      })
      .optional(),
    suspended_at: z.string(),
    deadline: z.string().optional(),
    reply: replySchema.optional(),
    answered_at: z.string().optional(),
    claim: z.object({ owner: z.string(), until: z.string() }).optional(),
  });
});

/** Any reply a suspended prompt can hold, by kind. */
export type StoredReply = QuestionReply | PermissionReply | DeliverReply;

/**
 * Everything a suspended tool call needs to go on, as JSON: the prompt as the person sees it,
 * where its tool call stood (answers collected so far, arguments after an edit), the turn's
 * remembered answers and attempt counters, an optional deadline, and the reply once one is given.
 */
export interface PendingMarker {
  readonly v: typeof PENDING_MARKER_VERSION;
  /** The prompt's id: see {@link promptIdFor}. */
  readonly prompt_id: string;
  /** The order the prompt was left pending in, within its run: resuming keeps it. */
  readonly seq?: number;
  readonly request: PromptRequest;
  /** A question's recorded source. */
  readonly source?: InquirySource;
  /** A question's form progress, as the tool reported it. */
  readonly form?: FormProgress;
  /** The arguments the tool runs with, when a permission edit changed them. */
  readonly arguments?: JsonObject;
  /** The call's answers so far (for a question prompt). */
  readonly walk?: WalkJson;
  /** How many questions the call had asked: its limit holds across suspensions. */
  readonly asked?: number;
  /**
   * Set when the prompt is a sub-agent's, escalated through the call: the sub-agent and the
   * replies its prompts got earlier in the same pass of the call's tool, which a resume replays.
   */
  readonly escalated?: EscalatedJson;
  /**
   * The turn's state (remembered answers, attempt counters), kept once per suspension: on the
   * first prompt in line only, so the markers do not grow with the number of pending prompts.
   */
  readonly turn?: TurnStateJson;
  /** When the prompt was suspended (ISO 8601). */
  readonly suspended_at: string;
  /** When the prompt expires (ISO 8601): then the detached policy for its kind decides. */
  readonly deadline?: string;
  /** The reply given from any process, applied when the turn resumes. */
  readonly reply?: StoredReply;
  readonly answered_at?: string;
  /**
   * A worker resuming the turn holds it until `until` (ISO 8601): no other worker resumes it and
   * no answer is taken meanwhile, so a tool never runs twice for one answer.
   */
  readonly claim?: { readonly owner: string; readonly until: string };
}

/**
 * A prompt's id: the inquiry id for a question; for a permission or delivery prompt the id it
 * carries (a sub-agent's, see {@link escalatedPromptId}), otherwise `<tool_call_id>#<kind>`.
 */
export function promptIdFor(request: PromptRequest): string {
  if (request.kind === "question") return request.inquiry_id;
  return request.prompt_id ?? `${request.tool_call_id}#${request.kind}`;
}

/**
 * What {@link escalatedPromptId} counts attempts by, within the hosting call: the prompt's kind,
 * the sub-agent and its own tool call. The attempts are kept with the questions' (see
 * `TurnState`); a question id equal to a key would share its counter, never an id.
 */
export function escalatedPromptKey(
  kind: "permission" | "deliver",
  agent: string,
  subCallId: string,
): string {
  return `#${kind}/${encodeURIComponent(agent)}/${encodeURIComponent(subCallId)}`;
}

/**
 * The id of a sub-agent's permission or delivery prompt shown through the tool call that hosts
 * it: `<host call id>#<kind>/<agent>/<sub-agent's call id>/<attempt>`, the agent's name and its
 * call id percent-encoded, the attempt counted per hosting call, kind, agent and call in the turn.
 * It never equals the hosting call's own `<host call id>#<kind>`, nor another escalated prompt's.
 */
export function escalatedPromptId(
  hostCallId: string,
  key: ReturnType<typeof escalatedPromptKey>,
  attempt: number,
): string {
  return `${hostCallId}${key}/${attempt}`;
}

/**
 * The suspended prompt held by an entry, if it holds a readable one. Never throws: an entry
 * whose marker was written by a newer version or damaged reads as holding none, so it is left
 * as an interrupted call.
 */
export function readMarker(event: StreamEvent): PendingMarker | undefined {
  if (event.type !== "tool_call_request") return undefined;
  const metadata = (event as { metadata?: JsonObject }).metadata;
  if (metadata === undefined || !Object.hasOwn(metadata, PENDING_METADATA_KEY)) return undefined;
  const parsed = markerSchema().safeParse(metadata[PENDING_METADATA_KEY]);
  return parsed.success ? (parsed.data as unknown as PendingMarker) : undefined;
}

/** A marker as the JSON value stored in metadata. */
export function markerJson(marker: PendingMarker): JsonValue {
  return JSON.parse(JSON.stringify(marker)) as JsonValue;
}
