import type { ConversationStream, JsonObject } from "@jp/conversation";
import type {
  ExecuteInput,
  Executor,
  ExecutorResult,
  ExecutorSource,
  ResolvedToolConfig,
  ToolCall,
  ToolCoordinator,
} from "@jp/coordinator";
import {
  Client,
  type ClientOptions,
  type ElicitResult,
  ProtocolError,
  ProtocolErrorCode,
  type Tool,
  type Transport,
} from "@modelcontextprotocol/client";
import { err, ok, type Result } from "neverthrow";
import { decisionFor } from "../decision.js";
import type { McpConnectError } from "../errors.js";
import { inertText } from "../internal/json.js";
import { checkCount, checkTimeout } from "../internal/options.js";
import type { CallSession, SessionHost } from "./call-session.js";
import { type ElicitResponse, planElicitation } from "./elicitation.js";
import { LineSlot } from "./line.js";
import { type LinePlace, MAX_ERROR_TEXT_LENGTH, PushCall } from "./push-call.js";
import { DEFAULT_MAX_REQUEST_STATE_BYTES, RoundCall } from "./round-call.js";
import {
  readSuspendedCall,
  type SuspendedMcpCall,
  suspendedRequest,
  writeSuspendedCall,
} from "./suspended-call.js";
import { checkTools, DEFAULT_MAX_TOOLS } from "./tool-list.js";
import { DEFAULT_MAX_RESULT_LENGTH } from "./tool-result.js";
import { Watchdog } from "./watchdog.js";

/** A tool an MCP server offers, as the host describes it to the model. */
export interface McpToolDefinition {
  /** The name the model calls it by (the server's name after the connection's `prefix`). */
  readonly name: string;
  readonly description: string;
  /** The JSON Schema of the arguments, as the server declared it. */
  readonly parameters: JsonObject;
}

/** An elicitation the connection refused without asking anyone (see `onRefused`). */
export interface RefusedElicitation {
  readonly server: string;
  /** The tool call it arrived in, when there was one. */
  readonly tool_call_id?: string;
  readonly message: string;
}

/** Options of {@link connectMcpServer}. */
export interface McpServerOptions {
  /** The server's name as the person sees it and the record names it; the host chooses it. */
  readonly name: string;
  /** How to reach the server, e.g. `new StdioClientTransport({ command, args })`. */
  readonly transport: Transport;
  /** How this client introduces itself. Default `{ name: "jp-inquiry", version: "0" }`. */
  readonly clientInfo?: { readonly name: string; readonly version: string };
  /**
   * Which protocol revision to speak: absent for the 2025 handshake, `{ mode: "auto" }` to
   * prefer 2026-07-28, `{ mode: { pin: "2026-07-28" } }` to require it.
   */
  readonly versionNegotiation?: ClientOptions["versionNegotiation"];
  readonly supportedProtocolVersions?: ClientOptions["supportedProtocolVersions"];
  /**
   * Opens a URL the person consented to (in their browser). Only with it does the client
   * advertise URL-mode elicitation; without it, servers may only ask with forms.
   */
  readonly openUrl?: (url: string) => Promise<void> | void;
  /** Prepended to each server tool's name to make the name the model uses. Default none. */
  readonly prefix?: string;
  /**
   * The most tools the server may list: a longer list fails the connection
   * (`list-tools-failed`), since every tool is given to the model in every request. Default 128.
   */
  readonly maxTools?: number;
  /** How long the server may work without answering or asking. Default 60 000 ms. */
  readonly serverTimeoutMs?: number;
  /**
   * How long the server may take to answer once the person opened a page it asked for (URL
   * mode): the person signs in or types a secret there meanwhile. Default 600 000 ms (10 min);
   * never less than `serverTimeoutMs`.
   */
  readonly pageTimeoutMs?: number;
  /**
   * Input-required rounds one 2026-07-28 call may take, or elicitations one 2025-era call may
   * push (each is a round trip of its own); a round or an elicitation past it is refused before
   * anyone is asked. Default 16.
   */
  readonly maxRounds?: number;
  /**
   * The longest `requestState` a 2026-07-28 round may carry, in UTF-8 bytes; a round with a
   * longer one fails its call. It is written into the conversation when a turn suspends: raise it
   * for a server known to keep more of its state there. Default 65 536 (64 KiB).
   */
  readonly maxRequestStateBytes?: number;
  /**
   * Elicitations one call may have waiting at once: pushed requests (2025), or the input
   * requests of one round (2026-07-28); more are refused. Default 8.
   */
  readonly maxPendingElicitations?: number;
  /**
   * The longest text of a tool's result the model is given and the conversation records, in
   * characters: text blocks joined by blank lines, other blocks named, or the structured content
   * as JSON. A longer result is cut there and ends saying how long it was. Default 100 000.
   */
  readonly maxResultLength?: number;
  /** Told about every elicitation refused without asking anyone (for the host's log). */
  readonly onRefused?: (event: RefusedElicitation) => void;
}

