import type { PermissionPromptRequest, PermissionReply } from "@jp/coordinator";
import type { JsonValue } from "@jp/tool";
import {
  confirmEditAgain,
  editJsonOnce,
  errorLine,
  MAX_EDIT_ATTEMPTS,
  prettyJson,
} from "./json-edit.js";
import type { KeyChoice } from "./prompts/key-prompt.js";
import { type SafeText, safe, styled, untrusted } from "./safe-text.js";
import type { TerminalUi } from "./terminal-ui.js";

type Arguments = PermissionPromptRequest["arguments"];

/** What a key does: resolve a reply, or `undefined` to ask again. */
type Action = (
  ui: TerminalUi,
  request: PermissionPromptRequest,
) => Promise<PermissionReply | undefined>;

interface PermissionKey extends KeyChoice {
  readonly action: Action;
}

/** JP's permission keys (`jp_cli` prompter), in JP's order. */
const PERMISSION_KEYS: readonly PermissionKey[] = [
  { key: "y", label: safe`run`, action: async () => ({ type: "run" }) },
  {
    key: "Y",
    label: safe`run + remember for turn`,
    action: async () => ({ type: "run", remember: true }),
  },
  { key: "n", label: safe`skip`, action: async () => ({ type: "skip" }) },
  {
    key: "N",
    label: safe`skip + remember for turn`,
    action: async () => ({ type: "skip", remember: true }),
  },
  { key: "r", label: safe`skip and reply`, action: skipWithReason },
  { key: "e", label: safe`edit arguments`, action: editArguments },
  { key: "p", label: safe`print arguments`, action: printArguments },
];

/** Words for the `tool_source` values the coordinator uses; others are shown as they are. */
const SOURCE_WORDS: ReadonlyMap<string, string> = new Map([["builtin", "built-in"]]);

/** `Run local tool fs_modify_file?` */
export function permissionMessage(request: PermissionPromptRequest): SafeText {
  const name = styled("cyan", untrusted(request.tool_name));
  const source = request.tool_source;
  if (source === undefined || source === "") return safe`Run tool ${name}?`;
  return safe`Run ${untrusted(SOURCE_WORDS.get(source) ?? source)} tool ${name}?`;
}

/**
 * Asks whether a tool may run: `y` run, `Y` run and remember, `n` skip, `N` skip and remember,
 * `r` skip with a reason, `e` edit the arguments, `p` print them and ask again. There is no
 * default: Enter alone does not run a tool. Mode `edit` opens the editor first.
 */
export async function askPermission(
  ui: TerminalUi,
  request: PermissionPromptRequest,
): Promise<PermissionReply> {
  const message = permissionMessage(request);
  if (request.mode === "edit") {
    ui.print(safe`${message} ${styled("dim", safe`(opening the arguments in your editor)`)}`);
    const edited = await editArguments(ui, request);
    if (edited !== undefined) return edited;
  }
  for (;;) {
    const key = await ui.keys({ message, choices: PERMISSION_KEYS });
    const chosen = PERMISSION_KEYS.find((choice) => choice.key === key);
    if (chosen === undefined) throw new Error(`unexpected key ${JSON.stringify(key)}`);
    const reply = await chosen.action(ui, request);
    if (reply !== undefined) return reply;
  }
}

async function skipWithReason(ui: TerminalUi): Promise<PermissionReply> {
  const reason = await ui.text({ message: safe`Reason for skipping (optional):` });
  return reason.trim() === "" ? { type: "skip" } : { type: "skip", reason };
}

async function printArguments(
  ui: TerminalUi,
  request: PermissionPromptRequest,
): Promise<undefined> {
  ui.print(untrusted(prettyJson(request.arguments).trimEnd(), { multiline: true }));
  return undefined;
}

/**
 * The arguments as pretty JSON in the editor. Invalid JSON or a non-object is shown and edited
 * again (at most {@link MAX_EDIT_ATTEMPTS} times); an emptied file, a failed editor or
 * arguments saved unchanged return to the keys (`undefined`), so the tool runs only on `y`.
 */
async function editArguments(
  ui: TerminalUi,
  request: PermissionPromptRequest,
): Promise<PermissionReply | undefined> {
  let text = prettyJson(request.arguments);
  for (let attempt = 1; ; attempt++) {
    const round = await editJsonOnce(ui, text, (value) =>
      isObject(value) ? undefined : "The arguments must be a JSON object",
    );
    if (round.type === "value" && isObject(round.value)) {
      if (JSON.stringify(round.value) !== JSON.stringify(request.arguments)) {
        return { type: "edit", arguments: round.value };
      }
      // Quitting the editor is not a decision to run: ask again, with y to run as it is.
      ui.print(styled("dim", safe`The arguments are unchanged.`));
      return undefined;
    }
    if (round.type !== "invalid") return undefined;
    text = round.text;
    if (attempt >= MAX_EDIT_ATTEMPTS) {
      ui.print(errorLine(safe`Giving up editing after ${attempt} attempts`));
      return undefined;
    }
    await confirmEditAgain(ui, safe`(empty the file to go back)`);
  }
}

function isObject(value: JsonValue): value is Arguments {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
