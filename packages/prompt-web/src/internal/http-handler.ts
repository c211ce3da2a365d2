import type { IncomingMessage, ServerResponse } from "node:http";
import type { EventEmitter } from "eventemitter3";
import type { WebPromptsEvents } from "../events.js";
import { pageFiles } from "../page-files.js";
import {
  hasToken,
  isJson,
  originAllowed,
  readBody,
  SECURITY_HEADERS,
  sendJson,
} from "./http-guards.js";
import type { InboxBoard, InboxReplyResult } from "./inbox-board.js";
import type { PromptBoard, ReplyResult } from "./prompt-board.js";

/** What the handler needs to know, already checked and normalized. */
export interface HandlerConfig {
  /** `""` or a path without a trailing slash, e.g. `/prompts`. */
  readonly basePath: string;
  readonly token: string;
  readonly allowedOrigins: ReadonlySet<string>;
  /**
   * The host names a request may be addressed to (`Host`), or `undefined` for any. A server on
   * a loopback address takes only loopback names, so a site that rebinds its own name to
   * 127.0.0.1 (DNS rebinding) is refused before it reaches anything.
   */
  readonly allowedHosts: ReadonlySet<string> | undefined;
  readonly maxBodyBytes: number;
  /** How often an idle event stream gets a comment line, so proxies keep it open. */
  readonly heartbeatMs: number;
}

/** Handles one request; `path` is relative to the base path and starts with `/`. */
type Action = (req: IncomingMessage, res: ServerResponse, params: readonly string[]) => void;

interface Route {
  readonly pattern: RegExp;
  readonly method: "GET" | "POST";
  /** API routes need the session token; the page and its files do not (they hold no data). */
  readonly api: boolean;
  readonly action: Action;
}

const HTTP_STATUS_OF_REPLY: Readonly<Record<ReplyResult["type"], number>> = {
  accepted: 200,
  not_found: 404,
  not_active: 409,
  invalid: 422,
};

const HTTP_STATUS_OF_INBOX_REPLY: Readonly<Record<InboxReplyResult["type"], number>> = {
  accepted: 200,
  bad_request: 400,
  gone: 404,
  conflict: 409,
  invalid: 422,
  unavailable: 503,
};

/** The server side of the page: its files, the live event stream and the reply endpoint. */
export class RequestHandler {
  readonly #board: PromptBoard;
  readonly #inbox: InboxBoard | undefined;
  readonly #config: HandlerConfig;
  readonly #events: EventEmitter<WebPromptsEvents>;
  readonly #streams = new Set<ServerResponse>();
  readonly #routes: readonly Route[];

