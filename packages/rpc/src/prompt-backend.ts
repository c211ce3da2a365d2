import {
  type AskOptions,
  HumanUnreachableError,
  type PromptBackend,
  type PromptRequest,
  PromptTimedOutError,
  PromptUnsupportedError,
  type ReplyFor,
} from "@jp/coordinator";
import { err, ok, type Result } from "neverthrow";
import type { ConnectionOptions, RpcCloseReason } from "./connection.js";
import { JSON_RPC_ERROR_CODES, RpcError } from "./errors.js";
import { defineMethod } from "./internal/methods.js";
import { checkCount, checkTimeout } from "./internal/options.js";
import { type ResponseOutcome, RpcPeer } from "./internal/peer.js";
import {
  askUserResultSchema,
  type ClientCapabilities,
  describeIssues,
  type InitializeParams,
  type InitializeResult,
  initializeParamsSchema,
  PROTOCOL_VERSION,
  type PromptReply,
  REPLY_SCHEMAS,
  RPC_METHODS,
} from "./protocol.js";
import { planAskUser, type SimpleDialect } from "./simple-prompts.js";

/** How long a new backend waits for a client's `initialize` before no human counts as reachable. */
export const DEFAULT_HANDSHAKE_TIMEOUT_MS = 2000;

/**
 * Which protocol the client speaks: `jp` (the default) — the client announces itself with
 * `initialize` and gets `client/prompt` or `client/ask_user` as it asked; `opal` — Opal's
 * protocol exactly: the client never sends `initialize`, serves only `client/ask_user`
 * (`{session_id, question, choices}` → `{answer}`), and counts as connected while the streams are.
 */
export type RpcProtocol = "jp" | "opal";

/** Options of {@link createRpcPromptBackend}. */
export interface RpcPromptBackendOptions extends ConnectionOptions {
  /** Sent with every prompt (`session_id`) and in the `initialize` result. */
  readonly sessionId: string;
  /** The protocol the client speaks (default `jp`); see {@link RpcProtocol}. */
  readonly protocol?: RpcProtocol;
  /**
   * Longest wait for one prompt's answer; then the client is sent `$/cancelRequest` and the
   * prompt rejects (`timeout`). Default: no limit — a human takes the time they take. So is
   * `Infinity`, or anything past what a timer holds (2^31 - 1 ms, about 24.8 days). It must be
   * more than 0: `NaN`, `0` or a negative number throws at creation.
   */
  readonly timeoutMs?: number;
  /**
   * How long after creation a client may take to send `initialize` before a human counts as
   * unreachable (default {@link DEFAULT_HANDSHAKE_TIMEOUT_MS}). A later `initialize` still
   * connects it. `Infinity` (or past 2^31 - 1 ms) waits for as long as the connection is open.
   * It must be more than 0: `NaN`, `0` or a negative number throws at creation.
   * Unused with `protocol: "opal"`, where nothing is awaited.
   */
  readonly handshakeTimeoutMs?: number;
  /** Returned to the client as `server_info` (default `{ name: "@jp/rpc" }`). */
  readonly serverInfo?: InitializeResult["server_info"];
}

/**
 * Where the backend stands: waiting for a client's `initialize` (start-up), `no_client` (the
 * handshake deadline passed; a late client still connects), `ready`, or `closed` for good.
 */
export type RpcBackendState = "waiting_for_client" | "no_client" | "ready" | "closed";

/** A {@link PromptBackend} that asks a UI client over JSON-RPC, with its connection's controls. */
export interface RpcPromptBackend extends PromptBackend {
  /** Shows one prompt in the client and resolves with the person's reply. */
  ask<R extends PromptRequest>(request: R, options: AskOptions): Promise<ReplyFor<R>>;
  /** The connection's state now. */
  readonly state: RpcBackendState;
  /** What the client announced in `initialize`, once it has (never, for an Opal client). */
  readonly client: InitializeParams | undefined;
  /** Resolves when the connection closes, with why. */
  readonly closed: Promise<RpcCloseReason>;
  /**
   * Resolves `true` once a client is ready; `false` on close, timeout or abort. A `timeoutMs`
   * that is not more than 0 (`NaN`, `0`, a negative number) rejects with a `RangeError`.
   */
  waitForClient(options?: {
    readonly timeoutMs?: number;
    readonly signal?: AbortSignal;
  }): Promise<boolean>;
  /**
   * Sends `$/cancelRequest` for open prompts, rejects them with `HumanUnreachableError`, and
   * stops listening: the rest of the input is read and discarded (so a client still writing can
   * finish and exit) without keeping the process alive.
   */
  close(): void;
}

