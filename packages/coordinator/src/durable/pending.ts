import { hostname } from "node:os";
import {
  type ConversationStream,
  type InquirySource,
  type JsonValue,
  MAX_EVENT_VALUE_DEPTH,
  nestedTooDeeply,
  type StreamEvent,
} from "@jp/conversation";
import { validateAnswer } from "@jp/tool";
import { err, ok, type Result } from "neverthrow";
import type { FormProgress } from "../backends/executor.js";
import type { PromptRequest } from "../backends/prompt-backend.js";
import {
  markerJson,
  PENDING_METADATA_KEY,
  type PendingMarker,
  readMarker,
  type StoredReply,
} from "./marker.js";

/**
 * A prompt a suspended turn waits on: what to show the person, and where it stands. Listed by
 * {@link listPendingPrompts} from the conversation alone, without running anything.
 */
export interface PendingPrompt {
  /**
   * What {@link answerPendingPrompt} takes: the inquiry id for a question, else
   * `<tool_call_id>#<kind>`, or for a sub-agent's prompt escalated through the call
   * `<tool_call_id>#<kind>/<agent>/<sub-agent's call id>/<attempt>`.
   */
  readonly prompt_id: string;
  readonly kind: PromptRequest["kind"];
  readonly tool_call_id: string;
  readonly tool_name: string;
  /** A question's recorded inquiry id (`<tool_call_id>.<question_id>.<attempt>`). */
  readonly inquiry_id?: string;
  /** The prompt as the person should see it: the question, its controls, progress, pre-fill. */
  readonly request: PromptRequest;
  /** A question's recorded source (the tool, the assistant, a sub-agent). */
  readonly source?: InquirySource;
  /**
   * The sub-agent that asks, when the prompt is one a sub-agent escalated through the call (for a
   * question, also its `source`).
   */
  readonly agent?: string;
  /** A question's position in its form. */
  readonly progress?: FormProgress;
  /** When the turn was suspended at this prompt (ISO 8601). */
  readonly suspended_at: string;
  /** When the prompt expires (ISO 8601), if it does. */
  readonly deadline?: string;
  /** Whether the deadline has passed (at the time of listing). */
  readonly expired: boolean;
  /** Whether a reply is already given, to be applied when the turn resumes. */
  readonly answered: boolean;
}

/** Why a reply to a pending prompt was not taken. Nothing is recorded for any of them. */
export type AnswerPendingError =
  /** A worker is resuming the turn right now: try again shortly (after `until` at the latest). */
  | {
      readonly kind: "claimed";
      readonly promptId: string;
      readonly message: string;
      readonly until: string;
    }
  | { readonly kind: "unknown_prompt"; readonly promptId: string; readonly message: string }
  | { readonly kind: "already_answered"; readonly promptId: string; readonly message: string }
  | { readonly kind: "invalid_reply"; readonly promptId: string; readonly message: string }
  /** A secret's answer is never stored: give it to `resume({ answers })` or at a live prompt. */
  | { readonly kind: "secret_not_stored"; readonly promptId: string; readonly message: string };

/** A suspended prompt found in a stream: its marker and the index of the entry holding it. */
export interface FoundMarker {
  readonly index: number;
  readonly event: StreamEvent;
  readonly marker: PendingMarker;
}

/**
 * The suspended prompts of the stream's last turn, in the order they were left pending. Scans
 * the last turn only, from the end, so the cost does not grow with the conversation's length.
 */
export function findMarkers(stream: ConversationStream): FoundMarker[] {
  const { events } = stream;
  const found: FoundMarker[] = [];
  // Walking back, responses come before their requests: a marked call that a reader which does
  // not know markers (JP, an older version) has since closed is not pending any more.
  const answered = new Map<string, number>();
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i] as StreamEvent;
    if (event.type === "turn_start") break;
    if (event.type === "tool_call_response") {
      const id = String(event.id);
      answered.set(id, (answered.get(id) ?? 0) + 1);
      continue;
    }
    if (event.type !== "tool_call_request") continue;
    const id = String(event.id);
    const closed = answered.get(id) ?? 0;
    if (closed > 0) {
      answered.set(id, closed - 1);
      continue;
    }
    const marker = readMarker(event);
    if (marker !== undefined) found.push({ index: i, event, marker });
  }
  // In the order the prompts were left pending, which is the order a person would see them.
  return found.reverse().sort((a, b) => (a.marker.seq ?? 0) - (b.marker.seq ?? 0));
}

