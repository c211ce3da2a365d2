// A web server whose turns wait for a person without any process waiting. One request starts a
// turn; the assistant's tool asks a question; the turn is suspended and saved, and the response
// carries the pending question. A later request, to any instance of the server, answers it; the
// turn resumes and either finishes or returns the next question. Nothing lives in memory between
// requests: the conversation on disk is the only state.
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { askUser, builtinToolConfigs } from "@jp/builtins";
import { FileConversationStore, type StoredConversation } from "@jp/conversation";
import {
  answerPendingPrompt,
  builtinExecutorSource,
  type RunResult,
  resumeInStore,
  type StoredReply,
  ToolCoordinator,
  TurnState,
} from "@jp/coordinator";

/** What the server answers: the prompts a person must answer now, or the turn's results. */
export interface TurnView {
  readonly conversation: string;
  readonly pending: RunResult["pending"];
  readonly results: readonly { readonly id: string; readonly content: string }[];
}

/** The largest request body taken, in bytes: a message or an answer, not a file. */
export const MAX_BODY_BYTES = 64 * 1024;

/** Options of {@link createTurnServer}. */
export interface TurnServerOptions {
  /**
   * The host names requests may be addressed to (the `Host` header, without the port). Default:
   * this machine's loopback names, for a server on 127.0.0.1. A web site that points its own name
   * at 127.0.0.1 (DNS rebinding) is same-origin with itself, so only this list stops it.
   */
  readonly hosts?: readonly string[];
}

const LOOPBACK_HOSTS = ["127.0.0.1", "localhost", "[::1]"];

/** A model stand-in: it asks the person, through `ask_user`, which plan to follow. */
const assistantCall = {
  id: "call_plan",
  name: "ask_user",
  arguments: {
    questions: [
      { id: "plan", text: "Which plan?", answer_type: "select", options: ["basic", "pro"] },
      { id: "seats", text: "How many seats?", answer_type: "text" },
    ],
  },
};

