// A web server whose turns wait for a person without any process waiting. One request starts a
// turn; the assistant's tool asks a question; the turn is suspended and saved, and the response
// carries the pending question. A later request, to any instance of the server, answers it; the
// turn resumes and either finishes or returns the next question. Nothing lives in memory between
// requests: the conversation on disk is the only state.
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

export function createTurnServer(root: string): Server {
  const store = new FileConversationStore(root);
  const coordinatorFor = (conversation: StoredConversation) =>
    new ToolCoordinator({
      stream: conversation.stream,
      tools: builtinToolConfigs(),
      executors: builtinExecutorSource({ ask_user: askUser }),
    });

  // POST /turns {"message": "..."}: starts a turn; returns what it waits for.
  async function startTurn(body: { message?: unknown }): Promise<[number, unknown]> {
    if (typeof body.message !== "string") return [400, { error: '"message" must be a string' }];
    const conversation = store.create({ title: "web turn" });
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
    if (request.method !== "POST") return [405, { error: "POST only" }];
    const body = await readJson(request);
    if (body === undefined) return [400, { error: "the body must be a JSON object" }];
    if (request.url === "/turns") return startTurn(body);
    const match = /^\/turns\/([\w-]+)\/answers$/.exec(request.url ?? "");
    if (match?.[1] !== undefined) return answer(match[1], body);
    return [404, { error: "no such route" }];
  }
}

async function readJson(request: IncomingMessage): Promise<Record<string, unknown> | undefined> {
  let text = "";
  for await (const chunk of request) {
    text += String(chunk);
    if (text.length > 64 * 1024) return undefined;
  }
  try {
    const value: unknown = JSON.parse(text);
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