/**
 * A connected MCP server whose tools the coordinator runs. Give it to the coordinator as (part
 * of) its `executors`, then {@link McpConnection.attach} it to that coordinator.
 */
export interface McpConnection extends ExecutorSource {
  readonly name: string;
  /** `legacy` (2025 revisions: pushed elicitations) or `modern` (2026-07-28: input-required). */
  readonly era: "legacy" | "modern";
  readonly protocolVersion: string;
  /** The elicitation modes this client advertised. */
  readonly elicitationModes: readonly ("form" | "url")[];
  readonly tools: readonly McpToolDefinition[];
  /**
   * Follows a coordinator's records, so a question it closes without an answer reaches the server
   * as `decline` or `cancel` with who decided. With `stream` (the conversation that coordinator
   * records in), a call left pending at a question goes on after a restart: see
   * {@link AttachOptions}. Returns the function that detaches.
   */
  attach(coordinator: ToolCoordinator, options?: AttachOptions): () => void;
  close(): Promise<void>;
}

/** Options of {@link McpConnection.attach}. */
export interface AttachOptions {
  /**
   * The conversation the coordinator records in. Give it when turns may suspend at an MCP
   * server's question (durable questions): the call's state is then kept in that conversation
   * (metadata `"jp.mcp/call"` of its request), so a resume — in this process or another, on a new
   * connection — retries a 2026-07-28 call with the server's `requestState` and the answers,
   * and tells the server who decided each answer given before the suspension.
   */
  readonly stream?: ConversationStream;
}

const DEFAULTS = { serverTimeoutMs: 60_000, pageTimeoutMs: 600_000, maxRounds: 16, maxPending: 8 };

/**
 * Connects to an MCP server and lists its tools. Elicitations arriving during its tool calls
 * become questions the coordinator routes and records like any other.
 *
 * @example
 * const weather = await connectMcpServer({
 *   name: "weather",
 *   transport: new StdioClientTransport({ command: "weather-mcp" }),
 * });
 * if (weather.isErr()) throw new Error(weather.error.message);
 * const coordinator = new ToolCoordinator({ stream, tools, executors: weather.value, prompts });
 * weather.value.attach(coordinator);
 */
export async function connectMcpServer(
  options: McpServerOptions,
): Promise<Result<McpConnection, McpConnectError>> {
  // A bad option is the host's mistake, not the server's: it rejects before anything connects.
  checkOptions(options);
  const connection = new Connection(options);
  const failure = await connection.open();
  return failure === undefined ? ok(connection) : err(failure);
}

const CONNECT = "connectMcpServer";

function checkOptions(options: McpServerOptions): void {
  checkCount(CONNECT, "maxTools", options.maxTools, "tools");
  checkTimeout(CONNECT, "serverTimeoutMs", options.serverTimeoutMs);
  checkTimeout(CONNECT, "pageTimeoutMs", options.pageTimeoutMs);
  checkCount(CONNECT, "maxRounds", options.maxRounds, "rounds");
  checkCount(CONNECT, "maxRequestStateBytes", options.maxRequestStateBytes, "bytes");
  checkCount(CONNECT, "maxPendingElicitations", options.maxPendingElicitations, "elicitations");
  checkCount(CONNECT, "maxResultLength", options.maxResultLength, "characters");
}