export function createTurnServer(root: string, options: TurnServerOptions = {}): Server {
  const store = new FileConversationStore(root);
  const hosts = new Set((options.hosts ?? LOOPBACK_HOSTS).map((host) => host.toLowerCase()));
  const coordinatorFor = (conversation: StoredConversation) =>
    new ToolCoordinator({
      stream: conversation.stream,
      tools: builtinToolConfigs(),
      executors: builtinExecutorSource({ ask_user: askUser }),
    });

  // POST /turns {"message": "..."}: starts a turn; returns what it waits for.
  async function startTurn(body: { message?: unknown }): Promise<[number, unknown]> {
    if (typeof body.message !== "string") return [400, { error: '"message" must be a string' }];
    // The store names a conversation after the clock, to a tenth of a second: two turns started
    // together would get the same name, and the second save would refuse to write over the first.
    const created = store.create({ title: "web turn" });
    const conversation = { ...created, name: `${created.name}-${randomBytes(6).toString("hex")}` };
    conversation.stream.startTurn(body.message);
    const result = await coordinatorFor(conversation).run([assistantCall], {
      turn: new TurnState(),
      suspend: { deadlineMs: 24 * 60 * 60 * 1000 },
    });
    return save(conversation, result);
  }

  // POST /turns/<name>/answers {"prompt_id": "...", "reply": {...}}: answers and resumes.
  async function answer(name: string, body: { prompt_id?: unknown; reply?: unknown }) {
    const loaded = await store.load(name);
    if (loaded.isErr()) return [404, { error: loaded.error.message }] as const;
    const conversation = loaded.value;
    if (typeof body.prompt_id !== "string")
      return [400, { error: '"prompt_id" is required' }] as const;
    const answered = answerPendingPrompt(
      conversation.stream,
      body.prompt_id,
      body.reply as StoredReply,
    );
    if (answered.isErr()) {
      const status =
        answered.error.kind === "unknown_prompt"
          ? 404
          : answered.error.kind === "already_answered"
            ? 409
            : 422;
      return [status, { error: answered.error.message, kind: answered.error.kind }] as const;
    }
    // Saved before resuming: the answer is kept even if this request dies while the tools run.
    const saved = await store.save(conversation);
    if (saved.isErr())
      return [saved.error.kind === "conflict" ? 409 : 500, { error: saved.error.message }] as const;
    // One resume at a time, whichever instance gets the request: the turn is claimed first.
    const resumed = await resumeInStore(store, name, (claimed) => coordinatorFor(claimed).resume());
    if (resumed.isErr())
      return [
        resumed.error.kind === "claimed" ? 409 : 500,
        { error: resumed.error.message },
      ] as const;
    const view: TurnView = {
      conversation: name,
      pending: resumed.value.pending,
      results: resumed.value.responses.map((r) => ({ id: r.id, content: r.content })),
    };
    return [200, view] as const;
  }

  async function save(
    conversation: StoredConversation,
    result: RunResult,
  ): Promise<[number, TurnView | { error: string }]> {
    const saved = await store.save(conversation);
    // Another request saved this conversation first (say, the same answer twice at once): the
    // client reloads and sees where the turn stands now.
    if (saved.isErr())
      return [saved.error.kind === "conflict" ? 409 : 500, { error: saved.error.message }];
    const view: TurnView = {
      conversation: conversation.name,
      pending: result.pending,
      results: result.responses.map((r) => ({ id: r.id, content: r.content })),
    };
    return [200, view];
  }

  return createServer((request, response) => {
    void route(request)
      .then(([status, body]) => send(response, status, body))
      .catch((cause: unknown) => send(response, 500, { error: String(cause) }));
  });

  async function route(request: IncomingMessage): Promise<readonly [number, unknown]> {
    if (!hosts.has(hostName(request.headers.host))) {
      return [421, { error: "this server does not answer for that host name" }];
    }
    if (request.method !== "POST") return [405, { error: "POST only" }];
    // Any web page the person visits can make their browser post here, and answer their pending
    // questions as them. A browser names the page's origin: only this server's own is taken (a
    // program such as curl sends none). A JSON body also cannot come from a plain form.
    if (!sameOrigin(request)) return [403, { error: "requests from other sites are refused" }];
    if (!isJson(request)) return [415, { error: "the body must be application/json" }];
    const body = await readJson(request);
    if (body === "too_large") {
      return [413, { error: `the body must be at most ${MAX_BODY_BYTES} bytes` }];
    }
    if (body === undefined) return [400, { error: "the body must be a JSON object" }];
    if (request.url === "/turns") return startTurn(body);
    const match = /^\/turns\/([\w-]+)\/answers$/.exec(request.url ?? "");
    if (match?.[1] !== undefined) return answer(match[1], body);
    return [404, { error: "no such route" }];
  }
}

/** The host name a request is addressed to, without the port, in lower case. */
function hostName(host: string | undefined): string {
  if (host === undefined) return "";
  try {
    return new URL(`http://${host}`).hostname.toLowerCase();
  } catch {
    return "";
  }
}

/** Whether a browser sent the request from this server's own origin, or a program sent it. */
function sameOrigin(request: IncomingMessage): boolean {
  const origin = request.headers.origin;
  if (origin === undefined) {
    const site = request.headers["sec-fetch-site"];
    return site === undefined || site === "same-origin" || site === "none";
  }
  return origin === `http://${request.headers.host}`;
}

function isJson(request: IncomingMessage): boolean {
  const type = request.headers["content-type"];
  return type !== undefined && /^application\/json\s*(;|$)/i.test(type);
}

/** The body as a JSON object; `undefined` when it is not one, `"too_large"` over the limit. */
async function readJson(
  request: IncomingMessage,
): Promise<Record<string, unknown> | undefined | "too_large"> {
  if (Number(request.headers["content-length"]) > MAX_BODY_BYTES) return "too_large";
  // Bytes first, decoded once: a character's bytes may arrive in two chunks.
  const bytes = await new Promise<Buffer | "too_large">((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
      else {
        // The rest is let through unread, not kept, so the refusal still reaches the client.
        request.off("data", onData);
        resolve("too_large");
      }
    };
    request.on("data", onData);
    request.once("end", () => resolve(Buffer.concat(chunks)));
    request.once("error", reject);
    // A client that went away before the end: nothing to answer (after the end, a no-op).
    request.once("close", () => reject(new Error("the request was closed before its end")));
  });
  if (bytes === "too_large") return bytes;
  try {
    const value: unknown = JSON.parse(bytes.toString("utf8"));
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

function send(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify(body));
}
