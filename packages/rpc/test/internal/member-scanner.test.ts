import { Buffer } from "node:buffer";
import { describe, expect, it } from "vitest";
import { MemberScanner } from "../../src/internal/member-scanner.js";

// Fed in 3-byte pieces, so that every token is split across pushes somewhere.
function responseId(text: string) {
  const scanner = new MemberScanner();
  const bytes = Buffer.from(text);
  for (let start = 0; start < bytes.length; start += 3)
    scanner.push(bytes.subarray(start, start + 3));
  return scanner.responseId();
}

describe("MemberScanner", () => {
  it.each([
    ['{"jsonrpc":"2.0","id":7,"result":{"type":"answer","value":"x"}}', 7],
    ['{"jsonrpc":"2.0","result":{"id":3,"v":"a\\"}\\\\"},"id":"abc"}', "abc"],
    ['{ "id" : 12 , "result" : [1,2,{"id":5}] }', 12],
    ['{"i\\u0064":9,"result":1}', 9],
    ['{"a":"{\\"id\\":4}","id":8,"result":1}', 8],
    ['{"id":5,"result":"cut short', 5],
    // Two messages run together: the first one's, never a mix of both.
    ['{"id":7,"result":1}{"id":8,"method":"x"}', 7],
    ['{"id":7,"result":1} {"id":8}', 7],
  ])("reads the top-level id of %s", (text, id) => {
    expect(responseId(text)).toBe(id);
  });

  it.each([
    ['{"result":{"id":3}}'],
    ['{"id":7,"method":"x","params":{}}'],
    ['{"method":"x","id":7}'],
    ['[{"id":7,"result":1}]'],
    ['{"id":{"a":1},"result":1}'],
    ['{"id":1e400,"result":1}'],
    ['{"jsonrpc":"2.0","id":null,"result":1}'],
    [`{"${"k".repeat(100)}id":5,"result":1}`],
    [`{"id":"${"x".repeat(100)}","result":1}`],
    ["not json at all"],
    ['{"result":1}{"id":8,"result":1}'],
    [']{"id":8,"result":1}'],
  ])("reads no response id from %s", (text) => {
    expect(responseId(text)).toBeUndefined();
  });

  it.each([
    ['{"jsonrpc":"2.0","id":7,"method":"x","params":{"a":NaN}}', 7],
    ['{"method":"x","params":{"pad":"a\\"b"},"id":"r-1"}', "r-1"],
    ['{"jsonrpc":"1.0","method":"x","id":3}', 3],
    ['{"jsonrpc":"2.0","method":"x","id":3}{"id":8,"result":1}', 3],
  ])("reads the request id of %s", (text, id) => {
    const scanner = new MemberScanner();
    scanner.push(Buffer.from(text));
    expect(scanner.requestId()).toBe(id);
    expect(scanner.responseId()).toBeUndefined();
  });

  it.each([
    ['{"jsonrpc":"2.0","method":"x","params":{"id":4}}'],
    ['{"jsonrpc":"2.0","id":null,"method":"x"}'],
    ['{"jsonrpc":"2.0","id":7,"result":1}'],
    ['[{"jsonrpc":"2.0","id":7,"method":"x"}]'],
  ])("reads no request id from %s", (text) => {
    const scanner = new MemberScanner();
    scanner.push(Buffer.from(text));
    expect(scanner.requestId()).toBeUndefined();
  });
});
