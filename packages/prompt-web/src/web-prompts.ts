import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { PromptBackend } from "@jp/coordinator";
import { HumanUnreachableError } from "@jp/coordinator";
import { EventEmitter } from "eventemitter3";
import { err, ok, type Result } from "neverthrow";
import type { WebPromptsError } from "./errors.js";
import type { WebPromptsEvents } from "./events.js";
import type { InboxSource } from "./inbox-source.js";
import { newToken, sendJson } from "./internal/http-guards.js";
import { RequestHandler } from "./internal/http-handler.js";
import { InboxBoard } from "./internal/inbox-board.js";
import { checkCount, checkPort, checkWait } from "./internal/options.js";
import { PromptBoard } from "./internal/prompt-board.js";

/** The largest reply body accepted by default: 1 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** How long prompts wait for a page to come back after the last one closed, by default. */
export const DEFAULT_DISCONNECT_GRACE_MS = 5000;

/** Options of {@link createWebPromptHandler}. */
export interface WebPromptsOptions {
  /** Where the page lives when mounted in a host's server, e.g. `/prompts`. Default: the root. */
  readonly basePath?: string;
  /**
   * The session token every API call must carry. Default: 32 random bytes. Give one only to
   * share it with a page you serve yourself; it authorizes answering every prompt.
   */
  readonly token?: string;
  /** Origins allowed to post replies besides the page's own (e.g. behind a proxy). */
  readonly allowedOrigins?: readonly string[];
  /** The largest reply body accepted, in bytes; default {@link DEFAULT_MAX_BODY_BYTES}. */
  readonly maxBodyBytes?: number;
  /**
   * With no page open, how long a prompt, and `isHumanReachable()`, wait for one. Default `0`:
   * no page means nobody to ask, and the coordinator's detached policy applies. `Infinity`
   * waits for the person as long as it takes.
   */
  readonly waitForPageMs?: number;
  /**
   * After the last page closed, how long open prompts wait for one to come back (a reload)
   * before they fail as unreachable. Default {@link DEFAULT_DISCONNECT_GRACE_MS}.
   */
  readonly disconnectGraceMs?: number;
  /**
   * Where to find prompts that wait in a store (turns suspended at a question, or hosts waiting
   * elsewhere): {@link fileInboxSource} or {@link postgresInboxSource}. The page lists them beside
   * the live prompts and answers them there; an answer given in any tab or process leaves every
   * open page.
   */
  readonly inbox?: InboxSource;
}

/** Options of {@link WebPrompts.backend}. */
export interface WebPromptBackendOptions {
  /**
   * The conversation the prompts belong to. The page groups prompts by conversation and shows
   * one conversation's prompts one at a time, in order. Default `"default"`.
   */
  readonly conversationId?: string;
  /** A heading for the conversation on the page (shown as text). */
  readonly title?: string;
  /**
   * What a prompt does when no page is open (after `waitForPageMs`), or when the last page
   * closed and did not come back within `disconnectGraceMs`:
   * - `"unreachable"` (the default): the person is unreachable, and the coordinator's detached
   *   policy decides (`HumanUnreachableError` for a prompt that was open);
   * - `"later"`: the prompt is left pending (`{type: "later"}`) and the turn suspends at it, to be
   *   answered from any process and resumed (see `@jp/coordinator`'s durable questions). The
   *   person counts as reachable, since they will be asked later.
   */
  readonly whenNoPage?: "unreachable" | "later";
}

/** Options of {@link WebPrompts.waitForPage}. */
export interface WaitForPageOptions {
  /** Give up after this long (resolving `false`); no limit when absent. */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}

/**
 * The prompt page's server side, to mount in a host's HTTP server: a request handler, and a
 * {@link PromptBackend} per conversation whose prompts appear on the page.
 */
