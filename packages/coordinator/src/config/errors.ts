/**
 * The tool configuration is unusable (`invalid-config`): a field of the wrong shape, or an
 * enable/disable directive the configuration forbids. `path` is the full dotted path of the
 * offending setting, starting at `conversation.tools.` (e.g.
 * `conversation.tools.fs_modify_file.questions.apply_changes.target`); `message` names that path
 * and says what was expected.
 */
export interface ConfigError {
  readonly kind: "invalid-config";
  readonly path: string;
  readonly message: string;
}
