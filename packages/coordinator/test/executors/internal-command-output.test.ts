import { describe, expect, it } from "vitest";
import type { ExecutorResult } from "../../src/backends/executor.js";
import {
  type CommandOutput,
  interpretCommandOutput,
} from "../../src/executors/internal-command-output.js";

const question = { id: "apply", text: "Apply?", answer_type: { type: "boolean" } } as const;
const json = (value: unknown): string => JSON.stringify(value);

describe("interpretCommandOutput (JP's parse_command_output)", () => {
  it.each<[string, CommandOutput, ExecutorResult]>([
    [
      "success",
      { stdout: json({ type: "success", content: "done" }), stderr: "", exitCode: 0 },
      { type: "completed", content: "done", is_error: false },
    ],
    [
      "success wins over a non-zero exit",
      { stdout: json({ type: "success", content: "done" }), stderr: "", exitCode: 3 },
      { type: "completed", content: "done", is_error: false },
    ],
    [
      "a transient error becomes {message, trace}",
      {
        stdout: json({ type: "error", message: "busy", trace: ["lock"], transient: true }),
        stderr: "",
        exitCode: 1,
      },
      { type: "completed", content: json({ message: "busy", trace: ["lock"] }), is_error: true },
    ],
    [
      "a permanent error keeps the raw stdout",
      { stdout: `${json({ type: "error", message: "no" })}\n`, stderr: "", exitCode: 0 },
      { type: "completed", content: `${json({ type: "error", message: "no" })}\n`, is_error: true },
    ],
    [
      "needs_input is asked by the tool itself, whatever stdout claims",
      {
        stdout: json({ type: "needs_input", question, source: { source: "assistant" } }),
        stderr: "",
        exitCode: 0,
      },
      { type: "needs_input", question, source: { source: "tool", name: "fs" } },
    ],
    [
      "plain text with exit 0",
      { stdout: "hello\n", stderr: "warn", exitCode: 0 },
      { type: "completed", content: "hello\n", is_error: false },
    ],
    [
      "plain text with a non-zero exit",
      { stdout: "partial", stderr: "boom", exitCode: 2 },
      {
        type: "completed",
        content: json({
          message: "Tool 'fs' execution failed.",
          stderr: "boom",
          stdout: "partial",
        }),
        is_error: true,
      },
    ],
    [
      "JSON that is not an outcome, killed by a signal",
      { stdout: json({ type: "other" }), stderr: "", exitCode: null },
      {
        type: "completed",
        content: json({
          message: "Tool 'fs' execution failed.",
          stderr: "",
          stdout: '{"type":"other"}',
        }),
        is_error: true,
      },
    ],
  ])("%s", (_name, output, expected) => {
    expect(interpretCommandOutput("fs", output)).toEqual(expected);
  });
});
