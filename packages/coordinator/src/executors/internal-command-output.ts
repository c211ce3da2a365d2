import { parseOutcome } from "@jp/tool";
import type { ExecutorResult } from "../backends/executor.js";

// Not part of the public API: JP's `parse_command_output`, as a pure function.

/** What a finished local command left behind. `exitCode` is `null` when a signal ended it. */
export interface CommandOutput {
  readonly stdout: string;
  readonly stderr: string;
  readonly exitCode: number | null;
}

/**
 * Reads one `Outcome` from a command's stdout, with JP's fallbacks for anything else. A decoded
 * outcome wins whatever the exit status, as in JP. The question's source is always the tool
 * itself: nothing the command prints can change the recorded provenance.
 */
export function interpretCommandOutput(toolName: string, output: CommandOutput): ExecutorResult {
  const { stdout, stderr, exitCode } = output;
  const parsed = parseOutcome(stdout);
  if (parsed.isErr()) {
    if (exitCode === 0) return { type: "completed", content: stdout, is_error: false };
    const message = `Tool '${toolName}' execution failed.`;
    return {
      type: "completed",
      content: JSON.stringify({ message, stderr, stdout }),
      is_error: true,
    };
  }
  const outcome = parsed.value;
  switch (outcome.type) {
    case "success":
      return { type: "completed", content: outcome.content, is_error: false };
    case "error":
      // JP keeps a permanent failure's stdout verbatim and condenses a transient one.
      return {
        type: "completed",
        content: outcome.transient
          ? JSON.stringify({ message: outcome.message, trace: outcome.trace })
          : stdout,
        is_error: true,
      };
    case "needs_input":
      return {
        type: "needs_input",
        question: outcome.question,
        source: { source: "tool", name: toolName },
      };
  }
}
