import { describe, expect, it } from "vitest";
import { classify } from "../../src/internal/message.js";

describe("classify", () => {
  it.each([
    ["a request", { jsonrpc: "2.0", id: 1, method: "m", params: {} }, { type: "request", id: 1 }],
    [
      "a request with a string id",
      { jsonrpc: "2.0", id: "a", method: "m" },
      { type: "request", id: "a" },
    ],
    [
      "a request with a null id",
      { jsonrpc: "2.0", id: null, method: "m" },
      { type: "request", id: null },
    ],
    ["a notification", { jsonrpc: "2.0", method: "m", params: [1] }, { type: "notification" }],
    ["a result", { jsonrpc: "2.0", id: 3, result: null }, { type: "response", id: 3 }],
    [
      "an error response",
      { jsonrpc: "2.0", id: null, error: { code: -32700, message: "x" } },
      { type: "response", id: null },
    ],
  ])("reads %s", (_name, message, expected) => {
    expect(classify(message)).toMatchObject(expected);
  });

  it.each([
    ["a string", "hello", null, "must be a JSON object"],
    ["null", null, null, "must be a JSON object"],
    ["no jsonrpc member", { id: 1, method: "m" }, 1, '"jsonrpc" member'],
    ["jsonrpc 1.0", { jsonrpc: "1.0", id: 1, method: "m" }, 1, '"jsonrpc" member'],
    ["a numeric method", { jsonrpc: "2.0", id: 1, method: 5 }, 1, '"method" member'],
    ["scalar params", { jsonrpc: "2.0", id: 1, method: "m", params: 3 }, 1, '"params"'],
    ["an object id", { jsonrpc: "2.0", id: {}, method: "m" }, null, '"id" member'],
    ["a request with a result", { jsonrpc: "2.0", id: 1, method: "m", result: 1 }, 1, "must not"],
    ["neither method nor id", { jsonrpc: "2.0" }, null, '"method"'],
    [
      "a response with an object id",
      { jsonrpc: "2.0", id: { n: 1 }, result: 1 },
      null,
      'the "id" member of a response',
    ],
    [
      "a response with a boolean id",
      { jsonrpc: "2.0", id: true, result: 1 },
      null,
      'the "id" member of a response',
    ],
  ])("rejects %s, answering with the readable id", (_name, message, id, reason) => {
    const got = classify(message);
    expect(got).toMatchObject({ type: "invalid", id });
    expect(got.type === "invalid" && got.reason).toContain(reason);
  });

  it.each([
    [
      "both result and error",
      { jsonrpc: "2.0", id: 4, result: 1, error: { code: 1, message: "" } },
    ],
    ["neither result nor error", { jsonrpc: "2.0", id: 4 }],
    ["an error without a code", { jsonrpc: "2.0", id: 4, error: { message: "x" } }],
    ["a wrong jsonrpc", { jsonrpc: "1.0", id: 4, result: 1 }],
  ])("answers a broken response (%s) with id null, naming the request it meant", (_n, message) => {
    expect(classify(message)).toMatchObject({ type: "invalid", id: null, answering: 4 });
  });
});
