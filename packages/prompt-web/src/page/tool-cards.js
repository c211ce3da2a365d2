// @ts-check
// Whether a tool may run (permission) and whether its result goes to the assistant (deliver).
import { actions, cancelButton, cardFrame, panel, textArea } from "./card-parts.js";
import { button, checkbox, h, prettyJson } from "./dom.js";

/** @typedef {import("@jp/coordinator").PermissionPromptRequest} PermissionPromptRequest */
/** @typedef {import("@jp/coordinator").DeliverPromptRequest} DeliverPromptRequest */
/** @typedef {import("./card-parts.js").Card} Card */
/** @typedef {import("./api.js").SendResult} SendResult */

/** Words for the `tool_source` values the coordinator uses; others are shown as they are. */
const SOURCE_WORDS = new Map([["builtin", "built-in"]]);

/**
 * Run, skip (with an optional reason), or edit the arguments as JSON first. No button is
 * focused at first, so a stray Enter never runs a tool.
 * @param {PermissionPromptRequest} request
 * @param {(reply: unknown) => Promise<SendResult>} send
 * @returns {Card}
 */
export function permissionCard(request, send) {
  const source = request.tool_source
    ? `${SOURCE_WORDS.get(request.tool_source) ?? request.tool_source} `
    : "";
  const heading = h("h3", {}, `Run ${source}tool `, h("code", {}, request.tool_name), "?");
  const frame = cardFrame({ kind: "permission", heading, send });
  frame.heading.before(h("p", { class: "meta" }, h("span", { class: "label" }, "Permission")));
  const remember = checkbox("Remember for this turn", false);
  const withRemember = (/** @type {Record<string, unknown>} */ reply) =>
    remember.input.checked ? { ...reply, remember: true } : reply;

  const reason = textArea("Reason for skipping (optional)");
  const reasonPanel = panel(
    "Skip with a reason",
    reason.element,
    actions(
      button(
        "Skip",
        () => {
          const text = reason.area.value;
          void frame.submit(
            withRemember(text.trim() === "" ? { type: "skip" } : { type: "skip", reason: text }),
          );
        },
        { class: "primary" },
      ),
      button("Close", () => reasonPanel.close(), { class: "quiet" }),
    ),
  );

  const editor = textArea("Arguments (a JSON object)", {
    value: prettyJson(request.arguments),
    rows: 8,
    code: true,
  });
  const runEdited = () => {
    const parsed = parseObject(editor.area.value);
    if (!parsed.ok) {
      editor.setError(parsed.message);
      editor.area.focus();
      return;
    }
    editor.setError(undefined);
    const unchanged = JSON.stringify(parsed.value) === JSON.stringify(request.arguments);
    void frame.submit(
      unchanged ? { type: "run" } : { type: "edit", arguments: parsed.value },
      (problem) => {
        editor.setError(problem.message);
        return true;
      },
    );
  };
  const editPanel = panel(
    "Edit the arguments",
    editor.element,
    actions(
      button("Run with these arguments", runEdited, { class: "primary" }),
      button("Close", () => editPanel.close(), { class: "quiet" }),
    ),
  );

  frame.append(
    h(
      "pre",
      { class: "arguments", tabindex: "0", "aria-label": "Arguments" },
      prettyJson(request.arguments),
    ),
    remember.wrapper,
    actions(
      button("Run", () => void frame.submit(withRemember({ type: "run" })), { class: "primary" }),
      button("Skip", () => void frame.submit(withRemember({ type: "skip" }))),
    ),
    actions(
      button("Skip with a reason…", () => reasonPanel.open(reason.area)),
      button("Edit arguments…", () => editPanel.open(editor.area)),
      cancelButton(frame),
    ),
    reasonPanel.element,
    editPanel.element,
  );
  if (request.mode === "edit") editPanel.open(undefined);
  return {
    element: frame.element,
    focus: () => (request.mode === "edit" ? editor.area : frame.heading).focus(),
    dispose: () => {},
  };
}

/**
 * Deliver (the default), skip, or edit the result first. An emptied or unchanged edit delivers
 * the original, as in the terminal.
 * @param {DeliverPromptRequest} request
 * @param {(reply: unknown) => Promise<SendResult>} send
 * @returns {Card}
 */
export function deliverCard(request, send) {
  const what = request.is_error ? "error result" : "result";
  const heading = h(
    "h3",
    {},
    "Deliver the ",
    what,
    " of ",
    h("code", {}, request.tool_name),
    " to the assistant?",
  );
  const frame = cardFrame({ kind: "deliver", heading, send });
  frame.heading.before(h("p", { class: "meta" }, h("span", { class: "label" }, "Tool result")));
  const editor = textArea("Result to deliver", { value: request.content, rows: 8, code: true });
  const deliverEdited = () => {
    const text = editor.area.value;
    const unchanged = text.trim() === "" || text === request.content;
    void frame.submit(unchanged ? { type: "deliver" } : { type: "edit", content: text });
  };
  const editPanel = panel(
    "Edit the result",
    editor.element,
    actions(
      button("Deliver edited result", deliverEdited, { class: "primary" }),
      button("Close", () => editPanel.close(), { class: "quiet" }),
    ),
  );
  const deliver = button("Deliver", () => void frame.submit({ type: "deliver" }), {
    class: "primary",
  });
  frame.append(
    h("pre", { class: "result", tabindex: "0", "aria-label": "Result" }, request.content),
    actions(
      deliver,
      button("Skip", () => void frame.submit({ type: "skip" })),
      button("Edit…", () => editPanel.open(editor.area)),
      cancelButton(frame),
    ),
    editPanel.element,
  );
  if (request.mode === "edit") editPanel.open(undefined);
  return {
    element: frame.element,
    focus: () => (request.mode === "edit" ? editor.area : deliver).focus(),
    dispose: () => {},
  };
}

/**
 * @param {string} text
 * @returns {{ ok: true, value: Record<string, unknown> } | { ok: false, message: string }}
 */
function parseObject(text) {
  let value;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    return {
      ok: false,
      message: `Not valid JSON: ${cause instanceof Error ? cause.message : "parse error"}`,
    };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { ok: false, message: 'The arguments must be a JSON object, like {"path": "a.txt"}.' };
  }
  return { ok: true, value };
}
