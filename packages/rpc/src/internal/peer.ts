import { Buffer } from "node:buffer";
import type { Readable, Writable } from "node:stream";
import type { ConnectionOptions, RpcCloseReason } from "../connection.js";
import { DEFAULT_MAX_LINE_BYTES } from "../connection.js";
import { JSON_RPC_ERROR_CODES, RpcError } from "../errors.js";
import { cancelParamsSchema, describeIssues, RPC_METHODS } from "../protocol.js";
import { type LineEvent, LineSplitter } from "./line-splitter.js";
import { MemberScanner } from "./member-scanner.js";
import {
  classify,
  errorMessage,
  type Incoming,
  invalidRequestMessage,
  notificationMessage,
  type Outgoing,
  parseErrorMessage,
  type RpcErrorObject,
  type RpcId,
  requestMessage,
} from "./message.js";
import { findMethod, type MethodTable, methodNotFound, type Reply, serve } from "./methods.js";

/** How one of our requests ended. */
export type ResponseOutcome =
  | { readonly type: "result"; readonly result: unknown }
  | { readonly type: "error"; readonly error: RpcErrorObject }
  /** The peer answered with something that is not a response. */
  | { readonly type: "malformed"; readonly reason: string }
  /** We gave up on it ({@link RpcPeer.cancel}). */
  | { readonly type: "cancelled" }
  | { readonly type: "closed"; readonly reason: RpcCloseReason };

/** Options of {@link RpcPeer}. */
export interface PeerOptions extends ConnectionOptions {
  /** The methods this side serves. `$/cancelRequest` is built in. */
  readonly methods: MethodTable;
  /** Called once, synchronously, when the connection closes, before open requests settle. */
  readonly onClose?: (reason: RpcCloseReason) => void;
  /**
   * How many requests may be served at once (default: no bound). A request beyond `max` is
   * answered at once with `refusal` and its handler is not run.
   */
  readonly servingLimit?: { readonly max: number; readonly refusal: RpcErrorObject };
}

/** How many given-up request ids are remembered, to drop their late answers quietly. */
const MAX_ABANDONED = 1024;

/**
 * How many bytes of this side's messages may wait unwritten (the peer is not reading them)
 * before this side stops reading the peer's input until they are written. Without it, a peer
 * that floods requests or garbage and reads nothing would grow this side's memory without bound.
 */
export const MAX_UNSENT_BYTES = 1024 * 1024;

/**
 * The most entries one batch may hold. None of a larger batch's entries is run. Each request in
 * it that has an id gets a short `-32600` under that id, so that its sender does not wait for an
 * answer for ever; anything else in it gets nothing, and a batch holding no such request gets one
 * `-32600` (id `null`): answered entry by entry, a 1 MiB line of `[1,1,1,…]` would make this side
 * write half a million errors (about 74 MB) at once.
 */
export const MAX_BATCH_ENTRIES = 100;

/** Reads and drops input after the connection closed. */
const discard = () => {};

const describe = (cause: unknown) => (cause instanceof Error ? cause.message : String(cause));

/**
 * One end of a newline-delimited JSON-RPC 2.0 connection: frames and parses lines, answers
 * foreign input that is not JSON-RPC with the spec's errors, serves methods, correlates our
 * requests with their responses by id, and settles everything still open when it closes.
 * Nothing the peer sends can make it throw.
 */
export class RpcPeer {
  /** Resolves once, when the connection closes, with why. */
  readonly closed: Promise<RpcCloseReason>;
  readonly #input: Readable;
  readonly #output: Writable;
  readonly #methods: MethodTable;
  readonly #onProtocolError: ((error: RpcError) => void) | undefined;
  readonly #onClose: ((reason: RpcCloseReason) => void) | undefined;
  readonly #splitter: LineSplitter;
  readonly #maxLineBytes: number;
  readonly #pending = new Map<RpcId, (outcome: ResponseOutcome) => void>();
  // Responses may still arrive for requests we gave up on; they are dropped without a report.
  readonly #abandoned = new Set<RpcId>();
  // The requests being served, by id: several under one id when the peer reuses it, and `null`
  // for a request whose id is null, so that close() answers and aborts every one of them.
  readonly #serving = new Map<RpcId | null, Set<AbortController>>();
  readonly #servingLimit: PeerOptions["servingLimit"];
  // How many requests are being served now: their handlers have not settled.
  #servingCount = 0;
  #nextId = 1;
  // Reading is paused until the output drains (see MAX_UNSENT_BYTES).
  #throttled = false;
  #closeReason: RpcCloseReason | undefined;
  #resolveClosed: (reason: RpcCloseReason) => void = () => {};