class Connection implements McpConnection {
  readonly name: string;
  readonly elicitationModes: readonly ("form" | "url")[];
  tools: readonly McpToolDefinition[] = [];
  readonly #options: McpServerOptions;
  readonly #client: Client;
  readonly #host: SessionHost;
  readonly #remote = new Map<string, string>();
  // Each tool's definition as the server listed it, by its name there: a call's result is
  // checked against the output schema of the list the model was given, without the SDK looking
  // it up in its response cache on every call.
  readonly #listed = new Map<string, Tool>();
  // The calls of each conversation (a tool call's id is unique only within its conversation);
  // a conversation's entry goes once it holds nothing.
  readonly #conversations = new WeakMap<ConversationKey, ConversationCalls>();
  // The conversations with calls running (what close() ends); a conversation that only holds
  // calls suspended in memory is held by nothing here, and goes with its stream.
  readonly #live = new Set<ConversationCalls>();
  // The attached coordinators (and detached ones whose calls still run), with how many times
  // each is attached. One never attached is followed from its conversation's entry instead.
  readonly #followed = new Map<ToolCoordinator, { count: number; readonly unfollow: () => void }>();
  // The conversations attached with `stream` (their calls' state is recorded in them), with how
  // many attachments gave each.
  readonly #durable = new Map<ConversationStream, number>();
  // The call whose pass a followed coordinator announced last, until the pass reaches execute.
  #starting: { readonly conversation: ConversationStream; readonly callId: string } | undefined;
  // How many attachments are in place (a coordinator attached twice counts twice).
  #attachments = 0;
  // Executors by model-facing tool name: one per tool, shared by its calls.
  readonly #executors = new Map<string, Executor>();
  // 2025-era calls run one at a time: a pushed elicitation names no call.
  #lastSlot: LineSlot | undefined;
  #current: PushCall | undefined;
  readonly #enterLine = (call: PushCall) => {
    this.#current = call;
  };
  readonly #leaveLine = (call: PushCall) => {
    if (this.#current === call) this.#current = undefined;
    // A stopped call's controller holds its stop's reason, an error whose stack trace holds the
    // frames (and the coordinator) it was made in: let it go now, not at the next call.
    if (this.#lineAbort.signal.aborted) this.#lineAbort = new AbortController();
  };
  readonly #watchdog: Watchdog;
  #lineAbort = new AbortController();
  readonly #lineController = () => {
    if (this.#lineAbort.signal.aborted) this.#lineAbort = new AbortController();
    return this.#lineAbort;
  };

  constructor(options: McpServerOptions) {
    this.#options = options;
    this.name = options.name;
    this.elicitationModes = options.openUrl === undefined ? ["form"] : ["form", "url"];
    this.#host = {
      server: options.name,
      openUrl: options.openUrl,
      serverTimeoutMs: options.serverTimeoutMs ?? DEFAULTS.serverTimeoutMs,
      pageTimeoutMs: options.pageTimeoutMs ?? DEFAULTS.pageTimeoutMs,
      maxResultLength: options.maxResultLength ?? DEFAULT_MAX_RESULT_LENGTH,
    };
    this.#watchdog = new Watchdog(this.#host.serverTimeoutMs);
    const elicitation = options.openUrl === undefined ? { form: {} } : { form: {}, url: {} };
    this.#client = new Client(options.clientInfo ?? { name: "jp-inquiry", version: "0" }, {
      capabilities: { elicitation },
      inputRequired: { autoFulfill: false },
      ...(options.versionNegotiation === undefined
        ? {}
        : { versionNegotiation: options.versionNegotiation }),
      ...(options.supportedProtocolVersions === undefined
        ? {}
        : { supportedProtocolVersions: options.supportedProtocolVersions }),
    });
    // Content holds only the flat primitives the form declared; the SDK checks it against the
    // form's schema before it is sent.
    this.#client.setRequestHandler(
      "elicitation/create",
      (request, ctx) => this.#pushed(request.params, ctx.mcpReq.signal) as Promise<ElicitResult>,
    );
  }

  get era(): "legacy" | "modern" {
    return this.#client.getProtocolEra() === "modern" ? "modern" : "legacy";
  }

  get protocolVersion(): string {
    return this.#client.getNegotiatedProtocolVersion() ?? "";
  }

  async open(): Promise<McpConnectError | undefined> {
    const server = this.name;
    try {
      await this.#client.connect(this.#options.transport);
    } catch (cause) {
      return { kind: "connect-failed", server, message: failureText(server, cause), cause };
    }
    try {
      const listed = await this.#client.listTools();
      // The definitions go to a model as JSON, in every request, and their names reach the
      // record and the person's screen: a list a model cannot be given fails the connection
      // (a definition nested deeper than this process can write would make the host's request
      // to its model throw).
      const checked = checkTools(server, listed.tools, this.#options.maxTools ?? DEFAULT_MAX_TOOLS);
      if (checked.isErr()) {
        await this.#client.close().catch(() => undefined);
        return { kind: "list-tools-failed", server, message: checked.error };
      }
      const prefix = this.#options.prefix ?? "";
      for (const tool of listed.tools) this.#listed.set(tool.name, tool);
      this.tools = checked.value.map((tool) => {
        this.#remote.set(`${prefix}${tool.name}`, tool.name);
        this.#executors.set(`${prefix}${tool.name}`, this.#executorOf(tool.name));
        return { ...tool, name: `${prefix}${tool.name}` };
      });
    } catch (cause) {
      await this.#client.close().catch(() => undefined);
      return { kind: "list-tools-failed", server, message: failureText(server, cause), cause };
    }
    return undefined;
  }

  executorFor(call: ToolCall, _config: ResolvedToolConfig): Executor | undefined {
    return this.#executors.get(call.name);
  }

  #executorOf(remote: string): Executor {
    return {
      execute: (input) => {
        const { coordinator, call } = input;
        // An input that names no coordinator (a host's wrapper that rebuilds it) belongs to the
        // coordinator that announced this call's pass just before (`tool-state` "running").
        const starting = this.#starting;
        this.#starting = undefined;
        const conversation =
          coordinator?.stream ??
          (starting?.callId === call.id ? starting.conversation : NO_CONVERSATION);
        let passed: Promise<ExecutorResult>;
        try {
          const session = this.#session(conversation, input, remote);
          // A coordinator nobody attached (a sub-agent's, sharing these executors) is followed
          // while its conversation holds calls here, so its closed questions reach the server,
          // its answers are the person's and its calls end.
          if (coordinator !== undefined && !this.#followed.has(coordinator)) {
            const { followers } = this.#callsOf(conversation);
            if (!followers.has(coordinator)) followers.set(coordinator, this.#follow(coordinator));
          }
          passed = session.pass(input);
        } catch (error) {
          return Promise.reject(error);
        }
        if (conversation !== NO_CONVERSATION) return passed;
        // An input made outside a coordinator: no events tell of its end; it ends with its tool.
        return passed.then(
          (result) => {
            if (result.type === "completed") this.#forget(conversation, call.id);
            return result;
          },
          (error: unknown) => {
            this.#forget(conversation, call.id);
            throw error;
          },
        );
      },
    };
  }

  attach(coordinator: ToolCoordinator, options: AttachOptions = {}): () => void {
    const { stream } = options;
    if (stream !== undefined && stream !== coordinator.stream) {
      throw new Error(
        `attach(coordinator, { stream }): the stream given is not the conversation this coordinator records in (coordinator.stream)`,
      );
    }
    if (stream !== undefined) tally(this.#durable, stream, 1);
    let following = this.#followed.get(coordinator);
    if (following === undefined) {
      // Followed already for its calls (never attached before): the same listeners go on.
      const followers = this.#conversations.get(coordinator.stream)?.followers;
      const unfollow = followers?.get(coordinator) ?? this.#follow(coordinator);
      followers?.delete(coordinator);
      following = { count: 0, unfollow };
      this.#followed.set(coordinator, following);
    }
    following.count += 1;
    this.#attachments += 1;
    const attached = following;
    let detached = false;
    return () => {
      if (detached) return;
      detached = true;
      this.#attachments -= 1;
      attached.count -= 1;
      // Calls still running keep it followed until they end (see #letGo).
      if (attached.count === 0) this.#letGo(coordinator.stream);
      if (stream !== undefined) tally(this.#durable, stream, -1);
    };
  }

  // Follows `coordinator`'s records for the calls of its conversation; returns what stops it.
  #follow(coordinator: ToolCoordinator): () => void {
    const conversation = coordinator.stream;
    const onRecorded: Parameters<typeof coordinator.on<"inquiry-recorded">>[1] = ({ event }) => {
      if (event.type !== "inquiry_response" || event.outcome !== "cancelled") return;
      const found = parseInquiryId(event.id);
      if (found === undefined) return;
      const session = this.#conversations.get(conversation)?.sessions.get(found.callId);
      if (session !== undefined) session.closed(found.questionId, event.reason);
      else if (this.#durable.has(conversation)) {
        this.#closeSuspended(conversation, found.callId, found.questionId, event.reason);
      }
    };
    const onAnswered: Parameters<typeof coordinator.on<"prompt-answered">>[1] = (e) => {
      if (e.request.kind !== "question" || e.outcome !== "answer") return;
      if (!this.#remote.has(e.request.tool_name)) return;
      const callId = e.request.tool_call_id;
      const calls = this.#callsOf(conversation);
      (calls.sessions.get(callId)?.prompted ?? calls.promptedIn(callId)).add(e.request.question.id);
    };
    const onState: Parameters<typeof coordinator.on<"tool-state">>[1] = (e) => {
      // Another tool's call may have the same id (some providers send duplicates).
      if (!this.#remote.has(e.tool_name)) return;
      if (e.state === "running") this.#starting = { conversation, callId: e.tool_call_id };
      else if (e.state === "suspended") this.#suspend(conversation, e.tool_call_id);
      else if (e.state === "completed") this.#forget(conversation, e.tool_call_id);
    };
    coordinator.on("inquiry-recorded", onRecorded);
    coordinator.on("prompt-answered", onAnswered);
    coordinator.on("tool-state", onState);
    return () => {
      coordinator.off("inquiry-recorded", onRecorded);
      coordinator.off("prompt-answered", onAnswered);
      coordinator.off("tool-state", onState);
    };
  }

  // The calls of `conversation`, made when first needed.
  #callsOf(conversation: ConversationKey): ConversationCalls {
    let calls = this.#conversations.get(conversation);
    if (calls === undefined) {
      calls = new ConversationCalls();
      this.#conversations.set(conversation, calls);
    }
    return calls;
  }

  // The call is done: whatever still waits is released.
  #forget(conversation: ConversationKey, callId: string): void {
    this.#conversations.get(conversation)?.forget(callId);
    this.#letGo(conversation);
  }

  // A coordinator not attached is followed while its conversation holds calls here (a call
  // suspended in memory still needs its events: a question closed, or answered, before the call
  // runs again), from the conversation's entry, which goes once it holds nothing; a coordinator
  // the host detached moves there once none of its calls runs.
  #letGo(conversation: ConversationKey): void {
    const calls = this.#conversations.get(conversation);
    const running = calls !== undefined && calls.sessions.size > calls.waiting.size;
    if (calls !== undefined && !running) this.#live.delete(calls);
    if (calls?.empty === true) {
      for (const unfollow of calls.followers.values()) unfollow();
      calls.followers.clear();
      this.#conversations.delete(conversation);
    }
    if (running) return;
    for (const [coordinator, following] of this.#followed) {
      if (following.count > 0 || coordinator.stream !== conversation) continue;
      this.#followed.delete(coordinator);
      // Still holding calls suspended in memory: followed from the entry, as if never attached.
      if (calls !== undefined && !calls.empty) calls.followers.set(coordinator, following.unfollow);
      else following.unfollow();
    }
  }

  // The coordinator left call `callId` waiting at a question: release what cannot wait, record
  // what a resume needs in the conversation, and forget the call here (a resume in this process
  // reads the record back, as another process would).
  #suspend(conversation: ConversationKey, callId: string): void {
    const calls = this.#conversations.get(conversation);
    const session = calls?.sessions.get(callId);
    if (calls === undefined || session === undefined) return;
    const prompted = session.prompted;
    // Suspended after its tool finished (at the delivery of its result): nothing to go on with.
    if (session.finished) {
      this.#forget(conversation, callId);
      return;
    }
    const round = session.suspend();
    const durable = isConversation(conversation) && this.#durable.has(conversation);
    // Without the conversation, a round can only go on in this process, from memory.
    if (!durable && round !== undefined) {
      calls.waiting.add(callId);
      this.#letGo(conversation);
      return;
    }
    calls.sessions.delete(callId);
    calls.waiting.delete(callId);
    calls.prompted.delete(callId);
    const gates = session.ids.gates();
    const spent = session.ids.spent();
    const record: SuspendedMcpCall = {
      v: 1,
      server: this.name,
      tool: session.remoteName,
      prompted: [...prompted],
      ...(Object.keys(gates).length === 0 ? {} : { gates }),
      ...(spent.length === 0 ? {} : { spent }),
      ...(session.pageRounds === 0 ? {} : { page_rounds: session.pageRounds }),
      ...(round === undefined ? {} : { round, arguments: session.arguments }),
    };
    // Without the conversation the call resumes in this process: its tool runs again, and its
    // opening questions must still not take a consent given to another page or form.
    if (isConversation(conversation) && durable) {
      writeSuspendedCall(conversation, callId, record);
    } else {
      calls.kept.set(callId, record);
    }
    this.#letGo(conversation);
  }

  // The coordinator closed a question of a call suspended earlier, before its tool ran again (a
  // cancel or a deadline while suspended, End Turn): the call's record is taken out, and a
  // 2026-07-28 server is sent its round once more with the decision, as from a live round.
  #closeSuspended(
    stream: ConversationStream,
    callId: string,
    questionId: string,
    reason: string,
  ): void {
    // Back or an invalid answer: the question is asked again and the call goes on.
    if (decisionFor(reason) === undefined) return;
    const found = suspendedRequest(stream, callId, this.name);
    if (found === undefined) return;
    writeSuspendedCall(stream, callId, undefined);
    const { record } = found;
    // Sent only with the arguments the call ran with (the person may have edited them).
    if (record.round === undefined || record.arguments === undefined || this.era !== "modern") {
      return;
    }
    const call: ToolCall = { id: callId, name: found.name, arguments: record.arguments };
    this.#roundCall(call, record.tool, new Set(record.prompted), record).closeRestored(
      questionId,
      reason,
    );
  }

  // A 2026-07-28 call, going on from `earlier` when it was suspended before.
  #roundCall(
    call: ToolCall,
    remote: string,
    prompted: Set<string>,
    earlier: SuspendedMcpCall | undefined,
  ): RoundCall {
    return new RoundCall(this.#host, call, remote, {
      client: this.#client,
      maxRounds: this.#maxRounds,
      maxRequests: this.#options.maxPendingElicitations ?? DEFAULTS.maxPending,
      maxRequestStateBytes: this.#options.maxRequestStateBytes ?? DEFAULT_MAX_REQUEST_STATE_BYTES,
      refused: (message) => this.#refuse(message, call.id),
      prompted,
      ...(earlier?.gates === undefined ? {} : { gates: earlier.gates }),
      ...(earlier?.round === undefined ? {} : { restored: earlier.round }),
    });
  }

  get #maxRounds(): number {
    return this.#options.maxRounds ?? DEFAULTS.maxRounds;
  }

  async close(): Promise<void> {
    for (const calls of this.#live) calls.clear();
    this.#live.clear();
    this.#watchdog.stop();
    await this.#client.close();
  }

  #session(conversation: ConversationKey, input: ExecuteInput, remote: string): CallSession {
    const { call } = input;
    if (this.#attachments === 0) {
      // Without the coordinator's records a closed question would leave the server waiting.
      throw new Error(
        `the MCP connection "${this.name}" is not attached to a coordinator: call attach(coordinator) before running its tools`,
      );
    }
    const calls = this.#callsOf(conversation);
    const existing = calls.sessions.get(call.id);
    if (existing !== undefined) {
      calls.waiting.delete(call.id);
      this.#live.add(calls);
      return existing;
    }
    // What the call left when it was suspended: in the conversation, or kept in this process.
    const earlier = calls.restore(
      call.id,
      { server: this.name, tool: remote },
      isConversation(conversation) ? conversation : undefined,
    );
    if (earlier === undefined && isConversation(conversation) && hasAnswers(input.answers)) {
      // A resumed call (a first pass has no answers) whose state is nowhere: its recorded consents
      // cannot be matched to what the server asks now, and are never taken as given.
      const message = `MCP server "${this.name}": tool call "${call.id}" has answers from before a suspension but no record of its state; attach the coordinator with its conversation (attach(coordinator, { stream })) when turns resume from a store or in another process, under the same server name`;
      this.#refuse(message, call.id);
      throw new Error(message);
    }
    // Answers given before the call ran (a resumed call's pending question) become the session's.
    const prompted = calls.prompted.get(call.id) ?? new Set<string>();
    if (calls.prompted.size > 0) calls.prompted.delete(call.id);
    for (const id of earlier?.prompted ?? []) prompted.add(id);
    const session =
      this.era === "modern"
        ? this.#roundCall(call, remote, prompted, earlier)
        : this.#lined(call, remote, prompted, earlier);
    calls.sessions.set(call.id, session);
    this.#live.add(calls);
    return session;
  }

  // A 2025-era call takes the next place in the line: it runs once the call before has left.
  #lined(
    call: ToolCall,
    remote: string,
    prompted: Set<string>,
    earlier: SuspendedMcpCall | undefined,
  ): CallSession {
    const line: LinePlace = {
      previous: this.#lastSlot,
      slot: new LineSlot(),
      enter: this.#enterLine,
      leave: this.#leaveLine,
      controller: this.#lineController,
      watchdog: this.#watchdog,
    };
    this.#lastSlot = line.slot;
    return new PushCall(this.#host, call, remote, {
      client: this.#client,
      maxPending: this.#options.maxPendingElicitations ?? DEFAULTS.maxPending,
      maxElicitations: this.#maxRounds,
      prompted,
      ...(earlier?.gates === undefined ? {} : { gates: earlier.gates }),
      ...(earlier?.spent === undefined ? {} : { spent: earlier.spent }),
      ...(earlier?.page_rounds === undefined ? {} : { pageRounds: earlier.page_rounds }),
      line,
      refused: (message) => this.#refuse(message, call.id),
      definition: this.#listed.get(remote),
    });
  }

  // Throws (the SDK answers with the error) or returns the response to come, without a promise
  // of its own.
  #pushed(params: unknown, signal: AbortSignal): Promise<ElicitResponse> {
    const call = this.#current;
    if (call === undefined || !call.live) {
      const message = "elicitation is answered only while one of this client's tool calls runs";
      this.#refuse(message, undefined);
      throw new ProtocolError(ProtocolErrorCode.InvalidRequest, message);
    }
    // Refused before anyone is asked, as a 2026-07-28 round past maxRounds is.
    if (call.exhausted) {
      const message = `too many elicitations in one tool call (at most ${this.#maxRounds}, maxRounds)`;
      this.#refuse(message, call.callId);
      throw new ProtocolError(ProtocolErrorCode.InvalidRequest, message);
    }
    const plan = planElicitation(params, call.asker, call.ids);
    if (plan.isErr()) {
      this.#refuse(plan.error.message, call.callId);
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, plan.error.message);
    }
    const queued = call.enqueue(plan.value, signal);
    if (queued === "full") {
      const message = `too many elicitations waiting in one tool call (at most ${this.#options.maxPendingElicitations ?? DEFAULTS.maxPending})`;
      this.#refuse(message, call.callId);
      throw new ProtocolError(ProtocolErrorCode.InvalidRequest, message);
    }
    if (queued === "ended") {
      throw new ProtocolError(ProtocolErrorCode.InvalidRequest, "the tool call has ended");
    }
    return queued;
  }

  #refuse(message: string, toolCallId: string | undefined): void {
    this.#options.onRefused?.({
      server: this.name,
      ...(toolCallId === undefined ? {} : { tool_call_id: toolCallId }),
      message,
    });
  }
}