type State =
  | { readonly type: "waiting_for_client" }
  | { readonly type: "no_client" }
  | {
      readonly type: "ready";
      readonly capabilities: ClientCapabilities;
      /** Absent for an Opal client, which never announces itself. */
      readonly client?: InitializeParams;
    }
  | { readonly type: "closed"; readonly reason: RpcCloseReason };

/** One prompt as one request: the method, its params, and how its result becomes a reply. */
interface Plan {
  readonly method: string;
  readonly params: Readonly<Record<string, unknown>>;
  readonly decode: (result: unknown) => Result<PromptReply, string>;
}

const CANCELLED: PromptReply = { type: "cancelled" };

/**
 * The agent side: a {@link PromptBackend} that shows prompts to a UI client on the other end of
 * two streams (newline-delimited JSON-RPC 2.0). The client connects by sending `initialize`;
 * a `rich` client gets `client/prompt`, a `simple` one Opal's `client/ask_user`. A client that
 * speaks Opal's protocol exactly (no `initialize`) is served with `protocol: "opal"`.
 *
 * A prompt rejects with `HumanUnreachableError` once the client is gone (or never came), and
 * with `PromptUnsupportedError` when the client cannot show it; a dismissal resolves cancelled.
 *
 * @example
 * const child = spawn("my-ui", { stdio: ["pipe", "pipe", "inherit"] });
 * const prompts = createRpcPromptBackend({ input: child.stdout, output: child.stdin, sessionId });
 * const coordinator = new ToolCoordinator({ stream, tools, executors, prompts });
 */
export function createRpcPromptBackend(options: RpcPromptBackendOptions): RpcPromptBackend {
  return new RpcPromptBackendImpl(options);
}

const CREATE = "createRpcPromptBackend";

class RpcPromptBackendImpl implements RpcPromptBackend {
  #state: State = { type: "waiting_for_client" };
  readonly #changed = new Set<() => void>();
  readonly #peer: RpcPeer;
  readonly #sessionId: string;
  readonly #timeoutMs: number | undefined;
  readonly #serverInfo: InitializeResult["server_info"];
  readonly #dialect: SimpleDialect;
  readonly #handshake: ReturnType<typeof setTimeout> | undefined;

