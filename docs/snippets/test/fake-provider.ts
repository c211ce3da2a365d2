// A stand-in for the Anthropic and OpenAI HTTP APIs, so the snippets run as they are written
// (the official clients read ANTHROPIC_BASE_URL and OPENAI_BASE_URL). Each API first calls
// ask_user with one select question, then, once it has the result, replies with text quoting it.
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** The question the fake model asks through ask_user. */
export const FAKE_QUESTION = {
  question: "Which version bump is next?",
  answer_type: "select",
  options: ["patch", "minor", "major"],
};

/** The fake model's last words, which quote the tool result. */
export const FAKE_DONE = "Noted:";

type Body = Record<string, unknown>;

function anthropic(body: Body): object {
  const messages = body.messages as { content: { type: string; content?: string }[] }[];
  const result = messages.flatMap((m) => m.content).find((b) => b.type === "tool_result");
  const content =
    result === undefined
      ? [{ type: "tool_use", id: "toolu_1", name: "ask_user", input: FAKE_QUESTION }]
      : [{ type: "text", text: `${FAKE_DONE} ${result.content}` }];
  return {
    id: "msg_1",
    type: "message",
    role: "assistant",
    model: String(body.model),
    content,
    stop_reason: result === undefined ? "tool_use" : "end_turn",
    stop_sequence: null,
    usage: { input_tokens: 1, output_tokens: 1 },
  };
}

function chat(body: Body): object {
  const messages = body.messages as { role: string; content: string }[];
  const result = messages.find((m) => m.role === "tool");
  // A structured-output request (an inquiry) gets an answer that fits the schema.
  const format = body.response_format as
    | {
        type?: string;
        json_schema?: { schema?: { properties?: { answer?: { enum?: unknown[] } } } };
      }
    | undefined;
  const choice = format?.json_schema?.schema?.properties?.answer?.enum?.[0] ?? "minor";
  const message =
    format?.type === "json_schema"
      ? { role: "assistant", content: JSON.stringify({ answer: choice }) }
      : result === undefined
        ? {
            role: "assistant",
            content: null,
            tool_calls: [
              {
                id: "call_1",
                type: "function",
                function: { name: "ask_user", arguments: JSON.stringify(FAKE_QUESTION) },
              },
            ],
          }
        : { role: "assistant", content: `${FAKE_DONE} ${result.content}` };
  return {
    id: "chatcmpl_1",
    object: "chat.completion",
    created: 0,
    model: String(body.model),
    choices: [{ index: 0, message, finish_reason: "stop" }],
  };
}

function responses(body: Body): object {
  const input = body.input as { type?: string; output?: string }[];
  const result = input.find((item) => item.type === "function_call_output");
  const output =
    result === undefined
      ? [
          {
            type: "function_call",
            id: "fc_1",
            call_id: "call_1",
            name: "ask_user",
            arguments: JSON.stringify(FAKE_QUESTION),
            status: "completed",
          },
        ]
      : [
          {
            type: "message",
            id: "msg_1",
            role: "assistant",
            status: "completed",
            content: [
              { type: "output_text", text: `${FAKE_DONE} ${result.output}`, annotations: [] },
            ],
          },
        ];
  return {
    id: "resp_1",
    object: "response",
    created_at: 0,
    model: body.model,
    status: "completed",
    output,
  };
}

const ROUTES: Readonly<Record<string, (body: Body) => object>> = {
  "/v1/messages": anthropic,
  "/v1/chat/completions": chat,
  "/v1/responses": responses,
};

async function read(request: IncomingMessage): Promise<Body> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString("utf8")) as Body;
}

/** A running fake, with the environment that points the official clients at it. */
export interface FakeProvider {
  readonly env: Readonly<Record<string, string>>;
  /** Every request body, by path. */
  readonly requests: { path: string; body: Body }[];
  close(): Promise<void>;
}

export async function startFakeProvider(): Promise<FakeProvider> {
  const requests: { path: string; body: Body }[] = [];
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? "").split("?")[0] ?? "";
    const route = ROUTES[path];
    read(request).then(
      (body) => {
        requests.push({ path, body });
        response.writeHead(route === undefined ? 404 : 200, { "content-type": "application/json" });
        response.end(
          JSON.stringify(route === undefined ? { error: "no such route" } : route(body)),
        );
      },
      () => {
        response.writeHead(400);
        response.end();
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const base = `http://127.0.0.1:${port}`;
  return {
    env: {
      ANTHROPIC_BASE_URL: base,
      ANTHROPIC_API_KEY: "test-key",
      OPENAI_BASE_URL: `${base}/v1`,
      OPENAI_API_KEY: "test-key",
    },
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
