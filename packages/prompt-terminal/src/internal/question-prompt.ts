import type { QuestionPromptRequest, QuestionReply } from "@jp/coordinator";
import type { AnswerType, JsonValue } from "@jp/tool";
import {
  answerOrControl,
  type Control,
  controlByKey,
  controlMenuItems,
  controlReply,
  offeredControls,
} from "./controls.js";
import { askSchema, askSecret, askText } from "./free-form.js";
import type { KeyChoice } from "./prompts/key-prompt.js";
import { joinSafe, type SafeText, safe, styled, untrusted } from "./safe-text.js";
import type { TerminalUi } from "./terminal-ui.js";

type Of<T extends AnswerType["type"]> = Extract<AnswerType, { type: T }>;

/** What every answer-type flow receives. */
export interface QuestionFlow<T extends AnswerType["type"] = AnswerType["type"]> {
  readonly ui: TerminalUi;
  readonly request: QuestionPromptRequest;
  readonly answerType: Of<T>;
  /** The prompt line: the question's (first line of) text. */
  readonly message: SafeText;
  readonly offered: readonly Control[];
  /** `initial` if given, else the question's default; never set for secrets. */
  readonly prefill: JsonValue | undefined;
}

/** Prints the header, then runs the flow of the question's answer type. */
export async function askQuestion(
  ui: TerminalUi,
  request: QuestionPromptRequest,
): Promise<QuestionReply> {
  const { question } = request;
  const [first = "", ...rest] = question.text.split("\n");
  const header = questionHeader(request, rest.join("\n").trim());
  if (header !== "") ui.print(header);
  const flow = {
    ui,
    request,
    answerType: question.answer_type,
    message: untrusted(first),
    offered: offeredControls(request.controls),
    prefill:
      question.answer_type.type === "secret" ? undefined : (request.initial ?? question.default),
  };
  switch (flow.answerType.type) {
    case "boolean":
      return askBoolean(flow as QuestionFlow<"boolean">);
    case "select":
      return askSelect(flow as QuestionFlow<"select">);
    case "multi_select":
      return askMultiSelect(flow as QuestionFlow<"multi_select">);
    case "text":
      return askText(flow as QuestionFlow<"text">);
    case "secret":
      return askSecret(flow as QuestionFlow<"secret">);
    case "schema":
      return askSchema(flow as QuestionFlow<"schema">);
  }
}

/**
 * `Assistant [2/3]`, then the context, then the rest of a multi-line question text, then why the
 * previous answer was rejected. Every part is model-controlled and neutralized.
 */
export function questionHeader(request: QuestionPromptRequest, moreText: string): SafeText {
  const lines: SafeText[] = [];
  const { prompt_label: label, progress, question, error } = request;
  const title: SafeText[] = [];
  if (label !== undefined && label !== "") title.push(styled("bold", untrusted(label)));
  if (progress !== undefined && progress.total > 1) {
    title.push(styled("dim", safe`[${progress.index}/${progress.total}]`));
  }
  if (title.length > 0) lines.push(joinSafe(title, safe` `));
  if (question.context !== undefined && question.context !== "") {
    lines.push(untrusted(question.context, { multiline: true }));
  }
  if (moreText !== "") lines.push(untrusted(moreText, { multiline: true }));
  if (error !== undefined && error !== "") {
    lines.push(styled("red", safe`✖ Previous answer rejected: ${untrusted(error)}`));
  }
  return joinSafe(lines, safe`\n`);
}

interface BooleanKey extends KeyChoice {
  readonly value: boolean;
  readonly remember?: true;
}

/** git-style keys of a yes/no question; the uppercase ones remember the answer for the turn. */
const BOOLEAN_KEYS: readonly BooleanKey[] = [
  { key: "y", label: safe`yes`, value: true },
  { key: "Y", label: safe`yes + remember for turn`, value: true, remember: true },
  { key: "n", label: safe`no`, value: false },
  { key: "N", label: safe`no + remember for turn`, value: false, remember: true },
];

async function askBoolean(flow: QuestionFlow<"boolean">): Promise<QuestionReply> {
  const { ui, request, offered, prefill } = flow;
  const answers = BOOLEAN_KEYS.filter((k) => k.remember !== true || request.controls.remember);
  const choices: KeyChoice[] = [...answers, ...offered];
  const fallback = typeof prefill === "boolean" ? (prefill ? "y" : "n") : undefined;
  const key = await ui.keys({ message: flow.message, choices, default: fallback });
  const answer = answers.find((k) => k.key === key);
  if (answer !== undefined) {
    return answer.remember === true
      ? { type: "answer", value: answer.value, remember: true }
      : { type: "answer", value: answer.value };
  }
  const control = controlByKey(offered, key);
  if (control === undefined) throw new Error(`unexpected key ${JSON.stringify(key)}`);
  return controlReply(ui, control);
}

async function askSelect(flow: QuestionFlow<"select">): Promise<QuestionReply> {
  const { ui, answerType, offered, prefill } = flow;
  const { options } = answerType;
  const items = [
    ...options.map((option, index) => ({
      label: untrusted(option),
      ...(index < 9 ? { key: String(index + 1) } : {}),
    })),
    ...controlMenuItems(offered),
  ];
  const preselected = typeof prefill === "string" ? options.indexOf(prefill) : -1;
  const picked = await ui.menu({
    message: flow.message,
    items,
    default: preselected >= 0 ? preselected : undefined,
  });
  const option = options[picked];
  if (option !== undefined) return { type: "answer", value: option };
  const control = offered[picked - options.length];
  if (control === undefined) throw new Error(`unexpected menu index ${picked}`);
  return controlReply(ui, control);
}

async function askMultiSelect(flow: QuestionFlow<"multi_select">): Promise<QuestionReply> {
  const { ui, answerType, offered, prefill } = flow;
  const { options } = answerType;
  const chosen = Array.isArray(prefill) ? prefill : [];
  let checked = options.map((option) => chosen.includes(option));
  const escapeHint =
    offered.length === 0
      ? undefined
      : joinSafe(
          offered.map((control) => control.label),
          safe` / `,
        );
  for (;;) {
    const result = await ui.checklist({
      message: flow.message,
      options: options.map((option) => untrusted(option)),
      checked,
      escapeHint,
    });
    if (result.type === "submit") {
      return { type: "answer", value: options.filter((_, index) => result.checked[index]) };
    }
    checked = [...result.checked];
    const next = await answerOrControl(ui, flow.message, offered);
    if (next !== "answer") return next;
  }
}