  constructor(options: RpcPromptBackendOptions) {
    // Before the handshake timer starts: a bad option leaves nothing running.
    checkCount(CREATE, "maxLineBytes", options.maxLineBytes, "bytes");
    checkTimeout(CREATE, "timeoutMs", options.timeoutMs);
    checkTimeout(CREATE, "handshakeTimeoutMs", options.handshakeTimeoutMs);
    this.#sessionId = options.sessionId;
    this.#timeoutMs = deadline(options.timeoutMs);
    this.#serverInfo = options.serverInfo ?? { name: "@jp/rpc" };
    const opal = options.protocol === "opal";
    this.#dialect = opal ? "opal" : "jp";
    if (opal) {
      // An Opal client never says hello: it is there as long as the connection is.
      this.#state = { type: "ready", capabilities: { prompts: "simple" } };
    } else {
      const handshakeMs = deadline(options.handshakeTimeoutMs ?? DEFAULT_HANDSHAKE_TIMEOUT_MS);
      if (handshakeMs !== undefined) {
        this.#handshake = setTimeout(() => {
          if (this.#state.type === "waiting_for_client") this.#enter({ type: "no_client" });
        }, handshakeMs);
        // The deadline alone must not keep the agent process alive.
        this.#handshake.unref();
      }
    }
    this.#peer = new RpcPeer({
      ...options,
      methods: {
        [RPC_METHODS.initialize]: defineMethod(initializeParamsSchema, (params, context) =>
          this.#initialize(params, context.afterReply),
        ),
      },
      onClose: (reason) => {
        clearTimeout(this.#handshake);
        this.#enter({ type: "closed", reason });
      },
    });
  }

  get state(): RpcBackendState {
    return this.#state.type;
  }

  get client(): InitializeParams | undefined {
    return this.#state.type === "ready" ? this.#state.client : undefined;
  }

  get closed(): Promise<RpcCloseReason> {
    return this.#peer.closed;
  }

  async isHumanReachable(): Promise<boolean> {
    await this.#until((state) => state.type !== "waiting_for_client");
    return this.#state.type === "ready";
  }

  async waitForClient(
    options: { readonly timeoutMs?: number; readonly signal?: AbortSignal } = {},
  ): Promise<boolean> {
    checkTimeout("waitForClient", "timeoutMs", options.timeoutMs);
    const signals = [options.signal, timeoutSignal(options.timeoutMs)].filter(
      (signal): signal is AbortSignal => signal !== undefined,
    );
    const signal = signals.length === 0 ? undefined : AbortSignal.any(signals);
    await this.#until((state) => state.type === "ready" || state.type === "closed", signal);
    return this.#state.type === "ready";
  }

  async ask<R extends PromptRequest>(request: R, options: AskOptions): Promise<ReplyFor<R>> {
    return (await this.#ask(request, options.signal)) as ReplyFor<R>;
  }

  close(): void {
    clearTimeout(this.#handshake);
    this.#peer.close();
  }

  async #ask(request: PromptRequest, signal: AbortSignal): Promise<PromptReply> {
    await this.#until((state) => state.type !== "waiting_for_client", signal);
    if (signal.aborted) return CANCELLED;
    const state = this.#state;
    switch (state.type) {
      case "closed":
        throw disconnected(state.reason);
      case "no_client":
      case "waiting_for_client": {
        const message = "no client has connected (none sent initialize in time)";
        throw new HumanUnreachableError(message, { cause: new RpcError("no_client", message) });
      }
      case "ready": {
        const plan = this.#plan(request, state.capabilities);
        if (plan.isErr()) throw plan.error;
        return this.#exchange(request, plan.value, signal);
      }
    }
  }

  #plan(
    request: PromptRequest,
    capabilities: ClientCapabilities,
  ): Result<Plan, PromptUnsupportedError> {
    const session_id = this.#sessionId;
    if (capabilities.prompts === "rich") {
      const schema = REPLY_SCHEMAS[request.kind];
      return ok({
        method: RPC_METHODS.prompt,
        params: { session_id, prompt: request },
        decode: (result) => {
          const parsed = schema.safeParse(result);
          return parsed.success ? ok(parsed.data) : err(describeIssues(parsed.error));
        },
      });
    }
    const planned = planAskUser(request, this.#dialect);
    if (planned.isErr()) {
      // The message reaches the model as it is: it says what this person can answer.
      const detail = `the client only answers client/ask_user and cannot show this ${request.kind} prompt`;
      const cause = new RpcError("unsupported_prompt", `${detail}: ${planned.error}`);
      return err(new PromptUnsupportedError(planned.error, { cause }));
    }
    const { question, choices, decode } = planned.value;
    return ok({
      method: RPC_METHODS.askUser,
      params: { session_id, question, ...(choices === undefined ? {} : { choices }) },
      decode: (result) => {
        const parsed = askUserResultSchema.safeParse(result);
        return parsed.success ? decode(parsed.data.answer) : err(describeIssues(parsed.error));
      },
    });
  }

  async #exchange(request: PromptRequest, plan: Plan, signal: AbortSignal): Promise<PromptReply> {
    const { id, response } = this.#peer.request(plan.method, plan.params);
    let timedOut = false;
    const cancel = () => this.#peer.cancel(id);
    signal.addEventListener("abort", cancel, { once: true });
    const timer =
      this.#timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            timedOut = true;
            cancel();
          }, this.#timeoutMs);
    let outcome: ResponseOutcome;
    try {
      outcome = await response;
    } finally {
      signal.removeEventListener("abort", cancel);
      clearTimeout(timer);
    }
    return this.#replyOf(request, plan, outcome, timedOut);
  }

  #replyOf(
    request: PromptRequest,
    plan: Plan,
    outcome: ResponseOutcome,
    timedOut: boolean,
  ): PromptReply {
    const what = `the ${request.kind} prompt of tool ${request.tool_name}`;
    switch (outcome.type) {
      case "result": {
        const reply = plan.decode(outcome.result);
        if (reply.isOk()) return reply.value;
        throw new RpcError(
          "invalid_reply",
          `the client's result for ${plan.method} (${what}) is not a valid reply: ${reply.error}`,
        );
      }
      case "error": {
        const { code, message, data } = outcome.error;
        // The client's way of saying "the user dismissed it" without a typed reply.
        if (code === JSON_RPC_ERROR_CODES.request_cancelled) return CANCELLED;
        throw new RpcError("remote", `the client failed ${what}: ${message}`, { code, data });
      }
      case "malformed":
        throw new RpcError(
          "invalid_reply",
          `the client answered ${what} with an invalid response: ${outcome.reason}`,
        );
      case "cancelled":
        if (!timedOut) return CANCELLED;
        {
          // The coordinator records a `timeout`, never the person's decline or a broken backend.
          const message = `the client did not answer ${what} within ${this.#timeoutMs} ms`;
          throw new PromptTimedOutError(message, {
            ...(this.#timeoutMs === undefined ? {} : { ms: this.#timeoutMs }),
            cause: new RpcError("timeout", message),
          });
        }
      case "closed":
        // The UI went away: nobody is there to answer, which is not the person's decision.
        throw disconnected(outcome.reason);
    }
  }

  #initialize(
    params: InitializeParams,
    afterReply: (callback: () => void) => void,
  ): InitializeResult {
    if (params.protocol_version !== PROTOCOL_VERSION) {
      throw new RpcError(
        "protocol",
        `unsupported protocol_version ${params.protocol_version}; this server speaks ${PROTOCOL_VERSION}`,
        { code: JSON_RPC_ERROR_CODES.invalid_params },
      );
    }
    clearTimeout(this.#handshake);
    // Ready only once the answer is written, so that no prompt reaches the client before it.
    // A client may announce itself again (e.g. after a UI reload); the newest announcement wins.
    afterReply(() =>
      this.#enter({ type: "ready", capabilities: params.capabilities, client: params }),
    );
    return {
      protocol_version: PROTOCOL_VERSION,
      session_id: this.#sessionId,
      server_info: this.#serverInfo,
    };
  }

  #enter(state: State): void {
    if (this.#state.type === "closed") return;
    this.#state = state;
    for (const listener of [...this.#changed]) listener();
  }

  /** Resolves once `done(state)` holds, or when `signal` aborts. */
  #until(done: (state: State) => boolean, signal?: AbortSignal): Promise<void> {
    if (done(this.#state) || signal?.aborted === true) return Promise.resolve();
    return new Promise((resolve) => {
      const finish = () => {
        this.#changed.delete(check);
        signal?.removeEventListener("abort", finish);
        resolve();
      };
      const check = () => {
        if (done(this.#state)) finish();
      };
      this.#changed.add(check);
      signal?.addEventListener("abort", finish, { once: true });
    });
  }
}

/** The rejection of a prompt whose connection is gone: the person cannot be reached. */
function disconnected(reason: RpcCloseReason): HumanUnreachableError {
  const message =
    reason.kind === "closed"
      ? "the connection to their client was closed"
      : `their client disconnected: ${reason.message}`;
  return new HumanUnreachableError(message, {
    cause: new RpcError("disconnected", `no client is connected: ${reason.message}`),
  });
}

function timeoutSignal(ms: number | undefined): AbortSignal | undefined {
  const limit = deadline(ms);
  return limit === undefined ? undefined : AbortSignal.timeout(limit);
}

/** The longest delay Node's timers keep: 2^31 - 1 ms, about 24.8 days. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * A delay as a timer can hold it, or `undefined` for none. Node runs a timer set past
 * {@link MAX_TIMER_MS} (`Infinity` included) after 1 ms: a prompt given "no limit" that way
 * would be recorded as timed out at once. A deadline that far off is no deadline.
 */
function deadline(ms: number | undefined): number | undefined {
  return ms !== undefined && ms <= MAX_TIMER_MS ? ms : undefined;
}
