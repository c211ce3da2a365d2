import {
  createPrompt,
  isDownKey,
  isEnterKey,
  isUpKey,
  makeTheme,
  useKeypress,
  usePagination,
  usePrefix,
  useState,
} from "@inquirer/core";
import { type SafeText, safe, styled, terminalTheme, untrusted } from "../safe-text.js";
import type { PromptFunction } from "../terminal.js";
import { typedCharacter } from "./key-prompt.js";

/** One entry of a {@link menuPrompt}. */
export interface MenuItem {
  readonly label: SafeText;
  /** A single-character hotkey that picks the item at once, e.g. `1` or `b`. */
  readonly key?: string;
  /** Draw a rule above the item, e.g. between the options and the Back/Reply/End Turn controls. */
  readonly separated?: boolean;
}

/** The configuration of a {@link menuPrompt}. */
export interface MenuConfig {
  readonly message: SafeText;
  readonly items: readonly MenuItem[];
  /** The index the cursor starts on, marked "(default)". */
  readonly default?: number | undefined;
  readonly pageSize?: number;
}

type Row = { readonly type: "rule" } | { readonly type: "item"; readonly index: number };

function rowsOf(items: readonly MenuItem[]): Row[] {
  return items.flatMap((item, index): Row[] =>
    item.separated === true && index > 0
      ? [{ type: "rule" }, { type: "item", index }]
      : [{ type: "item", index }],
  );
}

/**
 * A vertical list: arrows and Enter, or an item's hotkey, which picks it at once. Resolves with
 * the picked item's index. Used for `select` answers and the Answer/Back/Reply/End Turn menus.
 */
export const menuPrompt: PromptFunction<number, MenuConfig> = createPrompt<number, MenuConfig>(
  (config, done) => {
    const theme = makeTheme(terminalTheme());
    const { items } = config;
    const rows = rowsOf(items);
    const start = config.default !== undefined && items[config.default] ? config.default : 0;
    const [status, setStatus] = useState<"idle" | "done">("idle");
    const [active, setActive] = useState(start);
    const prefix = usePrefix({ status, theme });

    useKeypress((key, rl) => {
      if (status !== "idle") return;
      rl.clearLine(0);
      if (isEnterKey(key) && items[active] !== undefined) {
        setStatus("done");
        done(active);
        return;
      }
      if ((isUpKey(key) || isDownKey(key)) && items.length > 0) {
        const step = isUpKey(key) ? -1 : 1;
        setActive((active + step + items.length) % items.length);
        return;
      }
      const typed = typedCharacter(key);
      const picked = typed === undefined ? -1 : items.findIndex((item) => item.key === typed);
      if (picked >= 0) {
        setActive(picked);
        setStatus("done");
        done(picked);
      }
    });

    const message = theme.style.message(config.message, status);
    const chosen = items[active];
    if (status === "done" && chosen !== undefined) {
      return `${prefix} ${message} ${theme.style.answer(chosen.label)}`;
    }
    const page = usePagination({
      items: rows,
      active: rows.findIndex((row) => row.type === "item" && row.index === active),
      pageSize: config.pageSize ?? 12,
      loop: false,
      renderItem: ({ item: row }) => renderRow(row, items, active, config.default),
    });
    const hotkeys = items.some((item) => item.key !== undefined) ? safe` · or press a key` : safe``;
    const help = styled("dim", safe`↑↓ move · ⏎ choose${hotkeys}`);
    return [`${prefix} ${message}\n${page}`, help];
  },
);

function renderRow(
  row: Row,
  items: readonly MenuItem[],
  active: number,
  defaultIndex: number | undefined,
): string {
  if (row.type === "rule") return styled("dim", safe`  ──────────`);
  const item = items[row.index];
  if (item === undefined) return "";
  const key = item.key === undefined ? safe`  ` : safe`${untrusted(item.key)} `;
  const marker = row.index === defaultIndex ? styled("dim", safe` (default)`) : safe``;
  if (row.index === active) return styled("cyan", safe`❯ ${key}${item.label}${marker}`);
  return safe`  ${styled("dim", key)}${item.label}${marker}`;
}
