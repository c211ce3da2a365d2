import { describe, expect, it } from "vitest";
import { type LineEvent, LineSplitter } from "../../src/internal/line-splitter.js";

const lines = (events: LineEvent[]) => events.map((e) => (e.type === "line" ? e.text : e));

describe("LineSplitter", () => {
  it("joins a line split across chunks", () => {
    const splitter = new LineSplitter(100);
    expect(splitter.push('{"a":')).toEqual([]);
    expect(splitter.push("1}")).toEqual([]);
    expect(lines(splitter.push('\n{"b":2}\n{"c"'))).toEqual(['{"a":1}', '{"b":2}']);
    expect(lines(splitter.push(":3}\n"))).toEqual(['{"c":3}']);
  });

  it("drops the \\r of CRLF line ends, also when the \\n arrives in the next chunk", () => {
    const splitter = new LineSplitter(100);
    expect(lines(splitter.push("one\r\ntwo\r"))).toEqual(["one"]);
    expect(lines(splitter.push("\n"))).toEqual(["two"]);
  });

  it("keeps a UTF-8 character split between chunks intact", () => {
    const bytes = Buffer.from('"héllo ✓"\n', "utf8");
    const splitter = new LineSplitter(100);
    const cut = bytes.indexOf(0xa9); // inside the two-byte "é"
    expect(splitter.push(bytes.subarray(0, cut))).toEqual([]);
    expect(lines(splitter.push(bytes.subarray(cut)))).toEqual(['"héllo ✓"']);
  });

  it("reports a line that is not valid UTF-8 apart, instead of passing it on with U+FFFD", () => {
    const splitter = new LineSplitter(100);
    const bad = Buffer.concat([Buffer.from('"a'), Buffer.from([0xc3]), Buffer.from('"\n"ok"\n')]);
    expect(splitter.push(bad)).toEqual([
      { type: "invalid_utf8", text: '"a\ufffd"', bytes: 4 },
      { type: "line", text: '"ok"' },
    ]);
  });

  it("skips blank lines", () => {
    expect(lines(new LineSplitter(100).push("\n\r\n  \nx\n\n"))).toEqual(["x"]);
  });

  it("reports an oversize line once, discards it up to its newline, then goes on", () => {
    const splitter = new LineSplitter(10);
    expect(splitter.push("0123456")).toEqual([]);
    expect(splitter.push("789abc")).toEqual([{ type: "oversize", bytes: 13 }]);
    expect(splitter.push("more and more")).toEqual([]);
    expect(lines(splitter.push("tail\nok\n"))).toEqual([
      { type: "oversize_end", bytes: 30, answering: undefined },
      "ok",
    ]);
  });

  it("reads the id of an oversize response as its bytes go by, wherever the member is", () => {
    const splitter = new LineSplitter(40);
    const answer = `{"type":"answer","value":"${"x".repeat(100)}"}`;
    expect(lines(splitter.push(`{"jsonrpc":"2.0","id":7,"result":${answer}}\n`))).toEqual([
      { type: "oversize", bytes: expect.any(Number) },
      { type: "oversize_end", bytes: expect.any(Number), answering: 7 },
    ]);
    splitter.push(`{"jsonrpc":"2.0","result":${answer.slice(0, 30)}`);
    expect(lines(splitter.push(`${answer.slice(30)},"id":"a-1"}\n`))).toEqual([
      { type: "oversize_end", bytes: expect.any(Number), answering: "a-1" },
    ]);
    // A request (it has a method) answers nothing, whatever its id: its id is read as its own.
    expect(
      lines(splitter.push(`{"jsonrpc":"2.0","id":8,"method":"m","params":${answer}}\n`)),
    ).toEqual([
      { type: "oversize", bytes: expect.any(Number) },
      { type: "oversize_end", bytes: expect.any(Number), answering: undefined, request: 8 },
    ]);
  });

  it("accepts a line of exactly the limit", () => {
    expect(lines(new LineSplitter(4).push("abcd\nabcde\n"))).toEqual([
      "abcd",
      { type: "oversize", bytes: 5 },
      { type: "oversize_end", bytes: 5, answering: undefined },
    ]);
  });

  it("does not count a CRLF's \\r toward the limit: a line of exactly the limit ends with \\r\\n", () => {
    expect(lines(new LineSplitter(4).push("abcd\r\nabcde\r\n"))).toEqual([
      "abcd",
      // The bytes seen when the limit was passed, `\r` included.
      { type: "oversize", bytes: 6 },
      { type: "oversize_end", bytes: 5, answering: undefined },
    ]);
    // In pieces, the `\r` arriving alone.
    const splitter = new LineSplitter(4);
    expect(lines(splitter.push("abcd"))).toEqual([]);
    expect(lines(splitter.push("\r"))).toEqual([]);
    expect(lines(splitter.push("\n"))).toEqual(["abcd"]);
  });

  it("a line one byte over the limit is oversize, also when that byte comes last or at the end of input", () => {
    const splitter = new LineSplitter(4);
    expect(lines(splitter.push("abcd"))).toEqual([]);
    expect(lines(splitter.push("e\n"))).toEqual([
      { type: "oversize", bytes: 5 },
      { type: "oversize_end", bytes: 5, answering: undefined },
    ]);
    expect(lines(splitter.push("abcde"))).toEqual([]);
    expect(lines(splitter.end())).toEqual([
      { type: "oversize", bytes: 5 },
      { type: "oversize_end", bytes: 5, answering: undefined },
    ]);
    // A lone `\r` inside the line is a byte of it like any other.
    expect(lines(new LineSplitter(4).push("ab\rcd\n"))).toEqual([
      { type: "oversize", bytes: 5 },
      { type: "oversize_end", bytes: 5, answering: undefined },
    ]);
  });

  it("counts the limit in bytes, not characters", () => {
    expect(lines(new LineSplitter(4).push("éé\néé!\n"))).toEqual([
      "éé",
      { type: "oversize", bytes: 5 },
      { type: "oversize_end", bytes: 5, answering: undefined },
    ]);
  });

  it("returns a last line without a newline at the end of input", () => {
    const splitter = new LineSplitter(100);
    expect(splitter.push("last")).toEqual([]);
    expect(lines(splitter.end())).toEqual(["last"]);
    expect(splitter.end()).toEqual([]);
  });

  it("accepts Uint8Array chunks without copying semantics getting in the way", () => {
    const splitter = new LineSplitter(100);
    expect(lines(splitter.push(new TextEncoder().encode("a\nb\n")))).toEqual(["a", "b"]);
  });
});