/**
 * The marked requests of a stream's last turn, by prompt id. Kept per events array (a stream's
 * own, which `sanitize` replaces), so answering prompt after prompt of one turn does not read the
 * turn again each time: events appended since are read on the next look-up, and a marker found
 * where the index says is read as it is now (a claim or a reply written since is seen). Markers
 * are the coordinator's own metadata: where it writes one elsewhere, it drops the index
 * ({@link markersRewritten}).
 */
interface MarkerIndex {
  /** The index of the last turn's `turn_start`, or -1 when there is none. */
  readonly start: number;
  /** How many events have been read. */
  read: number;
  /** For each prompt id, the last request of the turn whose marker had it. */
  readonly byPrompt: Map<string, number>;
  /** For each tool call id, the indices of its responses in the turn, in order. */
  readonly responses: Map<string, number[]>;
}

const markerIndexes = new WeakMap<readonly StreamEvent[], MarkerIndex>();

/**
 * Drops what {@link answerPendingPrompt} knows of the stream's markers: for a writer of markers
 * that may put one where none was, or move one.
 */
export function markersRewritten(stream: ConversationStream): void {
  markerIndexes.delete(stream.events);
}

/** The marker of one prompt, found without reading the others. */
function findMarker(stream: ConversationStream, promptId: string): FoundMarker | undefined {
  const { events } = stream;
  let index = markerIndexes.get(events);
  let fresh = false;
  if (index === undefined || !caughtUp(index, events)) {
    index = readMarkerIndex(events);
    fresh = true;
  }
  let at = index.byPrompt.get(promptId);
  // None, or no longer there: read the turn again, once.
  if (!fresh && (at === undefined || markedPrompt(events[at] as StreamEvent) !== promptId)) {
    index = readMarkerIndex(events);
    at = index.byPrompt.get(promptId);
  }
  if (at === undefined) return undefined;
  const event = events[at] as StreamEvent;
  const id = String((event as { id?: unknown }).id);
  // A closed call keeps a stale marker if a reader that does not know markers repaired it.
  if (!openAfter(events, at, index.responses.get(id))) return undefined;
  const marker = readMarker(event);
  return marker === undefined ? undefined : { index: at, event, marker };
}

// The prompt id a request's marker names, if it names one.
function markedPrompt(event: StreamEvent): string | undefined {
  const metadata = (event as { metadata?: Record<string, unknown> }).metadata;
  const raw = metadata?.[PENDING_METADATA_KEY] as { prompt_id?: unknown } | undefined;
  if (raw === undefined || raw === null || typeof raw.prompt_id !== "string") return undefined;
  return raw.prompt_id;
}

// Reads the last turn of `events` into a new index, kept for the next look-up.
function readMarkerIndex(events: readonly StreamEvent[]): MarkerIndex {
  let start = events.length - 1;
  while (start >= 0 && (events[start] as StreamEvent).type !== "turn_start") start--;
  const index: MarkerIndex = { start, read: start + 1, byPrompt: new Map(), responses: new Map() };
  caughtUp(index, events);
  markerIndexes.set(events, index);
  return index;
}

// Reads the events appended since the index was read; false when a new turn started among them
// or the events are fewer than were read (the index is then read anew).
function caughtUp(index: MarkerIndex, events: readonly StreamEvent[]): boolean {
  if (events.length < index.read) return false;
  for (let i = index.read; i < events.length; i++) {
    const event = events[i] as StreamEvent;
    if (event.type === "turn_start") return false;
    if (event.type === "tool_call_response") {
      const id = String(event.id);
      const responses = index.responses.get(id);
      if (responses === undefined) index.responses.set(id, [i]);
      else responses.push(i);
    } else if (event.type === "tool_call_request") {
      const promptId = markedPrompt(event);
      if (promptId !== undefined) index.byPrompt.set(promptId, i);
    }
    index.read = i + 1;
  }
  return true;
}