  constructor(
    board: PromptBoard,
    config: HandlerConfig,
    events: EventEmitter<WebPromptsEvents>,
    inbox?: InboxBoard,
  ) {
    this.#board = board;
    this.#inbox = inbox;
    this.#config = config;
    this.#events = events;
    this.#routes = [
      {
        pattern: /^\/$/,
        method: "GET",
        api: false,
        action: (_, res) => this.#file(res, "index.html"),
      },
      {
        pattern: /^\/([a-z0-9-]+\.(?:js|css))$/,
        method: "GET",
        api: false,
        action: (req, res, [name]) => this.#file(res, name ?? "", req),
      },
      {
        pattern: /^\/api\/events$/,
        method: "GET",
        api: true,
        action: (req, res) => this.#stream(req, res),
      },
      {
        pattern: /^\/api\/state$/,
        method: "GET",
        api: true,
        action: (_, res) => void this.#state(res),
      },
      {
        pattern: /^\/api\/prompts\/([A-Za-z0-9-]+)\/reply$/,
        method: "POST",
        api: true,
        action: (req, res, [id]) => void this.#reply(req, res, id ?? ""),
      },
      {
        pattern: /^\/api\/inbox\/reply$/,
        method: "POST",
        api: true,
        action: (req, res) => void this.#inboxReply(req, res),
      },
    ];
  }

  /**
   * Serves `req` if its path lies under the base path and returns `true`; otherwise returns
   * `false` and leaves the response alone.
   */
  handle(req: IncomingMessage, res: ServerResponse): boolean {
    const pathname = pathOf(req);
    const { basePath } = this.#config;
    if (basePath !== "" && pathname === basePath) {
      // The page's links are relative: it must be served from the folder, `/base/`.
      res.writeHead(308, { ...SECURITY_HEADERS, Location: `${basePath}/` });
      res.end();
      return true;
    }
    if (!pathname.startsWith(`${basePath}/`)) return false;
    this.#route(req, res, pathname.slice(basePath.length));
    return true;
  }

  /** Ends every live event stream (the pages see the server go away). */
  close(): void {
    for (const res of this.#streams) res.end();
    this.#streams.clear();
  }

  #route(req: IncomingMessage, res: ServerResponse, path: string): void {
    const { allowedHosts } = this.#config;
    if (allowedHosts !== undefined && !allowedHosts.has(hostName(req.headers.host))) {
      this.#refuse(req, res, 421, "the request is addressed to another host name");
      return;
    }
    const matching = this.#routes.filter((route) => route.pattern.test(path));
    if (matching.length === 0) {
      this.#refuse(req, res, 404, "no such page or endpoint");
      return;
    }
    // HEAD is a GET without a body for the page's files only: on the API it would open a stream.
    const method = req.method === "HEAD" && matching.every((r) => !r.api) ? "GET" : req.method;
    const route = matching.find((candidate) => candidate.method === method);
    if (route === undefined) {
      const allow = matching.map((candidate) => candidate.method).join(", ");
      this.#refuse(req, res, 405, `use ${allow} here`, { Allow: allow });
      return;
    }
    if (route.method === "POST" && !originAllowed(req, this.#config.allowedOrigins)) {
      this.#refuse(req, res, 403, "the request comes from another origin");
      return;
    }
    if (route.api && !hasToken(req, this.#config.token)) {
      this.#refuse(req, res, 401, "a valid session token is required", {
        "WWW-Authenticate": 'Bearer realm="prompts"',
      });
      return;
    }
    const params = route.pattern.exec(path)?.slice(1) ?? [];
    route.action(req, res, params);
  }

  #file(res: ServerResponse, name: string, req?: IncomingMessage): void {
    let files: ReturnType<typeof pageFiles>;
    try {
      files = pageFiles();
    } catch (cause) {
      // A broken install must not take the host's server down with it.
      sendJson(res, 500, {
        error: { message: cause instanceof Error ? cause.message : "no page" },
      });
      return;
    }
    const file = files.get(name);
    if (file === undefined) {
      if (req !== undefined) this.#refuse(req, res, 404, "no such page or endpoint");
      return;
    }
    res.writeHead(200, {
      ...SECURITY_HEADERS,
      "Content-Type": file.contentType,
      "Content-Length": file.body.length,
    });
    res.end(file.body);
  }

  #stream(req: IncomingMessage, res: ServerResponse): void {
    if (this.#board.closed) {
      this.#refuse(req, res, 503, "the prompt server is closing");
      return;
    }
    res.writeHead(200, {
      ...SECURITY_HEADERS,
      "Content-Type": "text/event-stream; charset=utf-8",
      "X-Accel-Buffering": "no",
    });
    res.flushHeaders();
    this.#streams.add(res);
    // JSON text has no line breaks, so each snapshot is one `data:` line.
    const disconnect = this.#board.connect((snapshot) => {
      res.write(`event: state\ndata: ${JSON.stringify(snapshot)}\n\n`);
    });
    const heartbeat = setInterval(() => res.write(": ping\n\n"), this.#config.heartbeatMs);
    heartbeat.unref();
    const end = () => {
      clearInterval(heartbeat);
      this.#streams.delete(res);
      disconnect();
    };
    res.once("close", end);
  }

  async #state(res: ServerResponse): Promise<void> {
    // Without a page open nobody watches the store: list it now.
    await this.#inbox?.refresh();
    sendJson(res, 200, this.#board.snapshot());
  }

  /** Reads a JSON body, or refuses the request (and resolves `undefined`). */
  async #jsonBody(
    req: IncomingMessage,
    res: ServerResponse,
  ): Promise<{ readonly value: unknown } | undefined> {
    if (!isJson(req)) {
      this.#refuse(req, res, 415, "send the reply as application/json");
      return undefined;
    }
    const body = await readBody(req, this.#config.maxBodyBytes);
    if (!body.ok) {
      if (body.problem === "aborted") return undefined;
      this.#refuse(
        req,
        res,
        413,
        `the request body is larger than ${this.#config.maxBodyBytes} bytes`,
        {
          Connection: "close",
        },
      );
      // Stop reading what is left of an oversized body.
      res.once("finish", () => req.destroy());
      return undefined;
    }
    try {
      return { value: JSON.parse(body.text) };
    } catch {
      // The parser's message quotes the body, which may hold a secret: say it in our words.
      this.#refuse(req, res, 400, "the request body is not valid JSON");
      return undefined;
    }
  }

  async #inboxReply(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (this.#inbox === undefined) {
      this.#refuse(req, res, 404, "this page has no inbox of stored prompts");
      return;
    }
    const body = await this.#jsonBody(req, res);
    if (body === undefined) return;
    const result = await this.#inbox.reply(body.value);
    const status = HTTP_STATUS_OF_INBOX_REPLY[result.type];
    switch (result.type) {
      case "accepted":
        return sendJson(res, status, { ok: true });
      case "invalid":
        return sendJson(res, status, { error: result.problem });
      default:
        return sendJson(res, status, { error: { message: result.message } });
    }
  }

  async #reply(req: IncomingMessage, res: ServerResponse, id: string): Promise<void> {
    const body = await this.#jsonBody(req, res);
    if (body === undefined) return;
    const reply = body.value;
    const result = this.#board.reply(id, reply);
    const status = HTTP_STATUS_OF_REPLY[result.type];
    switch (result.type) {
      case "accepted":
        return sendJson(res, status, { ok: true });
      case "not_found":
        return sendJson(res, status, {
          error: { message: "this prompt is no longer open: it was answered or withdrawn" },
        });
      case "not_active":
        return sendJson(res, status, {
          error: { message: "an earlier prompt of this conversation must be answered first" },
        });
      case "invalid":
        return sendJson(res, status, { error: result.problem });
    }
  }

  #refuse(
    req: IncomingMessage,
    res: ServerResponse,
    status: number,
    reason: string,
    headers: Readonly<Record<string, string>> = {},
  ): void {
    this.#events.emit("request-refused", {
      method: req.method ?? "",
      path: pathOf(req),
      status,
      reason,
    });
    sendJson(res, status, { error: { message: reason } }, headers);
  }
}

/** The host name of a `Host` header, lowercased, without the port: `[::1]`, `localhost`. */
export function hostName(host: string | undefined): string {
  if (host === undefined) return "";
  const name = host.startsWith("[") ? host.slice(0, host.indexOf("]") + 1) : host.split(":")[0];
  return (name ?? "").toLowerCase();
}

/** The request's path without its query string. */
function pathOf(req: IncomingMessage): string {
  const url = req.url ?? "/";
  const end = url.search(/[?#]/);
  return end === -1 ? url : url.slice(0, end);
}
