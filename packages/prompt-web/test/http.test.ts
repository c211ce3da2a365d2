import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { QuestionPromptRequest } from "@jp/coordinator";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  createWebPromptHandler,
  createWebPrompts,
  type StandaloneWebPrompts,
  type WebPromptsEvents,
} from "../src/index.js";
import { api, openPrompt, originOf, postReply, state, TEXT_QUESTION } from "./support/server.js";
import { startWebPrompts } from "./support/start.js";

type Refusal = Parameters<WebPromptsEvents["request-refused"]>[0];

let web: StandaloneWebPrompts;
let refusals: Refusal[];
beforeEach(async () => {
  web = await startWebPrompts({ waitForPageMs: Number.POSITIVE_INFINITY, maxBodyBytes: 4096 });
  refusals = [];
  web.on("request-refused", (event) => refusals.push(event));
});
afterEach(async () => {
  await web.close();
});

describe("the standalone server", () => {
  it("listens on 127.0.0.1 and links to the page with the token in the fragment", () => {
    const url = new URL(web.url);
    expect(url.hostname).toBe("127.0.0.1");
    expect(url.pathname).toBe("/");
    expect(url.search).toBe("");
    expect(url.hash).toBe(`#token=${web.token}`);
    expect(web.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it("serves the page with a Content-Security-Policy that forbids inline script", async () => {
    const response = await fetch(originOf(web));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const csp = response.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain("unsafe-inline");
    expect(csp).not.toContain("unsafe-eval");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(response.headers.get("referrer-policy")).toBe("no-referrer");
    const html = await response.text();
    // Every script is a file of the page: no inline script for the policy to allow.
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
  });

  it("serves the page's scripts and styles, and nothing else from the package", async () => {
    for (const [path, type] of [
      ["/app.js", "text/javascript; charset=utf-8"],
      ["/app.css", "text/css; charset=utf-8"],
    ] as const) {
      const response = await fetch(`${originOf(web)}${path}`);
      expect(response.status, path).toBe(200);
      expect(response.headers.get("content-type")).toBe(type);
    }
    for (const path of ["/index.ts", "/../package.json", "/%2e%2e/package.json", "/api", "/x"]) {
      expect((await fetch(`${originOf(web)}${path}`)).status, path).toBe(404);
    }
  });
});

describe("the Host a request names", () => {
  it("on a loopback address, a foreign host name is refused before anything (DNS rebinding)", async () => {
    const port = new URL(web.url).port;
    for (const [host, status] of [
      [`evil.example:${port}`, 421],
      [`localhost:${port}`, 200],
      [`127.0.0.1:${port}`, 200],
      [`LOCALHOST:${port}`, 200],
    ] as const) {
      expect(await rawGet(web, "/", host), host).toBe(status);
    }
    await rawGet(web, "/api/state", `evil.example:${port}`);
    expect(refusals.at(-1)).toMatchObject({
      status: 421,
      reason: "the request is addressed to another host name",
    });
  });

  it("takes the host names of allowed origins too, and any name when mounted", async () => {
    await web.close();
    web = await startWebPrompts({ allowedOrigins: ["http://app.example:8080"] });
    expect(await rawGet(web, "/", "app.example:8080")).toBe(200);
    expect(await rawGet(web, "/", "other.example")).toBe(421);
  });
});

describe("the session token", () => {
  it.each([
    ["no token", null],
    ["a forged token", "A".repeat(43)],
    ["the token with a character changed", "changed"],
  ])("%s: every API call is refused with 401", async (_, token) => {
    const forged = token === "changed" ? `${web.token.slice(0, -1)}x` : token;
    const { id, reply, abort } = await openPrompt(web, TEXT_QUESTION);
    for (const response of [
      await api(web, "state", { token: forged }),
      await api(web, "events", { token: forged }),
      await postReply(web, id, { type: "answer", value: "Mallory" }, { token: forged }),
    ]) {
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toContain("Bearer");
      expect(await response.json()).toEqual({
        error: { message: "a valid session token is required" },
      });
    }
    expect((await state(web)).conversations).toHaveLength(1);
    abort.abort();
    expect(await reply).toEqual({ type: "cancelled" });
  });

  it("accepts the token from the link, and answers a prompt with it", async () => {
    const { id, reply } = await openPrompt(web, TEXT_QUESTION);
    const response = await postReply(web, id, { type: "answer", value: "Ada" });
    expect(response.status).toBe(200);
    expect(await reply).toEqual({ type: "answer", value: "Ada" });
  });

  it("never shows up in a refusal the server reports", async () => {
    await api(web, `state?token=${web.token}`, { token: "wrong-token-wrong-token" });
    expect(refusals).toHaveLength(1);
    expect(JSON.stringify(refusals)).not.toContain(web.token);
    expect(refusals[0]).toEqual({
      method: "GET",
      path: "/api/state",
      status: 401,
      reason: "a valid session token is required",
    });
  });
});

describe("requests that change state", () => {
  it("refuses a cross-origin POST even with the right token; the prompt stays open", async () => {
    const { id, reply, abort } = await openPrompt(web, TEXT_QUESTION);
    const response = await postReply(
      web,
      id,
      { type: "answer", value: "from evil" },
      { headers: { Origin: "http://evil.example" } },
    );
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({
      error: { message: "the request comes from another origin" },
    });
    expect((await state(web)).conversations[0]?.prompts[0]?.id).toBe(id);
    abort.abort();
    expect(await reply).toEqual({ type: "cancelled" });
  });

  it("refuses a cross-site request without Origin (Sec-Fetch-Site)", async () => {
    const { id, abort } = await openPrompt(web, TEXT_QUESTION);
    const response = await api(web, `prompts/${id}/reply`, {
      method: "POST",
      body: JSON.stringify({ type: "cancelled" }),
      headers: { "Sec-Fetch-Site": "cross-site" },
    });
    expect(response.status).toBe(403);
    abort.abort();
  });

  it("accepts an origin the host allowed", async () => {
    await web.close();
    web = await startWebPrompts({ allowedOrigins: ["https://app.example"], waitForPageMs: 5000 });
    const { id, reply } = await openPrompt(web, TEXT_QUESTION);
    const response = await postReply(
      web,
      id,
      { type: "answer", value: "ok" },
      { headers: { Origin: "https://app.example" } },
    );
    expect(response.status).toBe(200);
    expect(await reply).toEqual({ type: "answer", value: "ok" });
  });

  it("changes nothing on GET: the reply endpoint answers 405 and the prompt stays", async () => {
    const { id, abort } = await openPrompt(web, TEXT_QUESTION);
    const response = await api(web, `prompts/${id}/reply`);
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("POST");
    expect((await state(web)).conversations).toHaveLength(1);
    const post = await api(web, "state", { method: "POST", body: "{}" });
    expect(post.status).toBe(405);
    // HEAD would open the live stream (and count as a page): only the page's files take it.
    expect((await api(web, "events", { method: "HEAD" })).status).toBe(405);
    expect(web.pagesConnected).toBe(0);
    expect((await fetch(originOf(web), { method: "HEAD" })).status).toBe(200);
    abort.abort();
  });

  it("wants JSON: another content type is refused with 415", async () => {
    const { id, abort } = await openPrompt(web, TEXT_QUESTION);
    const response = await postReply(web, id, undefined, {
      body: "type=cancelled",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
    });
    expect(response.status).toBe(415);
    abort.abort();
  });

  it("refuses a body over the size limit with 413 (declared or streamed)", async () => {
    const { id, abort } = await openPrompt(web, TEXT_QUESTION);
    const big = JSON.stringify({ type: "answer", value: "x".repeat(5000) });
    const declared = await postReply(web, id, undefined, { body: big });
    expect(declared.status).toBe(413);
    const streamed = await rawPost(web, `/api/prompts/${id}/reply`, [
      big.slice(0, 3000),
      big.slice(3000),
    ]);
    expect(streamed).toBe(413);
    expect((await state(web)).conversations).toHaveLength(1);
    abort.abort();
  });

  it("says a body is not JSON without quoting it", async () => {
    const { id, abort } = await openPrompt(web, TEXT_QUESTION);
    const response = await postReply(web, id, undefined, {
      body: '{"type":"answer","value":"hunter2',
    });
    expect(response.status).toBe(400);
    const text = await response.text();
    expect(text).not.toContain("hunter2");
    expect(JSON.parse(text)).toEqual({ error: { message: "the request body is not valid JSON" } });
    abort.abort();
  });
});

describe("replies", () => {
  it("an invalid answer is refused with 422 and the problem; the prompt stays for a correction", async () => {
    const request: QuestionPromptRequest = {
      ...TEXT_QUESTION,
      question: {
        id: "n",
        text: "How many?",
        answer_type: { type: "select", options: ["1", "2"] },
      },
    };
    const { id, reply } = await openPrompt(web, request);
    const refused = await postReply(web, id, { type: "answer", value: "3" });
    expect(refused.status).toBe(422);
    expect(await refused.json()).toEqual({
      error: { message: 'expected one of "1", "2", got "3"' },
    });
    expect((await postReply(web, id, { type: "answer", value: "2" })).status).toBe(200);
    expect(await reply).toEqual({ type: "answer", value: "2" });
  });

  it("the prompt-opened event leaves out an earlier answer; the page still gets it to pre-fill", async () => {
    // After Back, the question comes again with the person's earlier answer as `initial`.
    const request: QuestionPromptRequest = {
      ...TEXT_QUESTION,
      inquiry_id: "call_1.answer.2",
      initial: "Ada Lovelace, 12 Main St",
    };
    const events: unknown[] = [];
    web.on("prompt-opened", (event) => events.push(event));
    const { id, reply, abort } = await openPrompt(web, request);
    expect(JSON.stringify(events)).not.toContain("Ada Lovelace");
    const { initial: _initial, ...rest } = request;
    expect(events).toEqual([{ promptId: id, conversationId: "default", request: rest }]);
    const [prompt] = (await state(web)).conversations[0]?.prompts ?? [];
    expect(prompt?.request).toEqual(request);
    abort.abort();
    expect(await reply).toEqual({ type: "cancelled" });
  });

  it("the prompt-opened event leaves out why a question is asked again: it quotes the rejected answer", async () => {
    // Asked again after an answer that did not validate: `error` says what came.
    const request: QuestionPromptRequest = {
      ...TEXT_QUESTION,
      inquiry_id: "call_1.answer.2",
      error: 'expected one of "Ada", "Grace", got "Ada Lovelace, 12 Main St"',
    };
    const events: unknown[] = [];
    web.on("prompt-opened", (event) => events.push(event));
    const { id, reply, abort } = await openPrompt(web, request);
    expect(JSON.stringify(events)).not.toContain("Ada Lovelace");
    const { error: _error, ...rest } = request;
    expect(events).toEqual([{ promptId: id, conversationId: "default", request: rest }]);
    // The page still shows the person why.
    const [prompt] = (await state(web)).conversations[0]?.prompts ?? [];
    expect(prompt?.request).toEqual(request);
    abort.abort();
    expect(await reply).toEqual({ type: "cancelled" });
  });

  it("a prompt that is gone answers 404; one waiting behind another answers 409", async () => {
    const backend = web.backend({ conversationId: "c" });
    const ids: string[] = [];
    web.on("prompt-opened", (event) => ids.push(event.promptId));
    const abort = new AbortController();
    const first = backend.ask(TEXT_QUESTION, { signal: abort.signal });
    const second = backend.ask(TEXT_QUESTION, { signal: abort.signal });
    const [one = "", two = ""] = ids;
    expect((await postReply(web, two, { type: "answer", value: "b" })).status).toBe(409);
    expect((await postReply(web, one, { type: "answer", value: "a" })).status).toBe(200);
    expect((await postReply(web, one, { type: "answer", value: "a" })).status).toBe(404);
    expect((await postReply(web, two, { type: "answer", value: "b" })).status).toBe(200);
    expect([await first, await second]).toEqual([
      { type: "answer", value: "a" },
      { type: "answer", value: "b" },
    ]);
  });
});

describe("mounted in a host's server", () => {
  let server: Server;
  let origin: string;
  afterEach(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  async function mount(basePath: string) {
    const prompts = createWebPromptHandler({ basePath, waitForPageMs: 5000 });
    let fallthrough = 0;
    server = createServer((req, res) => {
      prompts.handle(req, res, () => {
        fallthrough += 1;
        res.end("host page");
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return { prompts, fallthrough: () => fallthrough };
  }

  it("serves the page under its base path and leaves the host's paths alone", async () => {
    const { prompts, fallthrough } = await mount("/prompts/");
    expect(prompts.pagePath).toBe(`/prompts/#token=${prompts.token}`);
    const bare = await fetch(`${origin}/prompts`, { redirect: "manual" });
    expect(bare.status).toBe(308);
    expect(bare.headers.get("location")).toBe("/prompts/");
    expect((await fetch(`${origin}/prompts/`)).headers.get("content-security-policy")).toContain(
      "script-src 'self'",
    );
    expect(await (await fetch(`${origin}/`)).text()).toBe("host page");
    expect(await (await fetch(`${origin}/promptsx/`)).text()).toBe("host page");
    expect(fallthrough()).toBe(2);
    const state = await fetch(`${origin}/prompts/api/state`, {
      headers: { Authorization: `Bearer ${prompts.token}` },
    });
    expect(state.status).toBe(200);
    prompts.close();
  });

  it("returns false without next()", async () => {
    const prompts = createWebPromptHandler();
    server = createServer((req, res) => {
      if (!prompts.handle(req, res)) res.end("mine");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    expect(await (await fetch(`${origin}/`)).text()).toContain("<title>Prompts</title>");
    prompts.close();
  });
});

describe("starting", () => {
  it("a port in use is a listen error, not an exception", async () => {
    const port = Number(new URL(web.url).port);
    const again = await createWebPrompts({ port });
    expect(again.isErr() && again.error).toEqual({
      kind: "listen",
      message: `could not listen on 127.0.0.1:${port}: the port is in use (EADDRINUSE)`,
      code: "EADDRINUSE",
    });
  });

  it("an address this machine does not have is a listen error", async () => {
    const started = await createWebPrompts({ host: "192.0.2.1" });
    expect(started.isErr() && started.error.code).toBe("EADDRNOTAVAIL");
  });

  it("bad options throw before anything listens", async () => {
    await expect(createWebPrompts({ basePath: "nope" })).rejects.toThrow(TypeError);
  });
});

describe("options", () => {
  it.each([
    [{ basePath: "prompts" }, '`basePath` must look like "/prompts", got "prompts"'],
    [{ basePath: "/a//b" }, '`basePath` must look like "/prompts", got "/a//b"'],
    [{ token: "short" }, "`token` must be at least 16 URL-safe characters"],
    [{ token: "has spaces in it, sixteen+" }, "`token` must be at least 16 URL-safe characters"],
    [
      { waitForPageMs: -1 },
      "`waitForPageMs` must be a number of milliseconds, at least 0 (Infinity for no limit); got -1",
    ],
    [
      { disconnectGraceMs: Number.NaN },
      "`disconnectGraceMs` must be a number of milliseconds, at least 0 (Infinity for no limit); got NaN",
    ],
    [{ maxBodyBytes: 0 }, "`maxBodyBytes` must be a whole number of bytes, at least 1; got 0"],
    [
      { allowedOrigins: ["https://app.example/"] },
      '`allowedOrigins` holds "https://app.example/", which is not an origin like "https://app.example" (did you mean "https://app.example"?)',
    ],
    [
      { allowedOrigins: ["app.example"] },
      '`allowedOrigins` holds "app.example", which is not an origin like "https://app.example"',
    ],
  ])("%j is refused", (options, message) => {
    expect(() => createWebPromptHandler(options)).toThrow(message);
  });

  it("a conversation id must not be empty", () => {
    expect(() => createWebPromptHandler().backend({ conversationId: "" })).toThrow(
      "`conversationId` must not be empty",
    );
  });
});

/** Posts `chunks` without a Content-Length (chunked), from the page's origin; resolves the status. */
function rawPost(web: StandaloneWebPrompts, path: string, chunks: string[]): Promise<number> {
  const url = new URL(path, originOf(web));
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      {
        method: "POST",
        headers: {
          Authorization: `Bearer ${web.token}`,
          "Content-Type": "application/json",
          Origin: originOf(web),
        },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on("error", reject);
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}

/** A GET with a `Host` header of our choosing (fetch does not let one set it). */
function rawGet(web: StandaloneWebPrompts, path: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(new URL(path, originOf(web)), { headers: { Host: host } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on("error", reject);
    req.end();
  });
}