export interface WebPrompts extends EventEmitter<WebPromptsEvents> {
  /** The session token; the page reads it from the link's `#token=` fragment. */
  readonly token: string;
  /** The page's path with the token, e.g. `/prompts/#token=…`: prefix it with your origin. */
  readonly pagePath: string;
  /** How many pages are open (connected to the live updates) now. */
  readonly pagesConnected: number;
  /**
   * Serves requests under the base path and returns `true`. Other requests are left alone:
   * `next()` is called when given (Express/Connect style) and `false` returned.
   */
  handle(req: IncomingMessage, res: ServerResponse, next?: () => void): boolean;
  /** A {@link PromptBackend} whose prompts appear on the page under one conversation. */
  backend(options?: WebPromptBackendOptions): PromptBackend;
  /** Resolves `true` once a page is open; `false` on timeout, abort or close. */
  waitForPage(options?: WaitForPageOptions): Promise<boolean>;
  /**
   * Ends the live streams and fails open prompts as unreachable (`HumanUnreachableError`): the
   * person did not decline them. Idempotent.
   */
  close(): void;
}

/** Options of {@link createWebPrompts}. */
export interface StandaloneWebPromptsOptions extends WebPromptsOptions {
  /** The port to listen on; default `0`, any free port. */
  readonly port?: number;
  /** The address to listen on; default `127.0.0.1`, this machine only. */
  readonly host?: string;
}

/** The prompt page on its own HTTP server. */
export interface StandaloneWebPrompts extends WebPrompts {
  /** The link to open, with the session token in its fragment (never sent to the server). */
  readonly url: string;
  /** The underlying server. */
  readonly server: Server;
  /** Closes the prompts (see {@link WebPrompts.close}) and the server. */
  close(): Promise<void>;
}

/**
 * Creates the prompt page's server side without listening, for mounting in a host's server.
 * Prompts from every {@link WebPrompts.backend} appear on the page at {@link WebPrompts.pagePath}.
 *
 * @example
 * ```ts
 * const web = createWebPromptHandler({ basePath: "/prompts" });
 * http.createServer((req, res) => web.handle(req, res) || app(req, res)).listen(8080);
 * console.log(`open http://localhost:8080${web.pagePath}`);
 * const coordinator = new ToolCoordinator({ prompts: web.backend(), ... });
 * ```
 */
export function createWebPromptHandler(options: WebPromptsOptions = {}): WebPrompts {
  return new WebPromptsImpl("createWebPromptHandler", options);
}

/**
 * Starts the prompt page on its own HTTP server (127.0.0.1 and a free port unless told
 * otherwise) and resolves once it listens, or with a `listen` error when the address cannot be
 * taken. Open {@link StandaloneWebPrompts.url} in a browser.
 *
 * @example
 * ```ts
 * const started = await createWebPrompts({ port: 8123 });
 * if (started.isErr()) throw new Error(started.error.message);
 * const web = started.value;
 * console.log(`Answer prompts at ${web.url}`);
 * const coordinator = new ToolCoordinator({ stream, tools, executors, prompts: web.backend() });
 * // …
 * await web.close();
 * ```
 */
export async function createWebPrompts(
  options: StandaloneWebPromptsOptions = {},
): Promise<Result<StandaloneWebPrompts, WebPromptsError>> {
  // Options are checked before anything listens: a bad one is a programming error and throws.
  checkPort("createWebPrompts", "port", options.port);
  const { port = 0, host = "127.0.0.1", ...rest } = options;
  const server = createServer();
  const prompts = new StandaloneWebPromptsImpl(rest, server, host);
  const listening = await new Promise<NodeJS.ErrnoException | undefined>((resolve) => {
    server.once("error", resolve);
    server.listen(port, host, () => {
      server.off("error", resolve);
      resolve(undefined);
    });
  });
  if (listening !== undefined) {
    prompts.close();
    return err(listenError(host, port, listening));
  }
  prompts.listening();
  return ok(prompts);
}

/** Words for the errors Node reports when it cannot listen. */
const LISTEN_PROBLEMS: Readonly<Record<string, string>> = {
  EADDRINUSE: "the port is in use",
  EACCES: "permission denied (ports below 1024 need privileges)",
  EADDRNOTAVAIL: "this machine has no such address",
};