function hasAnswers(answers: ExecuteInput["answers"]): boolean {
  for (const _ in answers) return true;
  return false;
}

/** Counts `key` up or down in `counts`; a key counted down to 0 is taken out. */
function tally<K>(counts: Map<K, number>, key: K, by: 1 | -1): void {
  const count = (counts.get(key) ?? 0) + by;
  if (count <= 0) counts.delete(key);
  else counts.set(key, count);
}

/** A conversation, or the calls of inputs that name none (made outside a coordinator). */
type ConversationKey = ConversationStream | typeof NO_CONVERSATION;
const NO_CONVERSATION: { readonly conversation: "none" } = Object.freeze({ conversation: "none" });

function isConversation(key: ConversationKey): key is ConversationStream {
  return key !== NO_CONVERSATION;
}

/**
 * What one conversation's calls hold on a connection: its calls in flight, the questions a
 * person answered in calls not yet running again, and the records of calls suspended while its
 * coordinator was attached without the conversation.
 */
class ConversationCalls {
  readonly sessions = new Map<string, CallSession>();
  // Coordinators of this conversation followed for its calls without being attached.
  readonly followers = new Map<ToolCoordinator, () => void>();
  // Calls whose session waits in memory for the resume of a suspended turn (a 2026-07-28 round
  // attached without the conversation): nothing runs until then.
  readonly waiting = new Set<string>();
  readonly prompted = new Map<string, Set<string>>();
  // The records of calls suspended without the conversation, kept in this process for their
  // resume there, in this conversation: the same record the conversation would hold, by call.
  readonly kept = new Map<string, SuspendedMcpCall>();