// Whether the request at `at` is still open, counting the requests and responses with its id
// after it (`responses`: the indices of its id's responses in the turn, in order).
function openAfter(
  events: readonly StreamEvent[],
  at: number,
  responses: readonly number[] | undefined,
): boolean {
  let closing = 0;
  if (responses !== undefined) for (const j of responses) if (j > at) closing++;
  // With no response after it, a request is open however many others share its id.
  if (closing === 0) return true;
  const id = String((events[at] as { id?: unknown }).id);
  let open = 1 - closing;
  for (let j = at + 1; j < events.length; j++) {
    const later = events[j] as StreamEvent;
    if (later.type === "tool_call_request" && String(later.id) === id) open++;
  }
  return open > 0;
}

/**
 * Open calls of the last turn that carry a pending-prompt marker this version cannot read (a
 * newer version's, or a damaged one): such a turn cannot be resumed here, and says so.
 */
export function unreadableMarkers(stream: ConversationStream): string[] {
  const { events } = stream;
  const ids: string[] = [];
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i] as StreamEvent;
    if (event.type === "turn_start") break;
    if (event.type !== "tool_call_request") continue;
    const metadata = (event as { metadata?: Record<string, unknown> }).metadata;
    if (metadata === undefined || !Object.hasOwn(metadata, PENDING_METADATA_KEY)) continue;
    if (readMarker(event) === undefined) ids.push(String(event.id));
  }
  return ids;
}

/** Found markers by prompt id, for {@link checkAnswerInMemory}: the first in line for each id. */
export function markersById(found: readonly FoundMarker[]): Map<string, FoundMarker> {
  const byId = new Map<string, FoundMarker>();
  for (const f of found) if (!byId.has(f.marker.prompt_id)) byId.set(f.marker.prompt_id, f);
  return byId;
}

/**
 * Checks an answer given in memory to `resume({ answers })` against the pending question it
 * names (`found`: {@link markersById}): the same checks as a live answer. A secret is welcome
 * here (this path stores nothing).
 */
export function checkAnswerInMemory(
  found: ReadonlyMap<string, FoundMarker>,
  promptId: string,
  value: JsonValue,
): Result<StoredReply, AnswerPendingError> {
  const marker = found.get(promptId)?.marker;
  if (marker === undefined) {
    return err({
      kind: "unknown_prompt",
      promptId,
      message: `resume({ answers }): no pending prompt "${promptId}" in the last turn`,
    });
  }
  const { request } = marker;
  if (request.kind !== "question") {
    return err({
      kind: "invalid_reply",
      promptId,
      message: `resume({ answers }) takes answers to questions; "${promptId}" is a ${request.kind} prompt: answer it with answerPendingPrompt`,
    });
  }
  if (marker.reply !== undefined) {
    return err({
      kind: "already_answered",
      promptId,
      message: `pending prompt "${promptId}" already has a reply`,
    });
  }
  const checked = validateAnswer(request.question.answer_type, value);
  if (checked.isErr())
    return err({ kind: "invalid_reply", promptId, message: checked.error.message });
  return ok({ type: "answer", value: checked.value });
}

/**
 * Lists what a suspended turn waits on, from the conversation alone: no tool runs, nothing is
 * recorded. An empty list means the last turn is not suspended.
 *
 * @example
 * const stream = (await store.load(id))._unsafeUnwrap().stream;
 * for (const prompt of listPendingPrompts(stream)) console.log(prompt.prompt_id, prompt.request);
 */
export function listPendingPrompts(
  stream: ConversationStream,
  now: Date = new Date(),
): PendingPrompt[] {
  return findMarkers(stream).map(({ marker }) => pendingPromptOf(marker, now));
}

/** The public view of a marker. */
export function pendingPromptOf(marker: PendingMarker, now: Date = new Date()): PendingPrompt {
  const { request } = marker;
  return {
    prompt_id: marker.prompt_id,
    kind: request.kind,
    tool_call_id: request.tool_call_id,
    tool_name: request.tool_name,
    ...(request.kind === "question" ? { inquiry_id: request.inquiry_id } : {}),
    request,
    ...(marker.source === undefined ? {} : { source: marker.source }),
    ...(marker.escalated === undefined ? {} : { agent: marker.escalated.agent }),
    ...(marker.form === undefined ? {} : { progress: marker.form }),
    suspended_at: marker.suspended_at,
    ...(marker.deadline === undefined ? {} : { deadline: marker.deadline }),
    expired: isExpired(marker, now),
    answered: marker.reply !== undefined,
  };
}

