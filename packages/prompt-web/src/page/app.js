// @ts-check
// The prompt page: shows the waiting prompts of every conversation, live, and those waiting in a
// store (suspended turns, hosts elsewhere) when the server has an inbox, and sends the person's
// replies. A conversation's prompts come one at a time; the ones behind it are listed with how
// long they have waited. Cards are kept while their prompt is open, so an update never wipes
// what the person is typing.
import { listen, readToken, sendInboxReply, sendReply } from "./api.js";
import { formatDuration, h } from "./dom.js";
import { questionCard } from "./question-card.js";
import { deliverCard, permissionCard } from "./tool-cards.js";

/** @typedef {import("./api.js").BoardSnapshot} BoardSnapshot */
/** @typedef {NonNullable<BoardSnapshot["inbox"]>} InboxView */
/** @typedef {import("./card-parts.js").Card} Card */
/** @typedef {import("./api.js").SendResult} SendResult */
/** @typedef {import("@jp/coordinator").PromptRequest} PromptRequest */

/**
 * A prompt as the page shows it, live or stored.
 * @typedef {object} PromptItem
 * @property {string} id
 * @property {number} since When it started waiting (server clock, ms).
 * @property {PromptRequest} request
 * @property {(reply: unknown) => Promise<SendResult>} send
 * @property {{ deadline?: number, state: "suspended" | "live" }} [stored] For a stored prompt.
 */

/**
 * A conversation's prompts as the page shows them.
 * @typedef {object} ConversationItem
 * @property {string} key `live:<id>` or `inbox:<name>`.
 * @property {string} title
 * @property {string | undefined} tag
 * @property {PromptItem[]} prompts
 */

/**
 * @typedef {object} Section
 * @property {HTMLElement} element
 * @property {HTMLElement} title
 * @property {HTMLElement} slot Where the active prompt's card goes.
 * @property {HTMLElement} waiting The list of prompts waiting their turn.
 * @property {{ id: string, card: Card } | undefined} active
 */

const board = /** @type {HTMLElement} */ (document.getElementById("board"));
const idle = /** @type {HTMLElement} */ (document.getElementById("idle"));
const connection = /** @type {HTMLElement} */ (document.getElementById("connection"));
const inboxStatus = /** @type {HTMLElement} */ (document.getElementById("inbox-status"));

/** @type {Map<string, Section>} */
const sections = new Map();
/** The server's clock minus ours, so waiting times are right even when the clocks differ. */
let clockOffset = 0;

const CONNECTION_TEXT = {
  live: "Connected",
  reconnecting: "Connection lost, reconnecting…",
  refused: "This link is not valid any more. Open the link the application printed.",
};

const token = readToken();
if (token === null) {
  connection.textContent =
    "No session token. Open the link the application printed (it ends in #token=…).";
  connection.className = "connection connection-error";
} else {
  void listen(token, {
    onState: (snapshot) => render(token, snapshot),
    onStatus: (status) => {
      connection.textContent = CONNECTION_TEXT[status];
      connection.className = `connection connection-${status}`;
    },
  });
  setInterval(updateWaitingTimes, 1000);
}

/**
 * @param {string} token
 * @param {BoardSnapshot} snapshot
 */
function render(token, snapshot) {
  clockOffset = snapshot.now - Date.now();
  /** @type {ConversationItem[]} */
  const items = snapshot.conversations.map((conversation) => ({
    key: `live:${conversation.id}`,
    title: conversation.title ?? `Conversation ${conversation.id}`,
    tag: undefined,
    prompts: conversation.prompts.map((prompt) => ({
      id: prompt.id,
      since: prompt.opened_at,
      request: prompt.request,
      send: (/** @type {unknown} */ reply) => sendReply(token, prompt.id, reply),
    })),
  }));
  if (snapshot.inbox !== undefined) items.push(...inboxItems(token, snapshot.inbox));
  const present = new Set(items.map((item) => item.key));
  for (const [key, section] of sections) {
    if (present.has(key)) continue;
    section.active?.card.dispose();
    section.element.remove();
    sections.delete(key);
  }
  for (const item of items) renderConversation(item);
  showInboxStatus(snapshot.inbox);
  const count = items.reduce((sum, item) => sum + item.prompts.length, 0);
  idle.hidden = count > 0;
  document.title = count > 0 ? `(${count}) Prompts` : "Prompts";
  updateWaitingTimes();
}

/**
 * The stored conversations, each answered through the inbox endpoint.
 * @param {string} token
 * @param {InboxView} inbox
 * @returns {ConversationItem[]}
 */