  readonly #onData = (chunk: Buffer | string) => {
    for (const event of this.#splitter.push(chunk)) this.#receive(event);
  };
  readonly #onEnd = () => {
    for (const event of this.#splitter.end()) this.#receive(event);
    this.#shutdown({ kind: "input_ended", message: "the peer closed the connection" });
  };
  readonly #onInputClose = () =>
    this.#shutdown({ kind: "input_ended", message: "the input stream closed" });
  readonly #onInputError = (cause: unknown) =>
    this.#shutdown({ kind: "input_error", message: `the input stream failed: ${describe(cause)}` });
  readonly #onOutputClose = () =>
    this.#shutdown({ kind: "output_closed", message: "the output stream closed" });
  readonly #onOutputError = (cause: unknown) =>
    this.#shutdown({
      kind: "output_error",
      message: `the output stream failed: ${describe(cause)}`,
    });
  readonly #onOutputDrain = () => {
    this.#throttled = false;
    if (this.#closeReason === undefined) this.#input.resume();
  };

  constructor(options: PeerOptions) {
    this.#input = options.input;
    this.#output = options.output;
    this.#methods = options.methods;
    this.#onProtocolError = options.onProtocolError;
    this.#onClose = options.onClose;
    this.#servingLimit = options.servingLimit;
    this.#maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
    this.#splitter = new LineSplitter(this.#maxLineBytes);
    this.closed = new Promise((resolve) => {
      this.#resolveClosed = resolve;
    });
    this.#input.on("data", this.#onData);
    this.#input.on("end", this.#onEnd);
    this.#input.on("close", this.#onInputClose);
    this.#input.on("error", this.#onInputError);
    this.#output.on("close", this.#onOutputClose);
    this.#output.on("error", this.#onOutputError);
    if (this.#input.readableEnded || this.#input.destroyed) this.#onInputClose();
    else if (!this.#output.writable) this.#onOutputClose();
  }

  /** Why the connection closed, or `undefined` while it is open. */
  get closeReason(): RpcCloseReason | undefined {
    return this.#closeReason;
  }

  /** Sends a request; the promise settles with its response, or when we give up or close. */
  request(method: string, params: unknown): { id: RpcId; response: Promise<ResponseOutcome> } {
    const id = this.#nextId++;
    const closed = this.#closeReason;
    if (closed !== undefined) {
      return { id, response: Promise.resolve({ type: "closed", reason: closed }) };
    }
    const line = JSON.stringify(requestMessage(id, method, params));
    const response = new Promise<ResponseOutcome>((resolve) => this.#pending.set(id, resolve));
    this.#writeLine(line);
    return { id, response };
  }

  /** Gives up on one of our requests: it settles `cancelled` and the peer is told. */
  cancel(id: RpcId): void {
    const settle = this.#pending.get(id);
    if (settle === undefined) return;
    this.#pending.delete(id);
    this.#abandoned.add(id);
    // A peer that never answers cancelled requests must not grow this set without bound.
    if (this.#abandoned.size > MAX_ABANDONED) {
      this.#abandoned.delete(this.#abandoned.values().next().value as RpcId);
    }
    settle({ type: "cancelled" });
    this.notify(RPC_METHODS.cancelRequest, { id });
  }

  /** Sends a notification (dropped once closed). */
  notify(method: string, params: unknown): void {
    if (this.#closeReason === undefined)
      this.#writeLine(JSON.stringify(notificationMessage(method, params)));
  }

  /**
   * Closes this side: tells the peer to drop our open requests, settles them, answers what we
   * serve with an error and aborts it, and stops listening. The streams belong to the host and
   * are neither ended nor destroyed; the rest of the input is read and dropped without keeping
   * the process alive.
   */
  close(): void {
    if (this.#closeReason !== undefined) return;
    for (const id of this.#pending.keys()) this.notify(RPC_METHODS.cancelRequest, { id });
    // The streams may outlive this side: without an answer, the peer would wait for ever for the
    // requests this side was serving (a prompt on screen when a UI closes its client).
    const error = {
      code: JSON_RPC_ERROR_CODES.internal_error,
      message: "the connection was closed before the request was answered",
    };
    for (const [id, controllers] of this.#serving) {
      for (const _ of controllers) this.#send(errorMessage(id, error));
    }
    this.#shutdown({ kind: "closed", message: "the connection was closed by this side" });
  }

  #shutdown(reason: RpcCloseReason): void {
    if (this.#closeReason !== undefined) return;
    this.#closeReason = reason;
    this.#input.off("data", this.#onData);
    this.#input.off("end", this.#onEnd);
    this.#input.off("close", this.#onInputClose);
    this.#output.off("close", this.#onOutputClose);
    this.#output.off("drain", this.#onOutputDrain);
    // The error listeners stay (they do nothing now): a stream error with no listener, such as
    // EPIPE on a dead child's stdin, would crash the host process.
    this.#release();
    this.#onClose?.(reason);
    const pending = [...this.#pending.values()];
    this.#pending.clear();
    for (const settle of pending) settle({ type: "closed", reason });
    const serving = [...this.#serving.values()];
    this.#serving.clear();
    for (const controllers of serving) for (const controller of controllers) controller.abort();
    this.#resolveClosed(reason);
  }

  /**
   * Lets go of the input without pausing it. A paused pipe would leave a peer that is still
   * writing (a flood, a last burst) blocked on a full pipe: such a child never exits, and its
   * process handle keeps the host alive. So the rest of the input is read and dropped, and the
   * stream is unref'd so that it no longer keeps the event loop alive by itself.
   */
  #release(): void {
    this.#throttled = false;
    this.#input.on("data", discard);
    this.#input.resume();
    (this.#input as { unref?: () => void }).unref?.();
  }

  #report(message: string): void {
    try {
      this.#onProtocolError?.(new RpcError("protocol", message));
    } catch {
      // A failing logger must not break the connection.
    }
  }

  #writeLine(line: string): void {
    if (this.#closeReason !== undefined) return;
    if (!this.#output.writable) {
      this.#onOutputClose();
      return;
    }
    try {
      this.#output.write(`${line}\n`);
    } catch (cause) {
      this.#onOutputError(cause);
      return;
    }
    // Flow control: a peer that does not read what we write gets no more of its input read
    // until it has, so what waits in memory stays near MAX_UNSENT_BYTES.
    if (!this.#throttled && this.#output.writableLength > MAX_UNSENT_BYTES) {
      this.#throttled = true;
      this.#input.pause();
      this.#output.once("drain", this.#onOutputDrain);
    }
  }

  #send(message: Outgoing): void {
    this.#writeLine(this.#serialize(message));
  }

  /** Writes replies (as one batch array if `batch`), then runs their after-reply callbacks. */
  #reply(replies: readonly Reply[], batch: boolean): void {
    const parts = replies.map((reply) => this.#serialize(reply.message));
    this.#writeLine(batch ? `[${parts.join(",")}]` : parts.join(""));
    for (const reply of replies) for (const callback of reply.after) callback();
  }

  // Only a handler's result can fail to serialize (a cycle, a BigInt): it becomes an error.
  #serialize(message: Outgoing): string {
    try {
      return JSON.stringify(message);
    } catch (cause) {
      const id = (message.id ?? null) as RpcId | null;
      const error = {
        code: JSON_RPC_ERROR_CODES.internal_error,
        message: `the result is not JSON: ${describe(cause)}`,
      };
      return JSON.stringify(errorMessage(id, error));
    }
  }

  #receive(event: LineEvent): void {
    if (event.type === "line") this.#receiveLine(event.text);
    else if (event.type === "invalid_utf8") {
      const problem = `a line of ${event.bytes} bytes that is not valid UTF-8`;
      this.#rejectUnreadable(event.text, problem, "the response is not valid UTF-8");
    } else if (event.type === "oversize") {
      this.#report(
        `the peer sent a message longer than the maximum line length of ${this.#maxLineBytes} bytes (at least ${event.bytes} bytes); it is discarded`,
      );
    } else this.#rejectOversize(event);
  }

  // Answered once its newline arrives, with the id of the request it was when that could be read
  // as it went by (the sender's call fails instead of waiting for ever); the request of ours it
  // meant to answer, if any, fails too.
  #rejectOversize(event: Extract<LineEvent, { type: "oversize_end" }>): void {
    const limit = `the maximum line length of ${this.#maxLineBytes} bytes`;
    this.#send(
      invalidRequestMessage(
        event.request ?? null,
        `the message exceeds ${limit} (it has ${event.bytes} bytes); it was not read`,
      ),
    );
    if (event.answering !== undefined) {
      this.#settle(event.answering, { type: "malformed", reason: `the response exceeds ${limit}` });
    }
  }

  /**
   * A line that is not JSON (JSON text is UTF-8). A response in it, if its id is readable, fails
   * the request of ours it answers: read anyway, it would carry an answer nobody gave; dropped,
   * that request would wait for ever. A request in it is answered with `-32700` and its id, for
   * the same reason on the other side; anything else with `-32700` and id `null`.
   */
  #rejectUnreadable(text: string, problem: string, responseReason: string): void {
    this.#report(`the peer sent a line that is not JSON: ${problem}`);
    const { answered, requests, batch } = idsOf(text);
    for (const id of answered) this.#settle(id, { type: "malformed", reason: responseReason });
    if (!batch || requests.length === 0) {
      this.#send(parseErrorMessage(requests[0] ?? null, problem));
      return;
    }
    const parts = requests.map((id) => JSON.stringify(parseErrorMessage(id, problem)));
    this.#writeLine(`[${parts.join(",")}]`);
  }

  // A batch too large to run: none of it is run. Its requests are answered under their ids, and
  // responses in it still fail the requests of ours they answer: both would otherwise wait for
  // ever.
  #rejectBatch(entries: readonly unknown[]): void {
    const reason = `a batch of ${entries.length} entries, more than the ${MAX_BATCH_ENTRIES} one batch may hold; none of it was run (send the messages in smaller batches, or one per line)`;
    this.#report(`the peer sent ${reason}`);
    for (const id of idsOfEntries(entries).answered) {
      this.#settle(id, {
        type: "malformed",
        reason: `the response came in a batch of ${entries.length} entries, more than the ${MAX_BATCH_ENTRIES} one batch may hold`,
      });
    }
    const { requests } = idsOfEntries(entries);
    if (requests.length === 0) {
      this.#send(invalidRequestMessage(null, reason));
      return;
    }
    // Short, so that what is written stays within a few times what was read.
    const each = `not run: its batch of ${entries.length} entries is over the ${MAX_BATCH_ENTRIES} one batch may hold`;
    const parts = requests.map((id) => JSON.stringify(invalidRequestMessage(id, each)));
    this.#writeLine(`[${parts.join(",")}]`);
  }

  #receiveLine(text: string): void {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (cause) {
      // A message the peer failed to encode (a NaN, a stray quote) still names its id.
      this.#rejectUnreadable(text, jsonProblem(text, cause), "the response is not JSON");
      return;
    }
    if (!Array.isArray(value)) {
      void this.#dispatch(classify(value)).then((reply) => {
        if (reply !== undefined) this.#reply([reply], false);
      });
      return;
    }
    if (value.length === 0) {
      this.#report("the peer sent an empty batch");
      this.#send(invalidRequestMessage(null, "an empty batch"));
      return;
    }
    if (value.length > MAX_BATCH_ENTRIES) {
      this.#rejectBatch(value);
      return;
    }
    // A batch: every member starts now, in order; the replies go back as one array, and none
    // at all if the batch held only notifications and responses (JSON-RPC 2.0 §6).
    void Promise.all(value.map((item) => this.#dispatch(classify(item)))).then((replies) => {
      const present = replies.filter((reply): reply is Reply => reply !== undefined);
      if (present.length > 0) this.#reply(present, true);
    });
  }

  // Synchronous up to the handler call, so that a `$/cancelRequest` on the next line always
  // finds the request it cancels already registered.
  async #dispatch(incoming: Incoming): Promise<Reply | undefined> {
    switch (incoming.type) {
      case "invalid":
        this.#report(`the peer sent an invalid message: ${incoming.reason}`);
        if (incoming.answering !== undefined) {
          this.#settle(incoming.answering, { type: "malformed", reason: incoming.reason });
        }
        return { message: invalidRequestMessage(incoming.id, incoming.reason), after: [] };
      case "response":
        this.#receiveResponse(incoming);
        return undefined;
      case "notification":
        this.#receiveNotification(incoming.method, incoming.params);
        return undefined;
      case "request":
        return this.#serve(incoming.id, incoming.method, incoming.params);
    }
  }

  #settle(id: RpcId, outcome: ResponseOutcome): boolean {
    const settle = this.#pending.get(id);
    if (settle === undefined) return false;
    this.#pending.delete(id);
    settle(outcome);
    return true;
  }

  #receiveResponse(response: Extract<Incoming, { type: "response" }>): void {
    const { id, outcome } = response;
    if (id !== null && this.#settle(id, outcome)) return;
    if (id !== null && this.#abandoned.delete(id)) return;
    if (id === null && outcome.type === "error") {
      this.#report(`the peer reported an error: ${outcome.error.message} (${outcome.error.code})`);
      return;
    }
    this.#report(`the peer answered an unknown request id ${JSON.stringify(id)}`);
  }

  #receiveNotification(method: string, params: unknown): void {
    if (method === RPC_METHODS.cancelRequest) {
      const parsed = cancelParamsSchema.safeParse(params);
      if (parsed.success) {
        for (const controller of this.#serving.get(parsed.data.id) ?? []) controller.abort();
      } else this.#report(`invalid ${method} params: ${describeIssues(parsed.error)}`);
      return;
    }
    // JSON-RPC never answers a notification, not even an unknown one. Every served method is a
    // request: run without an id, a prompt would be shown and the person's answer would have
    // nowhere to go, so it is reported and not run.
    if (findMethod(this.#methods, method) !== undefined) {
      this.#report(`the peer sent ${method} as a notification (no "id"), so it is not served`);
    }
  }

  async #serve(id: RpcId | null, method: string, params: unknown): Promise<Reply | undefined> {
    const handler = findMethod(this.#methods, method);
    if (handler === undefined) return methodNotFound(id, method);
    // Counted synchronously, so that of requests arriving together (one batch, or lines read in
    // one chunk) exactly the first `max` are served.
    const limit = this.#servingLimit;
    if (limit !== undefined && this.#servingCount >= limit.max) {
      return { message: errorMessage(id, limit.refusal), after: [] };
    }
    const controller = new AbortController();
    const serving = this.#serving.get(id) ?? new Set<AbortController>();
    serving.add(controller);
    this.#serving.set(id, serving);
    this.#servingCount += 1;
    try {
      const reply = await serve(handler, { id, method, params }, controller.signal);
      return this.#closeReason === undefined ? reply : undefined;
    } finally {
      this.#servingCount -= 1;
      serving.delete(controller);
      if (serving.size === 0 && this.#serving.get(id) === serving) this.#serving.delete(id);
    }
  }
}

/** The ids a message that cannot be served still shows. */
interface ReadableIds {
  /** Of the responses it holds: the requests of ours they answer. */
  readonly answered: RpcId[];
  /** Of the requests it holds (also broken ones). */
  readonly requests: RpcId[];
  /** Whether it is a batch (its answer then is an array, too). */
  readonly batch: boolean;
}

/**
 * The ids a line that is not JSON holds (one message's, or a batch's). A line that does not
 * parse at all is scanned for its top-level members: the id of a response or request is still
 * readable there. A line with bad UTF-8 may parse once decoded (with U+FFFD in place of the bad
 * bytes); it is read only for its ids. A batch over {@link MAX_BATCH_ENTRIES} names no
 * requests: it gets one answer.
 */
function idsOf(text: string): ReadableIds {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    const scanner = new MemberScanner();
    scanner.push(Buffer.from(text, "utf8"));
    const answered = scanner.responseId();
    const request = scanner.requestId();
    return {
      answered: answered === undefined ? [] : [answered],
      requests: request === undefined ? [] : [request],
      batch: false,
    };
  }
  if (!Array.isArray(value)) return { ...idsOfEntries([value]), batch: false };
  const ids = idsOfEntries(value);
  return { ...ids, requests: value.length > MAX_BATCH_ENTRIES ? [] : ids.requests, batch: true };
}

function idsOfEntries(entries: readonly unknown[]): Omit<ReadableIds, "batch"> {
  const answered: RpcId[] = [];
  const requests: RpcId[] = [];
  for (const entry of entries) {
    const incoming = classify(entry);
    if (incoming.type === "response" && incoming.id !== null) answered.push(incoming.id);
    else if (incoming.type === "request" && incoming.id !== null) requests.push(incoming.id);
    else if (incoming.type === "invalid") {
      if (incoming.answering !== undefined) answered.push(incoming.answering);
      else if (incoming.id !== null) requests.push(incoming.id);
    }
  }
  return { answered, requests };
}

// What is wrong with a line that is not JSON, without quoting it: Node.js's parse errors quote
// part of the text for some mistakes, and the line may hold an answer to a secret question in a
// malformed reply, while the report goes to a host's logs. Its own descriptions that give a
// position quote nothing of the line, and are kept.
function jsonProblem(text: string, cause: unknown): string {
  const message = cause instanceof Error ? cause.message : "";
  const line = `a line of ${text.length} characters`;
  if (message === "Unexpected end of JSON input") return `${line} that ends inside its JSON value`;
  if (/^[A-Za-z ,'\-:{}[\]]+ at position \d+( \(line \d+ column \d+\))?$/.test(message)) {
    return `${line}: ${message}`;
  }
  if (text.charCodeAt(0) === 0xfeff) return `${line} that starts with a byte order mark (U+FEFF)`;
  if (/^[A-Za-z][\w-]*:\s/.test(text)) {
    return `${line} that starts like a header ("Name: value"); each message is one JSON value on one line, without headers`;
  }
  return `${line} with a character where JSON cannot have it (the line is not quoted: it may hold a secret)`;
}