  get empty(): boolean {
    return this.sessions.size === 0 && this.prompted.size === 0 && this.kept.size === 0;
  }

  // Answers a person gave at a prompt, by call: kept from the first answer on, since a resumed
  // call's pending question is answered before its tool runs again.
  promptedIn(callId: string): Set<string> {
    let ids = this.prompted.get(callId);
    if (ids === undefined) {
      ids = new Set();
      this.prompted.set(callId, ids);
    }
    return ids;
  }

  // What a call suspended earlier left, taken out: its record in `stream` (the conversation,
  // when attached with it), or the one kept in memory. A call that suspends again is recorded
  // anew.
  restore(
    callId: string,
    expected: { readonly server: string; readonly tool: string },
    stream: ConversationStream | undefined,
  ): SuspendedMcpCall | undefined {
    let record: SuspendedMcpCall | undefined;
    if (stream !== undefined) {
      record = readSuspendedCall(stream, callId, expected);
      if (record !== undefined) writeSuspendedCall(stream, callId, undefined);
    }
    record ??= this.kept.get(callId);
    if (this.kept.size > 0) this.kept.delete(callId);
    return record;
  }

  /** The call is done: whatever still waits is released. */
  forget(callId: string): void {
    this.sessions.get(callId)?.end();
    this.sessions.delete(callId);
    this.waiting.delete(callId);
    if (this.prompted.size > 0) this.prompted.delete(callId);
    if (this.kept.size > 0) this.kept.delete(callId);
  }

  clear(): void {
    for (const session of this.sessions.values()) session.end();
    this.sessions.clear();
    this.waiting.clear();
    this.prompted.clear();
    this.kept.clear();
  }
}

/** `<tool_call_id>.<question_id>.<attempt>`: the call id may hold dots, the other two never do. */
export function parseInquiryId(id: string): { callId: string; questionId: string } | undefined {
  const last = id.lastIndexOf(".");
  const middle = last <= 0 ? -1 : id.lastIndexOf(".", last - 1);
  if (middle <= 0) return undefined;
  return { callId: id.slice(0, middle), questionId: id.slice(middle + 1, last) };
}

// The reason may quote the server's own error text: a host prints it, so it is cut and made inert.
function failureText(server: string, cause: unknown): string {
  const reason = cause instanceof Error ? cause.message : String(cause);
  return `could not connect to MCP server "${server}": ${inertText(reason, MAX_ERROR_TEXT_LENGTH)}`;
}
