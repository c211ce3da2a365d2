// @ts-check
// The prompt page: shows the waiting prompts of every conversation, live, and sends the person's
// replies. A conversation's prompts come one at a time; the ones behind it are listed with how
// long they have waited. Cards are kept while their prompt is open, so an update never wipes
// what the person is typing.
import { listen, readToken, sendReply } from "./api.js";
import { formatDuration, h } from "./dom.js";
import { questionCard } from "./question-card.js";
import { deliverCard, permissionCard } from "./tool-cards.js";

/** @typedef {import("./api.js").BoardSnapshot} BoardSnapshot */
/** @typedef {BoardSnapshot["conversations"][number]} ConversationView */
/** @typedef {ConversationView["prompts"][number]} PromptView */
/** @typedef {import("./card-parts.js").Card} Card */

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
  const present = new Set(snapshot.conversations.map((conversation) => conversation.id));
  for (const [id, section] of sections) {
    if (present.has(id)) continue;
    section.active?.card.dispose();
    section.element.remove();
    sections.delete(id);
  }
  for (const conversation of snapshot.conversations) renderConversation(token, conversation);
  const count = snapshot.conversations.reduce((sum, c) => sum + c.prompts.length, 0);
  idle.hidden = count > 0;
  document.title = count > 0 ? `(${count}) Prompts` : "Prompts";
  updateWaitingTimes();
}

/**
 * @param {string} token
 * @param {ConversationView} conversation
 */
function renderConversation(token, conversation) {
  let section = sections.get(conversation.id);
  if (section === undefined) {
    const title = h("h2", {});
    const slot = h("div", { class: "active" });
    const waiting = h("ul", { class: "waiting", "aria-label": "Waiting their turn" });
    const element = h("section", { class: "conversation" }, title, slot, waiting);
    section = { element, title, slot, waiting, active: undefined };
    sections.set(conversation.id, section);
    board.append(element);
  }
  section.title.textContent = conversation.title ?? `Conversation ${conversation.id}`;
  const [first, ...rest] = conversation.prompts;
  if (first !== undefined && section.active?.id !== first.id) showActive(token, section, first);
  section.waiting.replaceChildren(...rest.map(waitingItem));
  section.waiting.hidden = rest.length === 0;
}

/**
 * Replaces the section's card with the new active prompt's. The keyboard moves to the new card
 * only when it was on the old one or nowhere, so a prompt arriving elsewhere never steals it.
 * @param {string} token
 * @param {Section} section
 * @param {PromptView} prompt
 */
function showActive(token, section, prompt) {
  const focused = document.activeElement;
  const takeFocus = focused === null || focused === document.body || section.slot.contains(focused);
  section.active?.card.dispose();
  const send = (/** @type {unknown} */ reply) => sendReply(token, prompt.id, reply);
  const card = cardFor(prompt, send);
  const since = h("p", { class: "since", "data-since": String(prompt.opened_at) });
  card.element.append(since);
  section.slot.replaceChildren(card.element);
  section.active = { id: prompt.id, card };
  if (takeFocus) card.focus();
}

/**
 * @param {PromptView} prompt
 * @param {(reply: unknown) => ReturnType<typeof sendReply>} send
 * @returns {Card}
 */
function cardFor(prompt, send) {
  const { request } = prompt;
  switch (request.kind) {
    case "question":
      return questionCard(request, send);
    case "permission":
      return permissionCard(request, send);
    case "deliver":
      return deliverCard(request, send);
  }
}

/**
 * One line per prompt waiting its turn: what it is and how long it has waited.
 * @param {PromptView} prompt
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
    h("span", { class: "since", "data-since": String(prompt.opened_at) }),
  );
}

function updateWaitingTimes() {
  const now = Date.now() + clockOffset;
  for (const element of document.querySelectorAll("[data-since]")) {
    const since = Number(element.getAttribute("data-since"));
    element.textContent = `waiting ${formatDuration(now - since)}`;
  }
}
