import {
  type AskOptions,
  HumanUnreachableError,
  type PromptBackend,
  type PromptRequest,
  type ReplyFor,
} from "@jp/coordinator";
import { askDeliver } from "./internal/deliver-prompt.js";
import { askPermission } from "./internal/permission-prompt.js";
import { askQuestion } from "./internal/question-prompt.js";
import { inputEnded, TerminalSession, ttyOpens } from "./internal/terminal.js";
import { createTerminalUi, type TerminalUi } from "./internal/terminal-ui.js";

/** Options of {@link createTerminalPromptBackend}. */
export interface TerminalPromptBackendOptions {
  /** The terminal to draw on and read keys from. Default `/dev/tty`, so piped stdout is fine. */
  readonly ttyPath?: string;
  /** Streams to use instead of the terminal (tests, embedding); give both or neither. */
  readonly input?: NodeJS.ReadableStream;
  /** See {@link TerminalPromptBackendOptions.input}. */
  readonly output?: NodeJS.WritableStream;
  /** Where `VISUAL` / `EDITOR` are looked up (and the editor's environment). Default `process.env`. */
  readonly env?: NodeJS.ProcessEnv;
}

/** A {@link PromptBackend} on a terminal; `close()` ends it and frees the terminal. */
export interface TerminalPromptBackend extends PromptBackend {
  /** Shows one prompt on the terminal and resolves with the person's reply. */
  ask<R extends PromptRequest>(request: R, options: AskOptions): Promise<ReplyFor<R>>;
  /**
   * Ends the backend and frees the terminal. The prompt on screen and those waiting their turn
   * reject with `HumanUnreachableError`, as does any prompt asked afterwards, and
   * `isHumanReachable()` is `false` from then on: closing is the host's doing, so it is recorded
   * as the person not reached, never as their cancel. Idempotent.
   */
  close(): void;
}

const CLOSED = "the terminal prompt backend was closed";

/**
 * The error names with which inquirer (and the editor runner) report a stop: Ctrl+C
 * (`ExitPromptError`), an aborted signal (`AbortPromptError`), `cancel()` (`CancelPromptError`).
 * Names, not classes, so that a second copy of `@inquirer/core` still matches.
 */
const CANCELLATIONS: ReadonlySet<string> = new Set([
  "ExitPromptError",
  "AbortPromptError",
  "CancelPromptError",
]);

function isCancellation(error: unknown): boolean {
  return error instanceof Error && CANCELLATIONS.has(error.name);
}

/**
 * Creates the terminal prompt backend: questions of every answer type, permission and
 * result-delivery prompts, drawn with `@inquirer/core` on `/dev/tty`. Every string that a model
 * or tool controls is neutralized before it is drawn. Ctrl+C, end of input at the prompt (Ctrl+D
 * on an empty line, stdin closed) or an aborted signal resolves `{type: "cancelled"}`; a terminal
 * that hangs up mid-prompt, a prompt that cannot reach it at all, and prompts cut short or
 * asked after `close()` reject with `HumanUnreachableError`.
 *
 * @example
 * ```ts
 * const prompts = createTerminalPromptBackend();
 * const coordinator = new ToolCoordinator({ prompts, ... });
 * // ...
 * prompts.close();
 * ```
 */
export function createTerminalPromptBackend(
  options: TerminalPromptBackendOptions = {},
): TerminalPromptBackend {
  const { input, output, ttyPath = "/dev/tty", env = process.env } = options;
  if ((input === undefined) !== (output === undefined)) {
    throw new TypeError("createTerminalPromptBackend: give both `input` and `output`, or neither");
  }
  let reachable: boolean | undefined;
  let closed = false;
  let queue: Promise<unknown> = Promise.resolve();
  const inFlight = new Set<AbortController>();

  async function show<R extends PromptRequest>(request: R, signal: AbortSignal) {
    if (signal.aborted) return { type: "cancelled" } as ReplyFor<R>;
    if (closed) throw new HumanUnreachableError(CLOSED);
    const stop = new AbortController();
    inFlight.add(stop);
    const session = new TerminalSession({ ttyPath, input, output });
    let ended = false;
    let endKey = false;
    let unsubscribe = () => {};
    let unsubscribeKey = () => {};
    try {
      unsubscribe = session.onInputEnd(() => {
        ended = true;
        stop.abort();
      });
      unsubscribeKey = session.onEndOfInputKey(() => {
        endKey = true;
        stop.abort();
      });
      const ui = createTerminalUi(session, AbortSignal.any([signal, stop.signal]), env);
      return (await dispatch(ui, request)) as ReplyFor<R>;
    } catch (error) {
      // A terminal that hung up (its reads failed with EIO) is nobody's decision: the person
      // could not be reached. End of input otherwise (stdin closed, Ctrl+D on a pipe) takes the
      // same path as Ctrl+C (RFD 082): it is recorded as the user's cancellation.
      if (ended && session.hungUp()) {
        throw new HumanUnreachableError("the terminal hung up while the prompt was shown");
      }
      if (ended) return { type: "cancelled" } as ReplyFor<R>;
      // Closed by the host while shown: nobody decided. The coordinator's own stop (the signal)
      // is its to record.
      if (closed && !endKey && !signal.aborted) {
        session.write("\n✖ closed\n");
        throw new HumanUnreachableError(`${CLOSED} while the prompt was shown`);
      }
      if (isCancellation(error)) {
        // Inquirer leaves the prompt's last frame on screen; say plainly that it was left.
        if (!stop.signal.aborted || endKey) session.write("\n✖ cancelled\n");
        return { type: "cancelled" } as ReplyFor<R>;
      }
      throw error;
    } finally {
      unsubscribe();
      unsubscribeKey();
      inFlight.delete(stop);
      session.release();
    }
  }

  return {
    isHumanReachable() {
      if (closed) return false;
      if (input !== undefined) return !inputEnded(input);
      // A controlling terminal does not come and go during a run: check once.
      reachable ??= ttyOpens(ttyPath);
      return reachable;
    },
    ask(request, { signal }: AskOptions) {
      // One prompt at a time on one terminal; a queued prompt whose signal aborts leaves at once.
      const previous = queue;
      const turn = waitForTurn(previous, signal).then(() => show(request, signal));
      queue = Promise.allSettled([previous, turn]);
      return turn;
    },
    close() {
      closed = true;
      for (const stop of inFlight) stop.abort();
    },
  };
}

function dispatch(ui: TerminalUi, request: PromptRequest) {
  switch (request.kind) {
    case "question":
      return askQuestion(ui, request);
    case "permission":
      return askPermission(ui, request);
    case "deliver":
      return askDeliver(ui, request);
  }
}

function waitForTurn(previous: Promise<unknown>, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    signal.addEventListener("abort", () => resolve(), { once: true });
    previous.then(
      () => resolve(),
      () => resolve(),
    );
  });
}
