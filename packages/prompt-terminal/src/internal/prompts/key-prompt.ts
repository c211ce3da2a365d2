import {
  createPrompt,
  isEnterKey,
  type KeypressEvent,
  makeTheme,
  useKeypress,
  usePrefix,
  useState,
} from "@inquirer/core";
import { joinSafe, type SafeText, safe, styled, terminalTheme, untrusted } from "../safe-text.js";
import type { PromptFunction } from "../terminal.js";

/** One key of a {@link keyPrompt}; `key` is a single character, case-sensitive (`y` ≠ `Y`). */
export interface KeyChoice {
  readonly key: string;
  readonly label: SafeText;
}

/** The configuration of a {@link keyPrompt}. */
export interface KeyPromptConfig {
  readonly message: SafeText;
  readonly choices: readonly KeyChoice[];
  /** The key Enter chooses; without one, Enter only reminds of the keys. */
  readonly default?: string | undefined;
}

/** The character a keypress typed, if it typed exactly one (`Y` is `y` with shift). */
export function typedCharacter(key: KeypressEvent): string | undefined {
  const { name } = key as { name?: unknown };
  if (key.ctrl || (key as { meta?: boolean }).meta === true) return undefined;
  if (typeof name !== "string" || [...name].length !== 1) return undefined;
  return key.shift ? name.toUpperCase() : name;
}

/** `[y,Y,n,N]`: the keys, in order, as git shows them. */
function keyList(choices: readonly KeyChoice[]): SafeText {
  return safe`[${joinSafe(
    choices.map((choice) => untrusted(choice.key)),
    safe`,`,
  )}]`;
}

/** `y yes (default) · n no`: what every key does. */
export function keyLegend(choices: readonly KeyChoice[], defaultKey?: string): SafeText {
  const entries = choices.map((choice) => {
    const marker = choice.key === defaultKey ? safe` (default)` : safe``;
    return safe`${styled(["bold", "cyan"], untrusted(choice.key))} ${choice.label}${marker}`;
  });
  return joinSafe(entries, styled("dim", safe` · `));
}

/**
 * A git-style inline choice: one keypress picks (`y`, `Y`, `n`, …), Enter picks the default.
 * Resolves with the key. The keys are listed on the prompt line and explained below it.
 */
export const keyPrompt: PromptFunction<string, KeyPromptConfig> = createPrompt<
  string,
  KeyPromptConfig
>((config, done) => {
  const theme = makeTheme(terminalTheme());
  const [status, setStatus] = useState<"idle" | "done">("idle");
  const [chosen, setChosen] = useState<KeyChoice | undefined>(undefined);
  const [hint, setHint] = useState<string | undefined>(undefined);
  const prefix = usePrefix({ status, theme });
  const { choices } = config;
  const fallback = choices.find((choice) => choice.key === config.default);

  useKeypress((key, rl) => {
    if (status !== "idle") return;
    rl.clearLine(0);
    const typed = typedCharacter(key);
    const choice = isEnterKey(key) ? fallback : choices.find((c) => c.key === typed);
    if (choice === undefined) {
      setHint(`Press one of ${choices.map((c) => c.key).join(", ")}`);
      return;
    }
    setChosen(choice);
    setStatus("done");
    done(choice.key);
  });

  const message = theme.style.message(config.message, status);
  if (status === "done" && chosen !== undefined) {
    return `${prefix} ${message} ${theme.style.answer(chosen.label)}`;
  }
  const bottom = [keyLegend(choices, config.default)];
  if (hint !== undefined) bottom.push(theme.style.error(hint) as SafeText);
  return [`${prefix} ${message} ${theme.style.help(keyList(choices))}`, bottom.join("\n")];
});