/** Whether a marker's deadline has passed with no reply given. */
export function isExpired(marker: PendingMarker, now: Date): boolean {
  if (marker.deadline === undefined || marker.reply !== undefined) return false;
  const deadline = Date.parse(marker.deadline);
  return !Number.isNaN(deadline) && deadline <= now.getTime();
}

/**
 * Answers one pending prompt of a suspended turn, from any process: the reply is checked exactly
 * as a live one would be (answer type, options, schema; only the controls the prompt offers) and
 * kept in the conversation until the turn resumes, which records it in the place a live answer
 * would have taken. Save the stream afterwards; with a store that checks for conflicts, of two
 * processes answering the same prompt exactly one saves, and the other reloads to find it
 * `already_answered`.
 *
 * A secret's answer is never written anywhere: it is refused here (`secret_not_stored`); pass it
 * to `resume({ answers })` in memory, or let the resumed turn ask for it.
 *
 * @example
 * const answered = answerPendingPrompt(stream, "call_1.confirm.1", { type: "answer", value: true });
 * if (answered.isErr()) console.error(answered.error.message);
 */
export function answerPendingPrompt(
  stream: ConversationStream,
  promptId: string,
  reply: StoredReply,
  now: Date = new Date(),
): Result<PendingPrompt, AnswerPendingError> {
  const found = findMarker(stream, promptId);
  if (found === undefined) {
    return err({
      kind: "unknown_prompt",
      promptId,
      message: `no pending prompt "${promptId}" in the last turn (it may have been answered and resumed already)`,
    });
  }
  const { marker } = found;
  const claim = activeClaim(marker, now);
  if (claim !== undefined) {
    return err({
      kind: "claimed",
      promptId,
      until: claim.until,
      message: `the turn is being resumed by ${JSON.stringify(claim.owner)}; try again after ${claim.until}`,
    });
  }
  if (marker.reply !== undefined) {
    return err({
      kind: "already_answered",
      promptId,
      message: `pending prompt "${promptId}" already has a reply; it is applied when the turn resumes`,
    });
  }
  const checked = checkPromptReply(marker.request, reply);
  if (checked.isErr()) return err({ ...checked.error, promptId });
  const next: PendingMarker = { ...marker, reply: checked.value, answered_at: now.toISOString() };
  const set = stream.setMetadata(found.index, PENDING_METADATA_KEY, markerJson(next));
  if (set.isErr()) return err({ kind: "unknown_prompt", promptId, message: set.error.message });
  return ok(pendingPromptOf(next, now));
}

/** Why {@link checkPromptReply} refused a reply. */
export interface PromptReplyError {
  /** `secret_not_stored`: an answer to a secret question, which is never kept. */
  readonly kind: "invalid_reply" | "secret_not_stored";
  readonly message: string;
}

/**
 * Checks a reply to a prompt exactly as {@link answerPendingPrompt} checks it (answer type,
 * options, schema; only the controls the prompt offers) and gives it back as it would be kept,
 * without a stream or a marker: for a store that keeps a prompt's request apart from its
 * conversation and checks replies before taking them. Foreign input (a reply that is not JSON, a
 * throwing getter) is an `invalid_reply`, never an exception; `request` is trusted (a
 * `PromptRequest` as the coordinator made it, or as `listPendingPrompts` gives it).
 *
 * @example
 * const checked = checkPromptReply(prompt.request, { type: "answer", value: true });
 * if (checked.isErr()) console.error(checked.error.kind, checked.error.message);
 */
export function checkPromptReply(
  request: PromptRequest,
  reply: StoredReply,
): Result<StoredReply, PromptReplyError> {
  try {
    return checkReply(request, reply);
  } catch (cause) {
    // Foreign input (a throwing getter, a BigInt in edited arguments) is a bad reply, not a crash.
    const detail = cause instanceof Error ? cause.message : String(cause);
    return problem(`the reply could not be read: ${detail}`);
  }
}

const problem = (message: string, secret = false): Result<never, PromptReplyError> =>
  err({ kind: secret ? "secret_not_stored" : "invalid_reply", message });

