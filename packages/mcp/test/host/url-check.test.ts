import { describe, expect, it } from "vitest";
import { checkElicitationUrl, MAX_URL_LENGTH } from "../../src/index.js";
import { URL_REQUEST } from "../fixtures/spec-examples.js";

describe("checkElicitationUrl", () => {
  it.each([
    ["the spec's example", URL_REQUEST.url, "mcp.example.com", []],
    ["a port stays in the host", "https://example.com:8443/x", "example.com:8443", []],
    ["http to this machine", "http://localhost:3000/cb", "localhost:3000", []],
    [
      "http to loopback",
      "http://127.0.0.1/cb",
      "127.0.0.1",
      ["the host is a bare IP address, not a name"],
    ],
    [
      "a punycode host is shown in ASCII with a warning",
      "https://аpple.com/login",
      "xn--pple-43d.com",
      ["the host uses punycode (xn--): it may imitate another name"],
    ],
    [
      "an IP address host",
      "https://203.0.113.9/",
      "203.0.113.9",
      ["the host is a bare IP address, not a name"],
    ],
  ])("offers %s", (_name, url, host, warnings) => {
    const checked = checkElicitationUrl(url)._unsafeUnwrap();
    expect(checked.host).toBe(host);
    expect(checked.warnings).toEqual(warnings);
  });

  it.each([
    [
      "a user name that reads as another host",
      "https://bank.example.com@evil.example/",
      'has a user name before its host ("…@evil.example")',
    ],
    ["a password", "https://user:pw@example.com/", "has a user name before its host"],
    ["plain http elsewhere", "http://example.com/", 'uses "http"; only https'],
    ["javascript:", "javascript:alert(1)", 'uses "javascript"'],
    ["file:", "file:///etc/passwd", 'uses "file"'],
    ["garbage", "not a url", "does not parse"],
    ["a non-string", 42, "is not a string: 42"],
    [
      "an overlong URL",
      `https://example.com/${"a".repeat(MAX_URL_LENGTH)}`,
      `at most ${MAX_URL_LENGTH}`,
    ],
    [
      "a URL that only encoding makes overlong (what is shown and opened)",
      `https://example.com/${"é".repeat(1000)}`,
      `characters long once encoded; at most ${MAX_URL_LENGTH}`,
    ],
  ])("refuses %s", (_name, url, message) => {
    const error = checkElicitationUrl(url)._unsafeUnwrapErr();
    expect(error.kind).toBe("unsafe-url");
    expect(error.message).toContain(message);
  });
});
