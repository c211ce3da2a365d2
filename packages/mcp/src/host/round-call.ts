import type { JsonObject } from "@jp/conversation";
import { type ExecuteInput, type ExecutorResult, runStopOf, type ToolCall } from "@jp/coordinator";
import {
  type Client,
  isInputRequiredResult,
  ProtocolError,
  ProtocolErrorCode,
} from "@modelcontextprotocol/client";
import { describeValue, isPlainObject, quoted } from "../internal/json.js";
import {
  ElicitingCall,
  hostCancel,
  openedPage,
  type PendingElicitation,
  type SessionHost,
  untilStopped,
} from "./call-session.js";
import { type ElicitResponse, planElicitation, planIds, QuestionIds } from "./elicitation.js";
import { MAX_LABEL_LENGTH } from "./form-questions.js";
import { describeFailure } from "./push-call.js";
import type { SuspendedRound } from "./suspended-call.js";
import { completedFromToolResult } from "./tool-result.js";

/**
 * The longest `requestState` a round may carry, in UTF-8 bytes, unless the connection sets
 * another: it is held while the round is asked, sent back on every retry, and written into the
 * conversation when the turn suspends.
 */
export const DEFAULT_MAX_REQUEST_STATE_BYTES = 65_536;
/**
 * The most one round's `inputRequests` may take as JSON, in UTF-8 bytes: they are kept as the
 * server sent them in the call's record when the turn suspends. A round of everyday forms takes
 * a few KiB.
 */
export const MAX_INPUT_REQUESTS_BYTES = 262_144;

/** What refusing an input request tells the connection (for the host's log). */
export type RefusalReporter = (message: string) => void;

interface Round {
  /** The round's `inputRequests` as the server sent them, and the ids taken before it. */
  readonly requests: JsonObject;
  readonly idsBefore: readonly string[];
  readonly requestState: string | undefined;
  readonly entries: readonly { readonly key: string; readonly pending: PendingElicitation }[];
  readonly responses: Map<string, ElicitResponse>;
}

/**
 * A tool call on a 2026-07-28 connection: the server answers `tools/call` with an
 * input-required result, the questions are asked, and the call is sent again with the responses
 * under the same keys and the server's `requestState` echoed byte for byte. Everything a round
 * needs is in the result, so a call resumed in a new process asks again only what the
 * recorded answers do not already cover.
 */
export class RoundCall extends ElicitingCall {
  readonly #client: Client;
  readonly #maxRounds: number;
  readonly #maxRequests: number;
  readonly #maxStateBytes: number;
  readonly #refused: RefusalReporter;
  #result: unknown;
  #round: Round | undefined;
  #legs = 0;
  #ended = false;
  // Set while the round in hand was restored from a record and not yet retried.
  #restored = false;
  // The responses the restored round already had (see SuspendedRound.responses).
  #restoredResponses: Readonly<Record<string, ElicitResponse>> | undefined;
  // Rounds in a row that asked nothing (no input request): each was sent again at once.
  #askedNothing = 0;
  // The time limit of the last request sent, for the failure's text.
  #timeoutMs = 0;