function inboxItems(token, inbox) {
  return inbox.conversations.map((conversation) => ({
    key: `inbox:${conversation.id}`,
    title: conversation.title ?? `Conversation ${conversation.id}`,
    tag: conversation.prompts[0]?.state === "live" ? "a host is waiting" : "suspended turn, saved",
    prompts: conversation.prompts.map((prompt) => ({
      id: prompt.id,
      since: prompt.since,
      request: prompt.request,
      send: (/** @type {unknown} */ reply) =>
        sendInboxReply(token, conversation.id, prompt.id, reply),
      stored: {
        state: prompt.state,
        ...(prompt.deadline === undefined ? {} : { deadline: prompt.deadline }),
      },
    })),
  }));
}

/**
 * Says when the store cannot be read, and which conversations could not be.
 * @param {InboxView | undefined} inbox
 */
function showInboxStatus(inbox) {
  const lines = [];
  if (inbox?.status === "unavailable") {
    lines.push(`The stored prompts cannot be read now: ${inbox.message ?? "unknown problem"}`);
  }
  for (const { conversation, message } of inbox?.unreadable ?? []) {
    lines.push(`Conversation ${conversation} could not be read: ${message}`);
  }
  inboxStatus.textContent = lines.join("\n");
  inboxStatus.hidden = lines.length === 0;
}

/**
 * @param {ConversationItem} conversation
 */
function renderConversation(conversation) {
  let section = sections.get(conversation.key);
  if (section === undefined) {
    const title = h("h2", {});
    const slot = h("div", { class: "active" });
    const waiting = h("ul", { class: "waiting", "aria-label": "Waiting their turn" });
    const element = h("section", { class: "conversation" }, title, slot, waiting);
    section = { element, title, slot, waiting, active: undefined };
    sections.set(conversation.key, section);
    board.append(element);
  }
  section.title.replaceChildren(
    conversation.title,
    conversation.tag === undefined ? "" : " ",
    conversation.tag === undefined ? "" : h("span", { class: "tag" }, conversation.tag),
  );
  const [first, ...rest] = conversation.prompts;
  if (first !== undefined && section.active?.id !== first.id) showActive(section, first);
  section.waiting.replaceChildren(...rest.map(waitingItem));
  section.waiting.hidden = rest.length === 0;
}

/**
 * Replaces the section's card with the new active prompt's. The keyboard moves to the new card
 * only when it was on the old one or nowhere, so a prompt arriving elsewhere never steals it.
 * @param {Section} section
 * @param {PromptItem} prompt
 */
function showActive(section, prompt) {
  const focused = document.activeElement;
  const takeFocus = focused === null || focused === document.body || section.slot.contains(focused);
  section.active?.card.dispose();
  const card = cardFor(prompt);
  if (prompt.stored !== undefined) card.element.append(storedNote(prompt.stored));
  const since = h("p", { class: "since", "data-since": String(prompt.since) });
  card.element.append(since);
  section.slot.replaceChildren(card.element);
  section.active = { id: prompt.id, card };
  if (takeFocus) card.focus();
}

/**
 * What happens to an answer to a stored prompt, and its deadline.
 * @param {NonNullable<PromptItem["stored"]>} stored
 */
function storedNote({ state, deadline }) {
  const where =
    state === "live"
      ? "A program is waiting for this answer and goes on as soon as it is given."
      : "This turn is saved and waits for you: your answer is kept, and the turn goes on when it resumes.";
  let when = "";
  if (deadline !== undefined) {
    const at = new Date(deadline - clockOffset).toLocaleString();
    when =
      deadline <= Date.now() + clockOffset
        ? ` The deadline (${at}) has passed: without an answer, the turn's policy decides when it resumes.`
        : ` Answer by ${at}.`;
  }
  return h("p", { class: "stored-note" }, where, when);
}

/**
 * @param {PromptItem} prompt
 * @returns {Card}
 */
function cardFor(prompt) {
  const { request, send } = prompt;
  switch (request.kind) {
    case "question":
      return questionCard(request, send, { stored: prompt.stored !== undefined });
    case "permission":
      return permissionCard(request, send);
    case "deliver":
      return deliverCard(request, send);
  }
}

/**
 * One line per prompt waiting its turn: what it is and how long it has waited.
 * @param {PromptItem} prompt
 */
function waitingItem(prompt) {
  const { request } = prompt;
  const what =
    request.kind === "question"
      ? `Question: ${request.question.text}`
      : request.kind === "permission"
        ? `Permission to run ${request.tool_name}`
        : `Result of ${request.tool_name}`;
  return h(
    "li",
    {},
    h("span", { class: "what" }, what),
    " ",
    h("span", { class: "since", "data-since": String(prompt.since) }),
  );
}

function updateWaitingTimes() {
  const now = Date.now() + clockOffset;
  for (const element of document.querySelectorAll("[data-since]")) {
    const since = Number(element.getAttribute("data-since"));
    element.textContent = `waiting ${formatDuration(now - since)}`;
  }
}
