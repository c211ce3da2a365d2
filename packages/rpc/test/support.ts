import { PassThrough } from "node:stream";
import type { PromptRequest } from "@jp/coordinator";

/** A parsed message as the tests look at it. */
// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON-RPC members
export type Message = Record<string, any>;

/**
 * The far end of a connection, driven by hand: what the code under test writes arrives here as
 * parsed lines, and the test writes raw lines or JSON back.
 */
export class RawPeer {
  /** Every message received, in order (a batch array counts as one). */
  readonly received: unknown[] = [];
  readonly #waiters: Array<() => void> = [];
  #buffer = "";
  #cursor = 0;

  constructor(
    readonly fromCode: PassThrough,
    readonly toCode: PassThrough,
  ) {
    fromCode.setEncoding("utf8");
    fromCode.on("data", (chunk: string) => {
      this.#buffer += chunk;
      let newline = this.#buffer.indexOf("\n");
      while (newline !== -1) {
        this.received.push(JSON.parse(this.#buffer.slice(0, newline)));
        this.#buffer = this.#buffer.slice(newline + 1);
        newline = this.#buffer.indexOf("\n");
      }
      for (const wake of this.#waiters.splice(0)) wake();
    });
  }

  /** Writes one message as a line. */
  send(message: unknown): void {
    this.toCode.write(`${JSON.stringify(message)}\n`);
  }

  /** Writes raw text, e.g. garbage or a partial line. */
  write(text: string | Buffer): void {
    this.toCode.write(text);
  }

  /** The next message not yet taken (waits for it). */
  async next(): Promise<Message> {
    while (this.#cursor >= this.received.length) {
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
    return this.received[this.#cursor++] as Message;
  }

  /** Takes messages until one matches; the others are skipped. */
  async nextWhere(match: (message: Message) => boolean): Promise<Message> {
    for (;;) {
      const message = await this.next();
      if (match(message)) return message;
    }
  }

  /** Ends the stream the code reads, as a peer that hangs up. */
  hangUp(): void {
    this.toCode.end();
  }
}

/** Two pipes: the code under test gets `input`/`output`, the test drives `remote`. */
export function pipes() {
  const input = new PassThrough();
  const output = new PassThrough();
  return { input, output, remote: new RawPeer(output, input) };
}

/** A minimal request of each kind, for backend tests. */
export const REQUESTS = {
  boolean: question("confirm", { type: "boolean" }),
  select: question("colour", { type: "select", options: ["red", "blue"] }),
  text: question("name", { type: "text" }),
  multiSelect: question("toppings", { type: "multi_select", options: ["a", "b"] }),
  secret: question("token", { type: "secret" }),
  schema: question("config", { type: "schema", schema: { type: "object" } }),
  permission: {
    kind: "permission",
    tool_name: "shell",
    tool_call_id: "call_1",
    arguments: { cmd: "ls" },
    mode: "ask",
  },
  permissionEdit: {
    kind: "permission",
    tool_name: "shell",
    tool_call_id: "call_1",
    arguments: { cmd: "ls" },
    mode: "edit",
  },
  deliver: {
    kind: "deliver",
    tool_name: "shell",
    tool_call_id: "call_1",
    content: "file.txt",
    is_error: false,
    mode: "ask",
  },
  deliverEdit: {
    kind: "deliver",
    tool_name: "shell",
    tool_call_id: "call_1",
    content: "file.txt",
    is_error: false,
    mode: "edit",
  },
} satisfies Record<string, PromptRequest>;

/** A question prompt with the given answer type; `tool_name` may carry a fixture directive. */
export function question(
  id: string,
  answer_type: Extract<PromptRequest, { kind: "question" }>["question"]["answer_type"],
  tool_name = "ask",
): Extract<PromptRequest, { kind: "question" }> {
  return {
    kind: "question",
    tool_name,
    tool_call_id: `call_${id}`,
    inquiry_id: `call_${id}.${id}.1`,
    question: { id, text: `What about ${id}?`, answer_type },
    controls: { remember: false, back: true, reply: true, end_turn: true },
  };
}

/** A signal that never aborts. */
export const never = () => new AbortController().signal;
