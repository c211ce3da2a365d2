import { err, ok, type Result } from "neverthrow";
import type { UnsupportedElicitation } from "../errors.js";
import { describeValue } from "../internal/json.js";

/** A URL fit to offer the person, with what they must see before consenting. */
export interface CheckedUrl {
  /** The normalised URL (what would be opened). */
  readonly href: string;
  /** The host as the URL parser reads it, in ASCII (punycode stays visible), with any port. */
  readonly host: string;
  /** Reasons to look twice, e.g. a punycode host; shown with the prompt. */
  readonly warnings: readonly string[];
}

/** Longer URLs are refused: the tail of a very long URL hides what it does. */
export const MAX_URL_LENGTH = 2048;

const LOOPBACK = ["localhost", "127.0.0.1", "[::1]"];

function unsafe(reason: string): Result<never, UnsupportedElicitation> {
  return err({ kind: "unsafe-url", message: `the elicitation URL ${reason}` });
}

/**
 * Checks a URL-mode elicitation's URL before the person is asked to open it: `https` (plain
 * `http` only for this machine), no user name or password before the host (`https://bank.example@evil.example`
 * reads as a bank but opens evil.example), at most {@link MAX_URL_LENGTH} characters as given and
 * once normalised (percent-encoded). Never throws.
 *
 * @example
 * checkElicitationUrl("https://xn--pple-43d.com/login")
 * // ok: { host: "xn--pple-43d.com", warnings: ["the host uses punycode (xn--) …"] }
 */
export function checkElicitationUrl(url: unknown): Result<CheckedUrl, UnsupportedElicitation> {
  if (typeof url !== "string") return unsafe(`is not a string: ${describeValue(url)}`);
  if (url.length > MAX_URL_LENGTH) {
    return unsafe(`is ${url.length} characters long; at most ${MAX_URL_LENGTH} are offered`);
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return unsafe(`does not parse: ${describeValue(url)}`);
  }
  // What is shown and opened is the normalised URL, which percent-encoding makes longer (a
  // character outside ASCII in the path takes up to 12): the limit holds for it too.
  if (parsed.href.length > MAX_URL_LENGTH) {
    return unsafe(
      `is ${parsed.href.length} characters long once encoded; at most ${MAX_URL_LENGTH} are offered`,
    );
  }
  const loopback = LOOPBACK.includes(parsed.hostname);
  if (parsed.protocol !== "https:" && !(parsed.protocol === "http:" && loopback)) {
    return unsafe(
      `uses ${describeValue(parsed.protocol.replace(/:$/, ""))}; only https (or http to this machine) is offered`,
    );
  }
  if (parsed.username !== "" || parsed.password !== "") {
    return unsafe(
      `has a user name before its host ("…@${parsed.host}"), which makes it read as another site`,
    );
  }
  const warnings: string[] = [];
  if (parsed.hostname.split(".").some((label) => label.startsWith("xn--"))) {
    warnings.push("the host uses punycode (xn--): it may imitate another name");
  }
  if (/^\d+\.\d+\.\d+\.\d+$/.test(parsed.hostname) || parsed.hostname.startsWith("[")) {
    warnings.push("the host is a bare IP address, not a name");
  }
  return ok({ href: parsed.href, host: parsed.host, warnings });
}