  constructor(
    host: SessionHost,
    call: ToolCall,
    remoteName: string,
    options: {
      readonly client: Client;
      readonly maxRounds: number;
      /** Input requests one round may carry; a round with more is refused. */
      readonly maxRequests: number;
      /** The longest `requestState` a round may carry, in UTF-8 bytes. */
      readonly maxRequestStateBytes: number;
      readonly refused: RefusalReporter;
      /** Question ids a person answered at a prompt, shared with the connection. */
      readonly prompted?: Set<string>;
      /** What the opening questions of the call's earlier runs asked. */
      readonly gates?: Readonly<Record<string, string>>;
      /** The round the call waited in when it was suspended, possibly by another process. */
      readonly restored?: SuspendedRound;
    },
  ) {
    super(host, call, remoteName, options.prompted, options.gates);
    this.#client = options.client;
    this.#maxRounds = options.maxRounds;
    this.#maxRequests = options.maxRequests;
    this.#maxStateBytes = options.maxRequestStateBytes;
    this.#refused = options.refused;
    const round = options.restored;
    if (round !== undefined) {
      this.#legs = round.legs;
      this.ids = new QuestionIds(round.ids, this.ids.gates());
      this.#result = {
        resultType: "input_required",
        inputRequests: round.input_requests,
        ...(round.request_state === undefined ? {} : { requestState: round.request_state }),
      };
      this.#restored = true;
      this.#restoredResponses = round.responses;
    }
  }

  async pass(input: ExecuteInput): Promise<ExecutorResult> {
    const { answers, signal } = input;
    try {
      if (this.#result === undefined) this.#result = await this.#send(undefined, signal);
      for (;;) {
        if (signal.aborted) throw signal.reason;
        if (!isInputRequiredResult(this.#result)) {
          this.#ended = true;
          return completedFromToolResult(this.#result, this.host.maxResultLength);
        }
        if (this.#round === undefined) {
          const round = this.#plan(this.#result);
          if (typeof round === "string") return this.#fail(round);
          if (this.#restored) this.#takeRestoredResponses(round);
          this.#round = round;
          this.#askedNothing = round.entries.length === 0 ? this.#askedNothing + 1 : 0;
        }
        const round = this.#round;
        // The answers to a round at the limit could never be sent: nobody is asked.
        if (this.#legs >= this.#maxRounds) {
          return this.#fail(
            `the server still asked for input after ${this.#maxRounds} rounds${this.#nothingAsked()}`,
          );
        }
        for (const { key, pending } of round.entries) {
          if (round.responses.has(key)) continue;
          const asked = this.walk(pending, answers);
          if (asked instanceof Promise) await untilStopped(asked, runStopOf(input));
          else if (asked !== undefined) return asked;
        }
        // Taken out before it is sent: a call stopped while the retry is in flight must not
        // send it again when it ends (see end()).
        this.#round = undefined;
        this.#result = await this.#retry(round, signal);
      }
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      return this.#fail(describeFailure(error, this.#timeoutMs));
    }
  }

  /**
   * Closes question `questionId` of the round this call was suspended in, restored from its
   * record (the coordinator closed it before the tool ran again): the server hears it as from a
   * live round.
   */
  closeRestored(questionId: string, reason: string): void {
    if (this.#round === undefined && isInputRequiredResult(this.#result)) {
      const round = this.#plan(this.#result);
      if (typeof round === "string") return;
      this.#takeRestoredResponses(round);
      this.#round = round;
    }
    this.closed(questionId, reason);
  }

  // What the person had already answered in the restored round goes with it, as from a live
  // one: a page opened before the suspension is not opened again when the call goes on (the
  // person agreed to open it once), and the server hears the response it was given then.
  #takeRestoredResponses(round: Round): void {
    const earlier = this.#restoredResponses ?? {};
    for (const { key } of round.entries) {
      if (Object.hasOwn(earlier, key)) round.responses.set(key, earlier[key] as ElicitResponse);
    }
  }

  // A question of the round closed without an answer (the person's cancel, a timeout, the
  // detached policy, End Turn): the call ends here, and the server is sent the round once more
  // with the honest decline or cancel, as a 2025-era server hears it in flight; requests of the
  // round nobody was asked are the host's cancel. The server's answer to it is not waited for:
  // the coordinator has recorded how the call ended.
  closed(questionId: string, reason: string): void {
    const round = this.#round;
    if (round === undefined || this.#ended) return;
    const entry = round.entries.find(
      ({ key, pending }) => !round.responses.has(key) && planIds(pending.plan).includes(questionId),
    );
    if (entry === undefined) return;
    const response = this.closingResponse(entry.pending, questionId, reason);
    if (response === undefined) return; // asked again (Back, an invalid answer)
    this.#lastRetry(round, { key: entry.key, response });
  }

  // The round sent once more, with `closing`'s response and the host's cancel for every other
  // request of the round not yet answered; its answer is not waited for.
  #lastRetry(round: Round, closing?: { key: string; response: ElicitResponse }): void {
    this.#ended = true;
    if (this.#legs >= this.#maxRounds) return;
    for (const { key } of round.entries) {
      if (round.responses.has(key)) continue;
      round.responses.set(key, key === closing?.key ? closing.response : hostCancel("interrupted"));
    }
    this.#send(round, new AbortController().signal).then(
      () => undefined,
      () => undefined,
    );
  }

  // Nothing waits on the server either: the round is all a later process needs to go on.
  suspend(): SuspendedRound | undefined {
    const round = this.#round;
    if (round === undefined || this.#ended) return undefined;
    return {
      legs: this.#legs,
      ids: round.idsBefore,
      input_requests: round.requests,
      ...(round.requestState === undefined ? {} : { request_state: round.requestState }),
      ...(round.responses.size === 0 ? {} : { responses: Object.fromEntries(round.responses) }),
    };
  }

  // The coordinator is done with the call: a round still waiting for answers (the call was
  // stopped another way, e.g. after answers that kept failing their check) is told the host's
  // cancel, as a 2025-era server is.
  end(): void {
    const round = this.#round;
    if (round !== undefined && !this.#ended) this.#lastRetry(round);
    this.#ended = true;
  }

  get finished(): boolean {
    return this.#ended;
  }

  get pageRounds(): number {
    return 0;
  }

  // The retry of a round restored from a record carries a requestState minted before a restart,
  // maybe by another server process: a server that refuses it (invalid params: a signature it
  // cannot check, an expired state) gets the call again from the start, and the recorded
  // answers answer its questions again, by question id.
  async #retry(round: Round, signal: AbortSignal): Promise<unknown> {
    if (!this.#restored) return this.#send(round, signal);
    this.#restored = false;
    try {
      return await this.#send(round, signal);
    } catch (error) {
      if (signal.aborted || !ProtocolError.isInstance(error)) throw error;
      if (error.code !== ProtocolErrorCode.InvalidParams) throw error;
      this.ids = new QuestionIds([], this.ids.gates());
      return this.#send(undefined, signal);
    }
  }

  async #send(round: Round | undefined, signal: AbortSignal): Promise<unknown> {
    this.#legs += 1;
    const params: JsonObject = { name: this.remoteName, arguments: this.call.arguments };
    if (round !== undefined && round.responses.size > 0) {
      params.inputResponses = Object.fromEntries(round.responses) as unknown as JsonObject;
    }
    if (round?.requestState !== undefined) params.requestState = round.requestState;
    // A round in which the person opened a page: the server may wait for the page to be used.
    const afterPage = round !== undefined && openedPageIn(round);
    const { serverTimeoutMs, pageTimeoutMs } = this.host;
    this.#timeoutMs = afterPage ? Math.max(pageTimeoutMs, serverTimeoutMs) : serverTimeoutMs;
    return this.#client.request(
      { method: "tools/call", params },
      { allowInputRequired: true, signal, timeout: this.#timeoutMs },
    );
  }

  // The round's input requests as elicitations to walk, or why the call cannot go on.
  #plan(result: { inputRequests?: unknown; requestState?: unknown }): Round | string {
    const requests = result.inputRequests ?? {};
    if (!isPlainObject(requests)) return "its input-required result has no valid inputRequests";
    const requestState = typeof result.requestState === "string" ? result.requestState : undefined;
    const tooLarge = this.#oversized(requests, requestState);
    if (tooLarge !== undefined) {
      this.#refused(tooLarge);
      return `its input-required result was refused: ${tooLarge}`;
    }
    const idsBefore = this.ids.list();
    const responses = new Map<string, ElicitResponse>();
    const entries: { key: string; pending: PendingElicitation }[] = [];
    for (const [key, request] of Object.entries(requests)) {
      const method = isPlainObject(request) ? request.method : undefined;
      // Refused without asking anyone: the host's log hears of it, as of a refused form.
      if (method !== "elicitation/create") {
        const message = `it asked for ${describeValue(method)} under ${quoted(key)}, which this client does not offer`;
        this.#refused(message);
        return message;
      }
      const plan = planElicitation((request as JsonObject).params, this.asker, this.ids);
      if (plan.isErr()) {
        this.#refused(plan.error.message);
        return `its input request ${quoted(key)} was refused: ${plan.error.message}`;
      }
      if (plan.value.mode === "url" && this.host.openUrl === undefined) {
        const message = `it asked to open a URL under ${quoted(key)}, which this client does not offer`;
        this.#refused(message);
        return message;
      }
      entries.push({
        key,
        pending: { plan: plan.value, respond: (response) => responses.set(key, response) },
      });
    }
    return { requests, idsBefore, requestState, entries, responses };
  }

  // What in a round is larger than this client holds, shows or records, or undefined. The
  // cheap measures go first; the requests are measured as JSON only once their count and keys
  // fit.
  #oversized(requests: JsonObject, requestState: string | undefined): string | undefined {
    if (requestState !== undefined) {
      const bytes = utf8Bytes(requestState, this.#maxStateBytes);
      if (bytes > this.#maxStateBytes) {
        return `its requestState is ${bytes} bytes long; at most ${this.#maxStateBytes} are kept`;
      }
    }
    const keys = Object.keys(requests);
    if (keys.length > this.#maxRequests) {
      return `too many input requests in one round (${keys.length}; at most ${this.#maxRequests})`;
    }
    const long = keys.find((key) => key.length > MAX_LABEL_LENGTH);
    if (long !== undefined) {
      return `an input request's key is ${long.length} characters long; at most ${MAX_LABEL_LENGTH} are kept`;
    }
    let json: string;
    try {
      json = JSON.stringify(requests);
    } catch {
      // Parsed, but deeper than this process can write back (its call stack): never kept.
      return "its inputRequests are nested too deeply to be kept";
    }
    const bytes = utf8Bytes(json, MAX_INPUT_REQUESTS_BYTES);
    if (bytes > MAX_INPUT_REQUESTS_BYTES) {
      return `its inputRequests take ${bytes} bytes as JSON; at most ${MAX_INPUT_REQUESTS_BYTES} are kept`;
    }
    return undefined;
  }

  // Why the rounds went on without a question, for the failure at the round limit: the SDK
  // reads inputRequests that are not an object as none, so such a round is sent again at once.
  #nothingAsked(): string {
    const n = this.#askedNothing;
    if (n === 0) return "";
    const which = n === 1 ? "the last of them" : `the last ${n} of them`;
    return `; ${which} had no input request this client could read (inputRequests missing, empty or not an object), so nobody was asked and the call was sent again`;
  }

  #fail(message: string): ExecutorResult {
    this.#ended = true;
    return this.failed(message);
  }
}

// The UTF-8 length of `text`, counted exactly only when it may be over `limit` (a character
// takes at most 3 bytes per UTF-16 code unit).
function utf8Bytes(text: string, limit: number): number {
  return text.length * 3 <= limit ? text.length : Buffer.byteLength(text, "utf8");
}

// Whether the person opened a page in `round`.
function openedPageIn(round: Round): boolean {
  return round.entries.some(({ key, pending }) => {
    const response = round.responses.get(key);
    return response !== undefined && openedPage(pending.plan, response);
  });
}
