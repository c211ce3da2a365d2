import {
  createPrompt,
  isDownKey,
  isEnterKey,
  isSpaceKey,
  isUpKey,
  makeTheme,
  useKeypress,
  usePagination,
  usePrefix,
  useState,
} from "@inquirer/core";
import { joinSafe, type SafeText, safe, styled, terminalTheme } from "../safe-text.js";
import type { PromptFunction } from "../terminal.js";
import { typedCharacter } from "./key-prompt.js";

/** The configuration of a {@link checklistPrompt}. */
export interface ChecklistConfig {
  readonly message: SafeText;
  readonly options: readonly SafeText[];
  /** Which options start checked (same order as `options`). */
  readonly checked: readonly boolean[];
  /** When given, Esc leaves the list and the help line names what it opens, e.g. `Back / Reply`. */
  readonly escapeHint?: SafeText | undefined;
  readonly pageSize?: number;
}

/** How a checklist was left, with the options' checked state at that moment. */
export interface ChecklistResult {
  readonly type: "submit" | "escape";
  readonly checked: readonly boolean[];
}

/**
 * A checkbox list: arrows and Space (or an option's number) toggle, `a` toggles all, `i`
 * inverts, Enter submits. Inquirer's own checkbox ignores Esc, and the cancel menu of a
 * multi-select answer opens on Esc, hence this prompt.
 */
export const checklistPrompt: PromptFunction<ChecklistResult, ChecklistConfig> = createPrompt<
  ChecklistResult,
  ChecklistConfig
>((config, done) => {
  const theme = makeTheme(terminalTheme());
  const { options, escapeHint } = config;
  const [status, setStatus] = useState<"idle" | "done" | "escaped">("idle");
  const [active, setActive] = useState(0);
  const [checked, setChecked] = useState<readonly boolean[]>(
    options.map((_, index) => config.checked[index] === true),
  );
  const prefix = usePrefix({ status: status === "escaped" ? "idle" : status, theme });

  useKeypress((key, rl) => {
    if (status !== "idle") return;
    rl.clearLine(0);
    const toggle = (index: number) => setChecked(checked.map((on, i) => (i === index ? !on : on)));
    const typed = typedCharacter(key);
    const number = typed === undefined ? Number.NaN : Number.parseInt(typed, 10);
    if (isEnterKey(key)) {
      setStatus("done");
      done({ type: "submit", checked });
    } else if (key.name === "escape" && escapeHint !== undefined) {
      setStatus("escaped");
      done({ type: "escape", checked });
    } else if ((isUpKey(key) || isDownKey(key)) && options.length > 0) {
      const step = isUpKey(key) ? -1 : 1;
      setActive((active + step + options.length) % options.length);
    } else if (isSpaceKey(key)) {
      toggle(active);
    } else if (number >= 1 && number <= Math.min(options.length, 9)) {
      setActive(number - 1);
      toggle(number - 1);
    } else if (typed === "a") {
      const all = checked.every(Boolean);
      setChecked(checked.map(() => !all));
    } else if (typed === "i") {
      setChecked(checked.map((on) => !on));
    }
  });

  const message = theme.style.message(config.message, status);
  if (status === "done") {
    const picked = options.filter((_, index) => checked[index] === true);
    const answer = picked.length === 0 ? safe`(none)` : joinSafe(picked, safe`, `);
    return `${prefix} ${message} ${theme.style.answer(answer)}`;
  }
  if (status === "escaped") return `${prefix} ${message} ${styled("dim", safe`…`)}`;
  const page = usePagination({
    items: options,
    active,
    pageSize: config.pageSize ?? 12,
    loop: false,
    renderItem: ({ item, index, isActive }) => {
      const box = checked[index] === true ? styled("green", safe`◉`) : safe`◯`;
      const number = index < 9 ? safe`${index + 1} ` : safe`  `;
      const line = safe`${box} ${styled("dim", number)}${item}`;
      return isActive ? safe`${styled("cyan", safe`❯`)} ${line}` : safe`  ${line}`;
    },
  });
  const escapeHelp = escapeHint === undefined ? safe`` : safe` · esc ${escapeHint}`;
  const help = styled("dim", safe`space toggle · a all · i invert · ⏎ submit${escapeHelp}`);
  return [`${prefix} ${message}\n${page}`, help];
});
