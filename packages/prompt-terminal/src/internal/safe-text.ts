import { styleText } from "node:util";
import { neutralize } from "../neutralize.js";

declare const safeBrand: unique symbol;

/**
 * Text that may be written to the terminal: either this package's own words or model/tool text
 * passed through {@link neutralize}. Every prompt and every header takes `SafeText` only, so a
 * rendering site cannot forget to neutralize: a plain `string` does not type-check there.
 */
export type SafeText = string & { readonly [safeBrand]: true };

/** Neutralizes text that a model, a tool or a host controls. */
export function untrusted(text: string, options: { multiline?: boolean } = {}): SafeText {
  return neutralize(text, options) as SafeText;
}

/**
 * This package's own text; interpolations must already be safe (or be numbers).
 *
 * @example
 * ```ts
 * safe`Run ${untrusted(source)} tool ${untrusted(name)}?`
 * ```
 */
export function safe(strings: TemplateStringsArray, ...values: (SafeText | number)[]): SafeText {
  let out = strings[0] ?? "";
  for (const [index, value] of values.entries()) out += `${value}${strings[index + 1] ?? ""}`;
  return out as SafeText;
}

/** Joins safe parts with a safe separator. */
export function joinSafe(parts: readonly SafeText[], separator: SafeText): SafeText {
  return parts.join(separator) as SafeText;
}

type Format = Parameters<typeof styleText>[0];

/**
 * Styles safe text; the escape codes added are this package's own. Colour follows the terminal
 * drawn on (always a terminal), not `process.stdout`, which may be piped; `NO_COLOR` turns it off.
 */
export function styled(format: Format, text: SafeText): SafeText {
  if (process.env.NO_COLOR) return text;
  return styleText(format, text, { validateStream: false }) as SafeText;
}

/**
 * The inquirer theme of every prompt here: inquirer's default look, coloured by the rule of
 * {@link styled} rather than by whether `process.stdout` is a terminal.
 */
export function terminalTheme() {
  const paint = (format: Format) => (text: string) => styled(format, text as SafeText);
  return {
    prefix: { idle: styled("blue", safe`?`), done: styled("green", safe`✔`) },
    style: {
      answer: paint("cyan"),
      message: paint("bold"),
      error: (text: string) => styled("red", safe`> ${text as SafeText}`),
      defaultAnswer: (text: string) => styled("dim", safe`(${text as SafeText})`),
      help: paint("dim"),
      highlight: paint("cyan"),
      key: (text: string) => styled(["cyan", "bold"], safe`<${text as SafeText}>`),
    },
  };
}
