import type { StdioOptions } from "node:child_process";
import { closeSync, constants, openSync } from "node:fs";
import { Writable } from "node:stream";
import { isatty, ReadStream, WriteStream } from "node:tty";
import type { input } from "@inquirer/prompts";
import { HumanUnreachableError } from "@jp/coordinator";

/** The context inquirer prompts take (`@inquirer/type` is not a dependency of ours). */
export type PromptContext = NonNullable<Parameters<typeof input>[1]>;

/** A prompt made with `createPrompt`, typed without naming `@inquirer/type`. */
export type PromptFunction<Value, Config> = (
  config: Config,
  context?: PromptContext,
) => Promise<Value>;

/** Where prompts are drawn: the injected streams, or the terminal at `ttyPath`. */
export interface TerminalSource {
  readonly ttyPath: string;
  readonly input?: NodeJS.ReadableStream | undefined;
  readonly output?: NodeJS.WritableStream | undefined;
}

interface Streams {
  readonly input: NodeJS.ReadableStream;
  readonly output: NodeJS.WritableStream;
  /** Opened here (from `ttyPath`), so closed here too. */
  readonly owned: boolean;
}

/** Whether `ttyPath` opens as a terminal. Throws nothing. */
export function ttyOpens(ttyPath: string): boolean {
  let fd: number | undefined;
  try {
    fd = openSync(ttyPath, constants.O_RDWR | constants.O_NOCTTY);
    return isatty(fd);
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function openTty(ttyPath: string): Streams {
  const fds: number[] = [];
  try {
    fds.push(openSync(ttyPath, constants.O_RDONLY | constants.O_NOCTTY));
    fds.push(openSync(ttyPath, constants.O_WRONLY | constants.O_NOCTTY));
    const [inputFd = -1, outputFd = -1] = fds;
    const input = new ReadStream(inputFd);
    const output = new WriteStream(outputFd);
    quietWhenHungUp(input);
    quietWhenHungUp(output);
    followResizes(output);
    return { input, output, owned: true };
  } catch (cause) {
    for (const fd of fds) closeSync(fd);
    // The terminal went away (or never was): nobody can be asked, which is not a decision.
    throw new HumanUnreachableError(`cannot open the terminal ${ttyPath}`, { cause });
  }
}

/**
 * One `ask`'s hold on the terminal. The terminal is opened lazily and closed on `release()`,
 * so that no stream keeps reading it while an editor runs or after the prompt, and no open
 * handle keeps the process alive. Injected streams belong to the caller and are never closed.
 */
export class TerminalSession {
  readonly #source: TerminalSource;
  #streams: Streams | undefined;

  constructor(source: TerminalSource) {
    this.#source = source;
  }

  /**
   * The input and output, opening the terminal if needed. Rejects with
   * {@link HumanUnreachableError} when the terminal cannot be opened or its input already ended.
   */
  streams(): Streams {
    if (this.#streams !== undefined) return this.#streams;
    const { input, output, ttyPath } = this.#source;
    if (input !== undefined && output !== undefined) {
      if (inputEnded(input)) {
        throw new HumanUnreachableError("the terminal's input has ended (stdin closed)");
      }
      this.#streams = { input, output, owned: false };
    } else {
      this.#streams = openTty(ttyPath);
    }
    return this.#streams;
  }

  /** Writes this package's own (already neutralized) text. */
  write(text: string): void {
    this.streams().output.write(text);
  }

  /**
   * The context for one inquirer prompt. Inquirer ends the output it is given once the prompt is
   * done, so it gets a forwarding stream that leaves ours open for the next prompt.
   */
  promptContext(signal: AbortSignal): PromptContext {
    const { input, output } = this.streams();
    return { input, output: new ForwardingOutput(output), signal, clearPromptOnDone: false };
  }

  /**
   * Calls `listener` once if the input ends or closes (stdin closed; a terminal that hangs up
   * reads as end of input); returns the unsubscriber.
   */
  onInputEnd(listener: () => void): () => void {
    const { input } = this.streams();
    let called = false;
    const once = () => {
      // A terminal this session closed itself (to hand it to an editor) has not hung up.
      if (called || this.#closing.has(input)) return;
      called = true;
      listener();
    };
    for (const event of INPUT_GONE) input.on(event, once);
    return () => {
      for (const event of INPUT_GONE) input.removeListener(event, once);
    };
  }

  /**
   * Calls `listener` when the person ends the input with Ctrl+D on an empty line. Readline takes
   * that key as end of input and closes, turning the terminal's echo back on, but the prompt on
   * it is not told and would wait on, showing whatever is typed next (a secret too). Returns the
   * unsubscriber.
   */
  onEndOfInputKey(listener: () => void): () => void {
    const { input } = this.streams();
    const onKeypress = (_text: unknown, key: { ctrl?: boolean; name?: string } | undefined) => {
      if (key?.ctrl !== true || key.name !== "d") return;
      // Readline handles the key after this listener: a closed readline has paused the input.
      setImmediate(() => {
        if (input.isPaused()) listener();
      });
    };
    input.on("keypress", onKeypress);
    return () => {
      input.removeListener("keypress", onKeypress);
    };
  }

  /**
   * Stdio for an editor child: the terminal itself when we draw on `ttyPath` (never the
   * process's stdout, which may be piped); nothing when streams were injected (tests).
   */
  editorStdio(): { readonly stdio: StdioOptions; readonly close: () => void } {
    const injected = this.#source.input !== undefined && this.#source.output !== undefined;
    if (injected) return { stdio: "ignore", close: () => {} };
    // The editor must be the only reader of the terminal while it runs.
    this.release();
    const fd = openSync(this.#source.ttyPath, constants.O_RDWR | constants.O_NOCTTY);
    return { stdio: [fd, fd, fd], close: () => closeSync(fd) };
  }

  // Inputs this session is closing on purpose: their `close` is not the terminal hanging up.
  readonly #closing = new WeakSet<NodeJS.ReadableStream>();

  /**
   * Whether the terminal opened here hung up (its reads or writes failed with EIO): unlike end of
   * input on a stream, which may be the person's Ctrl+D, that is nobody's decision.
   */
  hungUp(): boolean {
    const streams = this.#streams;
    return streams !== undefined && (HUNG_UP.has(streams.input) || HUNG_UP.has(streams.output));
  }

  /** Closes the terminal if it was opened here. Idempotent. */
  release(): void {
    const streams = this.#streams;
    this.#streams = undefined;
    if (streams === undefined || !streams.owned) return;
    const { input, output } = streams;
    if (input instanceof ReadStream) {
      if (input.isRaw) input.setRawMode(false);
      this.#closing.add(input);
      input.destroy();
    }
    if (output instanceof WriteStream) output.destroy();
  }
}

/**
 * A terminal that hangs up (its window closed, an SSH session dropped) fails every read, write
 * and mode change with EIO. Those errors would reach a readline interface with no listener for
 * them (inquirer's) and end the process; they are kept off the stream's listeners instead, and
 * the stream is marked: a read that fails closes the input, which ends the prompt, and the
 * session then tells a hang-up from end of input (see TerminalSession.hungUp).
 */
function quietWhenHungUp(stream: ReadStream | WriteStream): void {
  const emit = stream.emit.bind(stream);
  stream.emit = ((event: string | symbol, ...args: unknown[]) => {
    if (event === "error" && hungUp(args[0])) {
      HUNG_UP.add(stream);
      return false;
    }
    return emit(event, ...args);
  }) as typeof stream.emit;
}

/**
 * Node.js updates the size of `process.stdout` when the window is resized (SIGWINCH), not that
 * of a terminal stream opened from a path: inquirer would go on wrapping the prompt at the old
 * width, and after a window was made narrower every key would leave a copy of the prompt on the
 * screen. The stream's size is refreshed on every resize while it is open.
 */
function followResizes(output: WriteStream): void {
  const refresh = () => {
    if (output.destroyed) return;
    try {
      // Not in Node.js's typings; what it calls for process.stdout on SIGWINCH.
      (output as unknown as { _refreshSize?: () => void })._refreshSize?.();
    } catch {
      // A terminal gone meanwhile: its size no longer matters.
    }
  };
  process.on("SIGWINCH", refresh);
  output.once("close", () => process.removeListener("SIGWINCH", refresh));
}

// Terminal streams whose terminal has hung up (see quietWhenHungUp).
const HUNG_UP = new WeakSet<object>();

function hungUp(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === "EIO" || code === "ENXIO";
}

/** The input events after which no key can arrive any more. */
const INPUT_GONE = ["end", "close"] as const;

/** Whether an injected input can no longer deliver keys (it ended or was destroyed). */
export function inputEnded(input: NodeJS.ReadableStream): boolean {
  const state = input as { readableEnded?: boolean; destroyed?: boolean };
  return state.readableEnded === true || state.destroyed === true;
}

/** Forwards writes to `target` and reports its size, but never ends it. */
class ForwardingOutput extends Writable {
  readonly #target: NodeJS.WritableStream;

  constructor(target: NodeJS.WritableStream) {
    super({ decodeStrings: false });
    this.#target = target;
  }

  override _write(chunk: unknown, _encoding: BufferEncoding, callback: () => void): void {
    this.#target.write(chunk as string | Uint8Array);
    callback();
  }

  get columns(): number {
    return (this.#target as { columns?: number }).columns ?? 80;
  }

  get rows(): number {
    return (this.#target as { rows?: number }).rows ?? 24;
  }

  get isTTY(): boolean {
    return (this.#target as { isTTY?: boolean }).isTTY ?? false;
  }
}
