import type { PromptRequest, QuestionPromptRequest } from "@jp/coordinator";
import type { StandaloneWebPrompts } from "../../src/index.js";
import type { BoardSnapshot } from "../../src/internal/prompt-board.js";

/** The server's origin (`http://127.0.0.1:port`) and the API's base URL. */
export function originOf(web: StandaloneWebPrompts): string {
  return new URL(web.url).origin;
}

/** Calls the API the way the page does: the token as a bearer header, JSON bodies. */
export function api(
  web: StandaloneWebPrompts,
  path: string,
  init: RequestInit & { readonly token?: string | null } = {},
): Promise<Response> {
  const { token = web.token, headers, ...rest } = init;
  return fetch(`${originOf(web)}/api/${path}`, {
    ...rest,
    headers: {
      ...(token === null ? {} : { Authorization: `Bearer ${token}` }),
      ...(rest.body === undefined ? {} : { "Content-Type": "application/json" }),
      ...(headers as Record<string, string> | undefined),
    },
  });
}

/** Posts a reply to prompt `id` from the page's own origin. */
export function postReply(
  web: StandaloneWebPrompts,
  id: string,
  reply: unknown,
  init: RequestInit & { readonly token?: string | null } = {},
): Promise<Response> {
  return api(web, `prompts/${id}/reply`, {
    method: "POST",
    body: JSON.stringify(reply),
    ...init,
    headers: { Origin: originOf(web), ...(init.headers as Record<string, string> | undefined) },
  });
}

/** Asks `request` on the default conversation; resolves once the prompt is on the board. */
export async function openPrompt(web: StandaloneWebPrompts, request: PromptRequest) {
  const abort = new AbortController();
  const opened = new Promise<string>((resolve) =>
    web.once("prompt-opened", (event) => resolve(event.promptId)),
  );
  const reply = web.backend().ask(request, { signal: abort.signal });
  return { id: await opened, reply, abort };
}

/**
 * A page's live connection, from Node: opens the event stream and collects every snapshot.
 * `close()` ends it as a closed tab would.
 */
export async function liveConnection(web: StandaloneWebPrompts) {
  const abort = new AbortController();
  const response = await api(web, "events", { signal: abort.signal });
  const snapshots: unknown[] = [];
  const raw: string[] = [];
  const reader = response.body?.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  const pump = (async () => {
    try {
      for (;;) {
        const chunk = await reader?.read();
        if (chunk === undefined || chunk.done) return;
        const text = decoder.decode(chunk.value, { stream: true });
        raw.push(text);
        buffer += text;
        for (let end = buffer.indexOf("\n\n"); end !== -1; end = buffer.indexOf("\n\n")) {
          const data = buffer
            .slice(0, end)
            .split("\n")
            .find((line) => line.startsWith("data: "));
          buffer = buffer.slice(end + 2);
          if (data !== undefined) snapshots.push(JSON.parse(data.slice(6)));
        }
      }
    } catch {
      // Closed.
    }
  })();
  return {
    response,
    snapshots,
    raw,
    async close() {
      abort.abort();
      await pump;
    },
  };
}

export const TEXT_QUESTION: QuestionPromptRequest = {
  kind: "question",
  tool_name: "ask_user",
  tool_call_id: "call_1",
  inquiry_id: "call_1.answer.1",
  question: { id: "answer", text: "Name?", answer_type: { type: "text" } },
  controls: { remember: false, back: false, reply: false, end_turn: false },
};

/** The waiting prompts, as the page sees them. */
export async function state(web: StandaloneWebPrompts): Promise<BoardSnapshot> {
  return (await api(web, "state")).json() as Promise<BoardSnapshot>;
}
