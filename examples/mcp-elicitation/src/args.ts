import { parseArgs } from "node:util";

/** How the example is used; printed with every mistake on the command line. */
export const USAGE = "usage: npm run example:mcp [-- --non-interactive] [-- --out <dir>]";

/** What the command line asks for. */
export type ExampleCommand =
  | { readonly kind: "help" }
  | { readonly kind: "run"; readonly nonInteractive: boolean; readonly out: string | undefined };

/** The command line, or what is wrong with it (an unknown option, `--out` without a value). */
export function parseExampleArgs(
  argv: readonly string[],
):
  | { readonly ok: true; readonly command: ExampleCommand }
  | { readonly ok: false; readonly message: string } {
  try {
    const { values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        "non-interactive": { type: "boolean", default: false },
        out: { type: "string" },
        help: { type: "boolean", short: "h", default: false },
      },
    });
    if (values.help === true) return { ok: true, command: { kind: "help" } };
    if (values.out === "") return { ok: false, message: "--out needs a directory" };
    return {
      ok: true,
      command: {
        kind: "run",
        nonInteractive: values["non-interactive"] === true,
        out: values.out,
      },
    };
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
}
