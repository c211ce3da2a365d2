import type { ToolConfig, ToolsConfig } from "@jp/coordinator";
import { ASK_USER_DESCRIPTION } from "./ask-user/description.js";
import { ASK_USER_PARAMETERS } from "./ask-user/parameters.js";

/**
 * The registered configuration of every built-in, to layer UNDER user config (see
 * `layerToolsConfigs`), so a user who overrides one field keeps the rest.
 *
 * `ask_user` is on by default and immune to a bare "disable all tools", but can be disabled by
 * name (`allow_toggle: "if_named"`); it needs no permission or delivery prompt (the question is
 * the interaction); its call and result are hidden; its questions carry the "Assistant" label.
 *
 * @example
 * const tools = layerToolsConfigs(builtinToolConfigs(), userTools);
 */
export function builtinToolConfigs(): ToolsConfig {
  return { ask_user: askUserConfig() };
}

/** `ask_user`'s registered configuration (also carried by the tool itself, as `askUser.config`). */
export function askUserConfig(): ToolConfig {
  return {
    source: "builtin",
    enable: { state: true, allow_toggle: "if_named" },
    description: ASK_USER_DESCRIPTION,
    parameters: { ...ASK_USER_PARAMETERS },
    run: "unattended",
    result: "unattended",
    style: { hidden: true },
    // `answer` is the single question's id; "*" gives form questions the same label.
    questions: { answer: { prompt_label: "Assistant" }, "*": { prompt_label: "Assistant" } },
  };
}