// The same checks a live prompt's reply goes through, with errors a caller can act on.
function checkReply(
  request: PromptRequest,
  reply: StoredReply,
): Result<StoredReply, PromptReplyError> {
  if (typeof reply !== "object" || reply === null || typeof reply.type !== "string") {
    return problem('a reply is an object with a "type"');
  }
  switch (request.kind) {
    case "question": {
      const { controls, question } = request;
      switch (reply.type) {
        case "answer": {
          if (question.answer_type.type === "secret") {
            return problem(
              "a secret's answer is never stored: pass it to resume({ answers }) or answer it at the resumed prompt",
              true,
            );
          }
          const value = (reply as { value?: JsonValue }).value;
          const checked = validateAnswer(question.answer_type, value);
          if (checked.isErr()) return problem(checked.error.message);
          const remember = (reply as { remember?: unknown }).remember === true && controls.remember;
          return ok({ type: "answer", value: checked.value, ...(remember ? { remember } : {}) });
        }
        case "back":
        case "reply":
        case "end_turn": {
          if (!controls[reply.type]) {
            return problem(`this prompt does not offer "${reply.type}"`);
          }
          if (reply.type !== "reply") return ok({ type: reply.type });
          const message = (reply as { message?: unknown }).message;
          if (message !== undefined && typeof message !== "string") {
            return problem('"message" must be a string');
          }
          return ok(message === undefined ? { type: "reply" } : { type: "reply", message });
        }
        case "cancelled":
          return ok({ type: "cancelled" });
        default:
          return problem(
            `a question takes "answer", "back", "reply", "end_turn" or "cancelled", not "${reply.type}"`,
          );
      }
    }
    case "permission":
      switch (reply.type) {
        case "run":
        case "skip": {
          const remember = (reply as { remember?: unknown }).remember === true;
          const reason = (reply as { reason?: unknown }).reason;
          if (reason !== undefined && typeof reason !== "string") {
            return problem('"reason" must be a string');
          }
          return ok({
            type: reply.type,
            ...(remember ? { remember } : {}),
            ...(reply.type === "skip" && reason !== undefined ? { reason } : {}),
          } as StoredReply);
        }
        case "edit": {
          const args = (reply as { arguments?: unknown }).arguments;
          if (typeof args !== "object" || args === null || Array.isArray(args)) {
            return problem('"arguments" must be a JSON object');
          }
          if (nestedTooDeeply(args)) {
            return problem(
              `"arguments" must be nested at most ${MAX_EVENT_VALUE_DEPTH} levels deep (arrays and objects within one another)`,
            );
          }
          return ok({ type: "edit", arguments: JSON.parse(JSON.stringify(args)) });
        }
        case "cancelled":
          return ok({ type: "cancelled" });
        default:
          return problem(
            `a permission prompt takes "run", "skip", "edit" or "cancelled", not "${reply.type}"`,
          );
      }
    case "deliver":
      switch (reply.type) {
        case "deliver":
        case "skip":
        case "cancelled":
          return ok({ type: reply.type });
        case "edit": {
          const content = (reply as { content?: unknown }).content;
          if (typeof content !== "string") return problem('"content" must be a string');
          return ok({ type: "edit", content });
        }
        default:
          return problem(
            `a delivery prompt takes "deliver", "skip", "edit" or "cancelled", not "${reply.type}"`,
          );
      }
  }
}

/**
 * What {@link answerPendingPromptInStore} needs of a store: load a conversation by name, and save
 * it with a conflict check (a `conflict` error when another writer saved it since it was loaded).
 * `FileConversationStore` is one.
 */
export interface ConversationStoreLike<C extends { readonly stream: ConversationStream }, E> {
  load(name: string): Promise<Result<C, E>>;
  save(conversation: C): Promise<Result<unknown, E>>;
}

/** Why {@link answerPendingPromptInStore} did not answer: the reply, or the store. */
export type AnswerInStoreError<E> =
  | AnswerPendingError
  | { readonly kind: "store"; readonly error: E; readonly message: string };

/**
 * Answers one pending prompt of a stored conversation: loads it, answers, saves. When another
 * process saved first (a `conflict`), it loads again and answers again, so of two processes
 * answering one prompt exactly one answer is kept and the other gets `already_answered`.
 *
 * @example
 * const answered = await answerPendingPromptInStore(store, name, "call_1.go.1", { type: "answer", value: true });
 */
export async function answerPendingPromptInStore<
  C extends { readonly stream: ConversationStream },
  E extends { readonly kind: string; readonly message: string },
