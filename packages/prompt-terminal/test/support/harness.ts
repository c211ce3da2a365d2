import type {
  DeliverPromptRequest,
  PermissionPromptRequest,
  PromptRequest,
  QuestionControls,
  QuestionPromptRequest,
  ReplyFor,
} from "@jp/coordinator";
import type { Question } from "@jp/tool";
import { afterEach } from "vitest";
import { createTerminalPromptBackend, type TerminalPromptBackend } from "../../src/index.js";
import { type FakeTerminal, fakeTerminal } from "./fake-terminal.js";
import { type EditorStep, type ScriptedEditor, scriptedEditor } from "./scripted-editor.js";

/** No control besides answering (a lone question). */
export const NO_CONTROLS: QuestionControls = {
  remember: false,
  back: false,
  reply: false,
  end_turn: false,
};

/** Every control (a later question of a form). */
export const ALL_CONTROLS: QuestionControls = {
  remember: true,
  back: true,
  reply: true,
  end_turn: true,
};

/** A question prompt request with test defaults. */
export function questionRequest(
  question: Partial<Question> & Pick<Question, "answer_type">,
  extra: Partial<Omit<QuestionPromptRequest, "kind" | "question">> = {},
): QuestionPromptRequest {
  return {
    kind: "question",
    tool_name: "ask_user",
    tool_call_id: "call_1",
    inquiry_id: "call_1.q.1",
    controls: NO_CONTROLS,
    ...extra,
    question: { id: "q", text: "Proceed?", ...question },
  };
}

/** A permission prompt request with test defaults. */
export function permissionRequest(
  extra: Partial<Omit<PermissionPromptRequest, "kind">> = {},
): PermissionPromptRequest {
  return {
    kind: "permission",
    tool_name: "fs_modify_file",
    tool_call_id: "call_1",
    tool_source: "local",
    arguments: { path: "src/main.ts", lines: [1, 2] },
    mode: "ask",
    ...extra,
  };
}

/** A result-delivery prompt request with test defaults. */
export function deliverRequest(
  extra: Partial<Omit<DeliverPromptRequest, "kind">> = {},
): DeliverPromptRequest {
  return {
    kind: "deliver",
    tool_name: "fs_read_file",
    tool_call_id: "call_1",
    content: "file contents",
    is_error: false,
    mode: "ask",
    ...extra,
  };
}

/** A backend on a fake terminal. */
export interface Harness {
  readonly term: FakeTerminal;
  readonly backend: TerminalPromptBackend;
  /** Asks with a fresh signal (or the one given). */
  ask<R extends PromptRequest>(request: R, signal?: AbortSignal): Promise<ReplyFor<R>>;
}

const open: TerminalPromptBackend[] = [];
afterEach(() => {
  for (const backend of open.splice(0)) backend.close();
});

/** Creates a backend drawing on a fresh fake terminal; closed after each test. */
export function harness(options: { env?: NodeJS.ProcessEnv } = {}): Harness {
  const term = fakeTerminal();
  const backend = createTerminalPromptBackend({
    input: term.input,
    output: term.output,
    ...(options.env === undefined ? {} : { env: options.env }),
  });
  open.push(backend);
  return {
    term,
    backend,
    ask: (request, signal = new AbortController().signal) => backend.ask(request, { signal }),
  };
}

const editors: ScriptedEditor[] = [];
afterEach(() => {
  for (const editor of editors.splice(0)) editor.cleanup();
});

/** A harness whose `$EDITOR` follows `steps`; the editor's temp files go after each test. */
export function withEditor(steps: readonly EditorStep[]) {
  const editor = scriptedEditor(steps);
  editors.push(editor);
  return { editor, ...harness({ env: editor.env }) };
}
