import { input, password } from "@inquirer/prompts";
import { type EditOutcome, editInEditor } from "./editor.js";
import {
  type ChecklistConfig,
  type ChecklistResult,
  checklistPrompt,
} from "./prompts/checklist-prompt.js";
import { type KeyPromptConfig, keyPrompt } from "./prompts/key-prompt.js";
import { type MenuConfig, menuPrompt } from "./prompts/menu-prompt.js";
import { type SafeText, safe, styled, terminalTheme, untrusted } from "./safe-text.js";
import type { TerminalSession } from "./terminal.js";

/** The configuration of {@link TerminalUi.text}. */
export interface TextConfig {
  readonly message: SafeText;
  /** Pre-filled for editing; an empty submission keeps it. */
  readonly initial?: string | undefined;
}

/**
 * Everything the prompt flows may do to the terminal. Every text parameter is {@link SafeText},
 * so model text cannot reach the terminal without passing through `neutralize`.
 */
export interface TerminalUi {
  /** Writes lines (a newline is added). */
  print(text: SafeText): void;
  /** A git-style inline key choice; resolves with the key. */
  keys(config: KeyPromptConfig): Promise<string>;
  /** A vertical list; resolves with the picked index. */
  menu(config: MenuConfig): Promise<number>;
  checklist(config: ChecklistConfig): Promise<ChecklistResult>;
  /** A line of text, echoed. */
  text(config: TextConfig): Promise<string>;
  /** A line of text, not echoed at all; never pre-filled. */
  secret(config: { readonly message: SafeText }): Promise<string>;
  /** Opens the user's editor on `text`. */
  edit(text: string, postfix: string): Promise<EditOutcome>;
}

/** Binds the prompts to one session's streams and one ask's abort signal. */
export function createTerminalUi(
  session: TerminalSession,
  signal: AbortSignal,
  env: NodeJS.ProcessEnv,
): TerminalUi {
  const context = () => session.promptContext(signal);
  return {
    print: (text) => session.write(`${text}\n`),
    keys: (config) => keyPrompt(config, context()),
    menu: (config) => menuPrompt(config, context()),
    checklist: (config) => checklistPrompt(config, context()),
    text: (config) => askText(config, context()),
    secret: ({ message }) =>
      password({ message, mask: false, toggleMask: false, theme: terminalTheme() }, context()),
    edit: async (text, postfix) => {
      const editor = session.editorStdio();
      try {
        return await editInEditor({ text, postfix, stdio: editor.stdio, env, signal });
      } finally {
        editor.close();
      }
    },
  };
}

async function askText(
  config: TextConfig,
  context: ReturnType<TerminalSession["promptContext"]>,
): Promise<string> {
  const { initial } = config;
  // The text is typed into readline as keystrokes when pre-filled, so only an initial value
  // that neutralizing leaves unchanged may go there; another is shown escaped and kept on an
  // empty submission.
  const prefillable = initial !== undefined && initial !== "" && untrusted(initial) === initial;
  const message =
    initial === undefined || prefillable
      ? config.message
      : safe`${config.message} ${styled("dim", safe`(empty keeps ${untrusted(JSON.stringify(initial))})`)}`;
  const typed = await input(
    {
      message,
      theme: terminalTheme(),
      ...(prefillable ? { default: initial, prefill: "editable" as const } : {}),
      transformer: (value, { isFinal }) => {
        const shown = untrusted(value);
        return isFinal ? styled("cyan", shown) : shown;
      },
    },
    context,
  );
  return typed === "" && initial !== undefined && !prefillable ? initial : typed;
}
