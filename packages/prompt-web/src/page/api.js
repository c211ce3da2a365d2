// @ts-check
// Talks to the prompt server: the session token, the live event stream and replies.

/** @typedef {import("../internal/prompt-board.js").BoardSnapshot} BoardSnapshot */
/** @typedef {import("../internal/reply-check.js").ReplyProblem} ReplyProblem */

const TOKEN_KEY = "jp-prompt-web-token";

/**
 * The session token: from the link's `#token=` fragment the first time, then from this tab's
 * session storage. The fragment is removed from the address bar so the token does not stay in
 * history, bookmarks or screen shares.
 * @returns {string | null}
 */
export function readToken() {
  const fragment = new URLSearchParams(location.hash.slice(1));
  const token = fragment.get("token");
  if (token !== null && token !== "") {
    sessionStorage.setItem(TOKEN_KEY, token);
    history.replaceState(null, "", `${location.pathname}${location.search}`);
    return token;
  }
  return sessionStorage.getItem(TOKEN_KEY);
}

/** @typedef {"live" | "reconnecting" | "refused"} ConnectionStatus */

/**
 * Listens to the server's live updates (Server-Sent Events, read with fetch so the token goes in
 * a header, never in a URL), reconnecting after a second when the stream breaks.
 * @param {string} token
 * @param {{ onState: (snapshot: BoardSnapshot) => void, onStatus: (status: ConnectionStatus) => void }} handlers
 */
export async function listen(token, { onState, onStatus }) {
  for (;;) {
    try {
      const response = await fetch("api/events", {
        headers: { Authorization: `Bearer ${token}`, Accept: "text/event-stream" },
        cache: "no-store",
      });
      if (response.status === 401) {
        onStatus("refused");
        return;
      }
      if (response.ok && response.body !== null) {
        onStatus("live");
        await readEvents(response.body, onState);
      }
    } catch {
      // A dropped connection: try again below.
    }
    onStatus("reconnecting");
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

/**
 * @param {ReadableStream<Uint8Array>} body
 * @param {(snapshot: BoardSnapshot) => void} onState
 */
async function readEvents(body, onState) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, "\n");
    for (let end = buffer.indexOf("\n\n"); end !== -1; end = buffer.indexOf("\n\n")) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const lines = block.split("\n");
      const event = lines
        .find((line) => line.startsWith("event:"))
        ?.slice(6)
        .trim();
      const data = lines
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(5).replace(/^ /, ""))
        .join("\n");
      if (event === "state" && data !== "") onState(JSON.parse(data));
    }
  }
}

/**
 * @typedef {{ type: "accepted" }
 *   | { type: "refused", status: number, problem: ReplyProblem }
 *   | { type: "offline" }} SendResult
 */

/**
 * Posts a reply to live prompt `id`. The body is JSON in a POST, so an answer (a secret too)
 * never appears in a URL.
 * @param {string} token
 * @param {string} id
 * @param {unknown} reply
 * @returns {Promise<SendResult>}
 */
export function sendReply(token, id, reply) {
  return post(token, `api/prompts/${encodeURIComponent(id)}/reply`, reply);
}

/**
 * Posts a reply to prompt `promptId` of a stored conversation (the inbox).
 * @param {string} token
 * @param {string} conversation
 * @param {string} promptId
 * @param {unknown} reply
 * @returns {Promise<SendResult>}
 */
export function sendInboxReply(token, conversation, promptId, reply) {
  return post(token, "api/inbox/reply", { conversation, prompt_id: promptId, reply });
}

/**
 * @param {string} token
 * @param {string} path
 * @param {unknown} body
 * @returns {Promise<SendResult>}
 */
async function post(token, path, body) {
  let response;
  try {
    response = await fetch(path, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: JSON.stringify(body),
      cache: "no-store",
    });
  } catch {
    return { type: "offline" };
  }
  if (response.ok) return { type: "accepted" };
  /** @type {ReplyProblem} */
  let problem = { message: `the server refused the reply (HTTP ${response.status})` };
  try {
    const body = await response.json();
    if (body !== null && typeof body === "object" && typeof body.error?.message === "string") {
      problem = body.error;
    }
  } catch {
    // Not JSON: keep the generic message.
  }
  return { type: "refused", status: response.status, problem };
}
