import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { TLSSocket } from "node:tls";

/**
 * The page may load its own scripts, styles and API and nothing else: no inline script, no
 * inline style, no frames, no form posts, no other origins.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/** Headers on every response of the prompt server. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "Content-Security-Policy": CONTENT_SECURITY_POLICY,
  "X-Content-Type-Options": "nosniff",
  "X-Frame-Options": "DENY",
  "Referrer-Policy": "no-referrer",
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Resource-Policy": "same-origin",
  "Cache-Control": "no-store",
};

/** A fresh session token: 32 random bytes, base64url. */
export function newToken(): string {
  return randomBytes(32).toString("base64url");
}

/** Compares the request's bearer token with `token` in constant time. */
export function hasToken(req: IncomingMessage, token: string): boolean {
  const header = req.headers.authorization;
  if (header === undefined) return false;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (match === null) return false;
  // Hashing both sides gives equal lengths, which timingSafeEqual needs.
  const digest = (text: string) => createHash("sha256").update(text).digest();
  return timingSafeEqual(digest(match[1] ?? ""), digest(token));
}

/**
 * Whether a state-changing request comes from the page itself (or an origin the host allowed).
 * Browsers send `Origin` with every POST; a request without one is from a program, which the
 * token alone authorizes.
 */
export function originAllowed(req: IncomingMessage, allowed: ReadonlySet<string>): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) {
    const site = req.headers["sec-fetch-site"];
    return site === undefined || site === "same-origin" || site === "none";
  }
  return allowed.has(origin) || origin === ownOrigin(req);
}

/** The origin the request was sent to, from its `Host` header. */
function ownOrigin(req: IncomingMessage): string | undefined {
  const host = req.headers.host;
  if (host === undefined) return undefined;
  const secure = (req.socket as Partial<TLSSocket>).encrypted === true;
  return `${secure ? "https" : "http"}://${host}`;
}

/** Whether the request says its body is JSON. */
export function isJson(req: IncomingMessage): boolean {
  const type = req.headers["content-type"];
  return type !== undefined && /^application\/json\s*(;|$)/i.test(type);
}

/** Why a body could not be read. */
export type BodyProblem = "too_large" | "aborted";

/**
 * Reads the request body up to `limit` bytes. A body over the limit is refused as soon as it is
 * known to be: from `Content-Length`, or while reading.
 */
export function readBody(
  req: IncomingMessage,
  limit: number,
): Promise<{ ok: true; text: string } | { ok: false; problem: BodyProblem }> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > limit) {
    return Promise.resolve({ ok: false, problem: "too_large" });
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (result: { ok: true; text: string } | { ok: false; problem: BodyProblem }) => {
      if (done) return;
      done = true;
      req.off("data", onData);
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) finish({ ok: false, problem: "too_large" });
      else chunks.push(chunk);
    };
    req.on("data", onData);
    req.once("end", () => finish({ ok: true, text: Buffer.concat(chunks).toString("utf8") }));
    req.once("error", () => finish({ ok: false, problem: "aborted" }));
    req.once("close", () => finish({ ok: false, problem: "aborted" }));
  });
}

/** Sends a JSON response with the security headers. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...SECURITY_HEADERS,
    ...headers,
    "Content-Type": "application/json; charset=utf-8",
    "Content-Length": Buffer.byteLength(text),
  });
  res.end(text);
}