>(
  store: ConversationStoreLike<C, E>,
  name: string,
  promptId: string,
  reply: StoredReply,
  options: { readonly attempts?: number; readonly now?: Date } = {},
): Promise<Result<PendingPrompt, AnswerInStoreError<E>>> {
  const attempts = options.attempts ?? 5;
  for (let attempt = 1; ; attempt++) {
    const loaded = await store.load(name);
    if (loaded.isErr()) return err(storeError(loaded.error));
    const answered = answerPendingPrompt(loaded.value.stream, promptId, reply, options.now);
    if (answered.isErr()) return err(answered.error);
    const saved = await store.save(loaded.value);
    if (saved.isOk()) return ok(answered.value);
    if (saved.error.kind !== "conflict" || attempt >= attempts) return err(storeError(saved.error));
  }
}

function storeError<E extends { readonly message: string }>(
  error: E,
): { readonly kind: "store"; readonly error: E; readonly message: string } {
  return { kind: "store", error, message: error.message };
}

/** A marker's claim, if it is still in force at `now`. */
export function activeClaim(
  marker: PendingMarker,
  now: Date,
): { readonly owner: string; readonly until: string } | undefined {
  const { claim } = marker;
  if (claim === undefined) return undefined;
  const until = Date.parse(claim.until);
  return Number.isNaN(until) || until <= now.getTime() ? undefined : claim;
}

/** Why {@link resumeInStore} did not resume. */
export type ResumeInStoreError<E> =
  | {
      readonly kind: "claimed";
      readonly owner: string;
      readonly until: string;
      readonly message: string;
    }
  | { readonly kind: "store"; readonly error: E; readonly message: string };

/** Options of {@link resumeInStore}. */
export interface ResumeInStoreOptions {
  /** Who is resuming, for the claim (default: host name and pid). */
  readonly owner?: string;
  /**
   * How long the claim holds if this process dies while resuming; then another worker may take
   * the turn over. Default 5 minutes; make it longer than the tools take.
   */
  readonly leaseMs?: number;
  readonly now?: Date;
}

/**
 * Resumes a suspended turn of a stored conversation so that it runs at most once at a time,
 * whichever workers try: the turn is first claimed (saved with the store's conflict check: of two
 * workers, one gets `claimed`), then resumed, then saved. A worker that dies while resuming holds
 * the claim until its lease runs out; then another takes over. Answers wait (`claimed`) while a
 * claim holds, so none is lost under a resume.
 *
 * @example
 * const done = await resumeInStore(store, name, (c) =>
 *   new ToolCoordinator({ stream: c.stream, tools, executors }).resume(),
 * );
 */
export async function resumeInStore<
  C extends { readonly stream: ConversationStream },
  E extends { readonly kind: string; readonly message: string },
  R,
>(
  store: ConversationStoreLike<C, E>,
  name: string,
  resume: (conversation: C) => Promise<R>,
  options: ResumeInStoreOptions = {},
): Promise<Result<R, ResumeInStoreError<E>>> {
  const now = options.now ?? new Date();
  const owner = options.owner ?? `${hostname()}:${process.pid}`;
  const until = new Date(now.getTime() + (options.leaseMs ?? 5 * 60_000)).toISOString();
  const loaded = await store.load(name);
  if (loaded.isErr()) return err(storeError(loaded.error));
  const conversation = loaded.value;
  for (const { index, marker } of findMarkers(conversation.stream)) {
    const held = activeClaim(marker, now);
    if (held !== undefined && held.owner !== owner) {
      return err({
        kind: "claimed",
        owner: held.owner,
        until: held.until,
        message: `the turn is being resumed by ${JSON.stringify(held.owner)} until ${held.until}`,
      });
    }
    const claimed: PendingMarker = { ...marker, claim: { owner, until } };
    conversation.stream.setMetadata(index, PENDING_METADATA_KEY, markerJson(claimed));
  }
  const claimedSave = await store.save(conversation);
  if (claimedSave.isErr()) {
    if (claimedSave.error.kind === "conflict") {
      return err({
        kind: "claimed",
        owner: "another process",
        until,
        message:
          "another process changed the conversation first (a resume or an answer): load it again",
      });
    }
    return err(storeError(claimedSave.error));
  }
  const result = await resume(conversation);
  const saved = await store.save(conversation);
  if (saved.isErr()) return err(storeError(saved.error));
  return ok(result);
}
