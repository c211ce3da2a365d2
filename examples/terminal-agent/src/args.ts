import { parseArgs } from "node:util";

/** How the demo is used; printed with every mistake on the command line. */
export const USAGE = `usage: npm run demo [-- --non-interactive] [-- --suspend] [-- --out <dir>]
       npm run demo -- --web [--out <dir>]      answer on a web page instead of the terminal
       npm run demo -- --pending <conversation dir>
       npm run demo -- --answer <conversation dir> <prompt id> '<reply JSON>'
       npm run demo -- --resume <conversation dir> [--suspend] [--non-interactive]
       npm run demo -- --postgres <url> [any of the above, naming conversations by name]`;

/** Where the conversation is kept: PostgreSQL at `postgres`, else files (see store.ts). */
interface StoreChoice {
  /** With `--postgres <url>`, conversations are named by name instead of directory. */
  readonly postgres?: string;
}

/** What the command line asks the demo to do. */
export type DemoCommand =
  | { readonly kind: "help" }
  | ({ readonly kind: "pending"; readonly dir: string } & StoreChoice)
  | ({
      readonly kind: "answer";
      readonly dir: string;
      readonly promptId: string;
      readonly reply: string;
    } & StoreChoice)
  | ({
      readonly kind: "run";
      readonly out: string | undefined;
      readonly resume: string | undefined;
      readonly suspend: boolean;
      readonly nonInteractive: boolean;
      /** Ask on a web page instead of the terminal. */
      readonly web?: true;
    } & StoreChoice);

/**
 * The demo's command line, or what is wrong with it: an unknown option, an option without its
 * value (`--out` alone would otherwise write to `./undefined/`), a stray argument, or options
 * that do not go together.
 */
export function parseDemoArgs(
  argv: readonly string[],
):
  | { readonly ok: true; readonly command: DemoCommand }
  | { readonly ok: false; readonly message: string } {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    return { ok: false, message: describeParseError(error) };
  }
  const { values, positionals } = parsed;
  const fail = (message: string) => ({ ok: false as const, message });
  if (values.help === true) return { ok: true, command: { kind: "help" } };
  if (values.postgres !== undefined && values.out !== undefined) {
    return fail("--out is a directory; with --postgres the conversation is kept in the database");
  }
  const store = values.postgres === undefined ? {} : { postgres: values.postgres };
  if (values.answer !== undefined) {
    const [promptId, reply, ...extra] = positionals;
    if (promptId === undefined || reply === undefined) {
      return fail("--answer needs the conversation dir, the prompt id and the reply JSON");
    }
    if (extra.length > 0) return fail(`unexpected argument ${JSON.stringify(extra[0])}`);
    return {
      ok: true,
      command: { kind: "answer", dir: values.answer, promptId, reply, ...store },
    };
  }
  if (positionals.length > 0) return fail(`unexpected argument ${JSON.stringify(positionals[0])}`);
  if (values.pending !== undefined)
    return { ok: true, command: { kind: "pending", dir: values.pending, ...store } };
  if (values.resume !== undefined && values.out !== undefined) {
    return fail("--out is for a new conversation; --resume goes on in the one given");
  }
  if (values.web === true && (values.suspend === true || values["non-interactive"] === true)) {
    return fail("--web asks a person on a page; --suspend and --non-interactive ask nobody");
  }
  return {
    ok: true,
    command: {
      kind: "run",
      out: values.out,
      resume: values.resume,
      suspend: values.suspend === true,
      nonInteractive: values["non-interactive"] === true,
      ...(values.web === true ? { web: true as const } : {}),
      ...store,
    },
  };
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    strict: true,
    allowPositionals: true,
    options: {
      help: { type: "boolean" },
      "non-interactive": { type: "boolean" },
      suspend: { type: "boolean" },
      out: { type: "string" },
      pending: { type: "string" },
      answer: { type: "string" },
      resume: { type: "string" },
      web: { type: "boolean" },
      postgres: { type: "string" },
    },
  });
}

// Node's own wording, made short: which option, and what is wrong with it.
function describeParseError(error: unknown): string {
  const { code, message } = error as { code?: unknown; message?: unknown };
  const text = typeof message === "string" ? message : String(error);
  const option = /'(-[^' ]+)/.exec(text)?.[1];
  if (option === undefined) return text.split("\n")[0] ?? text;
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") return `unknown option ${option}`;
  if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE") return `${option} needs a value`;
  return text.split("\n")[0] ?? text;
}