function listenError(host: string, port: number, error: NodeJS.ErrnoException): WebPromptsError {
  const code = error.code;
  const problem = (code === undefined ? undefined : LISTEN_PROBLEMS[code]) ?? error.message;
  return {
    kind: "listen",
    message: `could not listen on ${urlHost(host)}:${port}: ${problem}${code === undefined ? "" : ` (${code})`}`,
    ...(code === undefined ? {} : { code }),
  };
}

class WebPromptsImpl extends EventEmitter<WebPromptsEvents> implements WebPrompts {
  readonly token: string;
  readonly pagePath: string;
  readonly #board: PromptBoard;
  readonly #inbox: InboxBoard | undefined;
  readonly #handler: RequestHandler;

  /**
   * `where`: the function the host called, which option errors name. `hosts`: the host names
   * requests may be addressed to; any when absent (mounted).
   */
  constructor(where: string, options: WebPromptsOptions, hosts?: ReadonlySet<string>) {
    super();
    const { basePath, token, allowedOrigins } = checkOptions(where, options);
    this.token = token;
    this.pagePath = `${basePath}/#token=${encodeURIComponent(this.token)}`;
    this.#board = new PromptBoard(
      {
        waitForPageMs: options.waitForPageMs ?? 0,
        disconnectGraceMs: options.disconnectGraceMs ?? DEFAULT_DISCONNECT_GRACE_MS,
      },
      this,
    );
    const board = this.#board;
    this.#inbox =
      options.inbox === undefined
        ? undefined
        : new InboxBoard(options.inbox, this, () => board.changed());
    if (this.#inbox !== undefined) this.#board.setInbox(this.#inbox);
    this.#handler = new RequestHandler(
      this.#board,
      {
        basePath,
        token: this.token,
        allowedOrigins,
        allowedHosts:
          hosts === undefined
            ? undefined
            : new Set([...hosts, ...[...allowedOrigins].map((origin) => new URL(origin).hostname)]),
        maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
        heartbeatMs: 15_000,
      },
      this,
      this.#inbox,
    );
  }

  get pagesConnected(): number {
    return this.#board.pages;
  }

  handle(req: IncomingMessage, res: ServerResponse, next?: () => void): boolean {
    if (this.#handler.handle(req, res)) return true;
    next?.();
    return false;
  }

  backend(options: WebPromptBackendOptions = {}): PromptBackend {
    const { conversationId = "default", title, whenNoPage = "unreachable" } = options;
    if (whenNoPage !== "unreachable" && whenNoPage !== "later") {
      throw new TypeError(
        `WebPrompts.backend: \`whenNoPage\` must be "unreachable" or "later", got ${String(whenNoPage)}`,
      );
    }
    if (conversationId === "") {
      throw new TypeError("WebPrompts.backend: `conversationId` must not be empty");
    }
    if (title !== undefined) this.#board.setTitle(conversationId, title);
    const board = this.#board;
    if (whenNoPage === "unreachable") {
      return {
        isHumanReachable: () => board.isReachable(),
        ask: (request, { signal }) => board.ask(conversationId, request, signal),
      };
    }
    return {
      isHumanReachable: () => true,
      async ask(request, { signal }) {
        // Nobody to ask now is not a refusal: the turn waits for a page, on disk. A deadline or a
        // stop while waiting for a page is not "later" either: it ends the wait at once, and the
        // board resolves the aborted prompt `cancelled` as in the default mode, without showing
        // it, so the coordinator records why.
        if (!(await board.isReachable(signal)) && !signal.aborted) {
          return { type: "later" } as const;
        }
        try {
          return await board.ask(conversationId, request, signal);
        } catch (cause) {
          if (cause instanceof HumanUnreachableError) return { type: "later" } as const;
          throw cause;
        }
      },
    };
  }

  waitForPage(options: WaitForPageOptions = {}): Promise<boolean> {
    try {
      checkWait("WebPrompts.waitForPage", "timeoutMs", options.timeoutMs);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#board.waitForPage(options);
  }

  close(): void {
    this.#board.close();
    this.#inbox?.close();
    this.#handler.close();
  }
}

class StandaloneWebPromptsImpl extends WebPromptsImpl implements StandaloneWebPrompts {
  readonly server: Server;
  readonly #host: string;
  #url: string | undefined;

  constructor(options: WebPromptsOptions, server: Server, host: string) {
    // On a loopback address only loopback names are expected; on others (a LAN address, a
    // wildcard) the host knows which names its people use, so any is taken.
    super(
      "createWebPrompts",
      options,
      ["127.0.0.1", "localhost", "::1"].includes(host) ? LOOPBACK : undefined,
    );
    this.server = server;
    this.#host = host;
    server.on("request", (req, res) => {
      this.handle(req, res, () => notFound(this, req, res));
    });
  }

  get url(): string {
    if (this.#url === undefined) throw new Error("the prompt server is not listening yet");
    return this.#url;
  }

  /** Called once the server listens: the link needs the port it got. */
  listening(): void {
    const { port } = this.server.address() as AddressInfo;
    this.#url = `http://${urlHost(this.#host)}:${port}${this.pagePath}`;
  }

  override async close(): Promise<void> {
    super.close();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** The names of this machine's loopback addresses, as they appear in a `Host` header. */
const LOOPBACK: ReadonlySet<string> = new Set(["127.0.0.1", "localhost", "[::1]"]);

/** Answers a request outside the base path of a standalone server. */
function notFound(events: WebPrompts, req: IncomingMessage, res: ServerResponse): void {
  events.emit("request-refused", {
    method: req.method ?? "",
    path: (req.url ?? "/").split("?")[0] ?? "/",
    status: 404,
    reason: "no such page or endpoint",
  });
  sendJson(res, 404, { error: { message: "no such page or endpoint" } });
}

/**
 * Checks the options `where` (the function the host called) was given, naming it in each error,
 * and returns the base path, token and origins they come to.
 */
function checkOptions(
  where: string,
  options: WebPromptsOptions,
): { basePath: string; token: string; allowedOrigins: Set<string> } {
  const basePath = normalizeBasePath(where, options.basePath ?? "");
  const token = options.token ?? newToken();
  if (!/^[A-Za-z0-9._~+/=-]{16,}$/.test(token)) {
    throw new TypeError(
      `${where}: \`token\` must be at least 16 URL-safe characters (letters, digits, ._~+/=-)`,
    );
  }
  checkCount(where, "maxBodyBytes", options.maxBodyBytes, "bytes");
  checkWait(where, "waitForPageMs", options.waitForPageMs);
  checkWait(where, "disconnectGraceMs", options.disconnectGraceMs);
  const allowedOrigins = new Set(
    (options.allowedOrigins ?? []).map((origin) => checkedOrigin(where, origin)),
  );
  return { basePath, token, allowedOrigins };
}

/** `""` or `/a/b`: one leading slash, no trailing one. */
function normalizeBasePath(where: string, path: string): string {
  const trimmed = path.replace(/\/+$/, "");
  if (trimmed === "") return "";
  if (!/^\/[A-Za-z0-9._~\-/]*$/.test(trimmed) || trimmed.includes("//")) {
    throw new TypeError(
      `${where}: \`basePath\` must look like "/prompts", got ${JSON.stringify(path)}`,
    );
  }
  return trimmed;
}

/** An origin as browsers send it: scheme, host and port, no path (`https://app.example`). */
function checkedOrigin(where: string, origin: string): string {
  let parsed: string | undefined;
  try {
    parsed = new URL(origin).origin;
  } catch {
    parsed = undefined;
  }
  if (parsed !== origin) {
    const hint = parsed === undefined || parsed === "null" ? "" : ` (did you mean "${parsed}"?)`;
    throw new TypeError(
      `${where}: \`allowedOrigins\` holds ${JSON.stringify(origin)}, which is not an origin like "https://app.example"${hint}`,
    );
  }
  return origin;
}

/** The host part of a URL for a listening address; a wildcard address becomes 127.0.0.1. */
function urlHost(host: string): string {
  if (host === "0.0.0.0" || host === "::" || host === "") return "127.0.0.1";
  return host.includes(":") ? `[${host}]` : host;
}
