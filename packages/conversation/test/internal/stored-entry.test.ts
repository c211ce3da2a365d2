import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { encodeEvent, type StreamEvent } from "../../src/index.js";
import { AtRestReader, toDisk } from "../../src/internal/at-rest.js";
import { holdsInexactNumber, numbersSeen } from "../../src/internal/numbers-seen.js";
import { decodeStoredEntry, readStoredEntry } from "../../src/internal/stored-entry.js";
import { arbitraries, type Fields, json, str } from "../support/event-arbitraries.js";

// Entries of events.json are read in one pass when they are as this package writes them, and by
// the general path otherwise. The one pass must never read an entry other than the general path:
// the same event, nothing to keep for write-back, the same numbers noted.

const configDelta = fc
  .tuple(str, fc.dictionary(str, json, { maxKeys: 3, noNullPrototype: true }))
  .map(([timestamp, delta]): Fields => ({ timestamp, type: "config_delta", delta }));
const event = fc.oneof(...Object.values(arbitraries), configDelta);

/** The entry of `events.json` a save writes for `fields`, as JSON.parse reads it. */
function onDisk(fields: Fields): Record<string, unknown> {
  const encoded = encodeEvent(fields as StreamEvent, { canonical: true });
  return JSON.parse(JSON.stringify(toDisk(encoded)));
}

// Ways an entry can differ from what this package writes.
const CHANGES = [
  "none",
  "not base64",
  "invalid UTF-8",
  "base64 not as written",
  "unknown key",
  "keys reversed",
  "key dropped",
  "value replaced",
  "integer past 2^53",
  "-0",
  "past a double's range",
  "nested deep",
  "empty metadata",
  "redacted with answer",
  "type swapped",
  "second payload",
  "option key",
] as const;
type Change = (typeof CHANGES)[number];

// The values of an entry that hold strings, for changes that reach inside.
function containers(entry: Record<string, unknown>): Record<string, unknown>[] {
  const found: Record<string, unknown>[] = [entry];
  for (const key of ["metadata", "arguments", "delta", "question", "data", "answer"]) {
    const value = entry[key];
    if (typeof value === "object" && value !== null && !Array.isArray(value))
      found.push(value as Record<string, unknown>);
  }
  return found;
}

function changed(
  entry: Record<string, unknown>,
  change: Change,
  n: number,
  value: unknown,
): Record<string, unknown> {
  const keys = Object.keys(entry);
  const key = keys[n % keys.length] as string;
  const inner = containers(entry);
  const target = inner[n % inner.length] as Record<string, unknown>;
  switch (change) {
    case "none":
      return entry;
    case "not base64":
      if (entry.type === "tool_call_response") entry.content = "not base64!";
      else target.x_text = "plain text";
      return entry;
    case "base64 not as written":
      // Reads as "a", but encoding "a" gives "YQ==": the entry is not as this package writes it.
      if (entry.type === "tool_call_response") entry.content = "YR==";
      else target.x_text = "YR==";
      return entry;
    case "invalid UTF-8":
      if (entry.type === "tool_call_response") entry.content = "/w==";
      else entry.metadata = { note: "/w==" };
      return entry;
    case "unknown key":
      target.x_unknown = value;
      return entry;
    case "keys reversed":
      return Object.fromEntries(Object.entries(entry).reverse());
    case "key dropped":
      delete entry[key];
      return entry;
    case "value replaced":
      entry[key] = value;
      return entry;
    case "integer past 2^53":
      target[key === "type" ? "x" : key] = JSON.parse("12345678901234567890");
      return entry;
    case "-0":
      // Each spelling of a negative zero JSON.parse reads as -0.
      target.x = JSON.parse(["-0", "-0.0", "-0.000", "-0e0", "-0E+3", "-1e-400"][n % 6] as string);
      return entry;
    case "past a double's range":
      // JSON.parse reads 1e400 as Infinity, which is no JSON data.
      target.x = JSON.parse("[1e400]");
      return entry;
    case "nested deep": {
      let deep: unknown = "aGk=";
      for (let i = 0; i < 70; i++) deep = [deep];
      if (entry.type === "tool_call_request") (entry.arguments as Record<string, unknown>).d = deep;
      else entry.metadata = { d: deep };
      return entry;
    }
    case "empty metadata":
      entry.metadata = {};
      return entry;
    case "redacted with answer":
      entry.outcome = "redacted";
      entry.answer = value;
      return entry;
    case "type swapped":
      entry.type = Object.keys(arbitraries)[n % 7];
      return entry;
    case "second payload": {
      // A chat response with two of message, reasoning and data; an answer with a reason.
      // The one added holds a number JSON.parse rounds where it can: it must still be noted.
      if (entry.type === "chat_response") {
        if (entry.data === undefined) entry.data = JSON.parse("[12345678901234567890]");
        else entry.message = "both";
      } else if (entry.reason === undefined) entry.reason = "both";
      else entry.answer = JSON.parse("[12345678901234567890]");
      return inJpOrder(entry);
    }
    case "option key": {
      const question = entry.question as { answer_type?: { options?: unknown[] } } | undefined;
      const first = question?.answer_type?.options?.[0];
      if (typeof first === "object" && first !== null)
        (first as Record<string, unknown>).x = JSON.parse("12345678901234567890");
      return entry;
    }
  }
}

// The keys of a chat or inquiry response in the order JP writes them.
function inJpOrder(entry: Record<string, unknown>): Record<string, unknown> {
  const order = ["timestamp", "type", "outcome", "id", "message", "reasoning", "data"];
  const keys = [...order, "answer", "reason", "metadata"].filter((k) => k in entry);
  return Object.fromEntries(keys.map((k) => [k, entry[k]]));
}

// Unknown fields left out, as this package writes its own events.
function withoutUnknown(fields: Fields): Fields {
  const out = Object.fromEntries(Object.entries(fields).filter(([k]) => !k.startsWith("x_")));
  if (typeof out.question === "object" && out.question !== null)
    out.question = withoutUnknown(out.question as Fields);
  return out;
}

const entries = fc
  .tuple(
    event,
    fc.boolean(),
    fc.oneof(
      { arbitrary: fc.constant<Change>("none"), weight: 1 },
      { arbitrary: fc.constantFrom(...CHANGES), weight: 2 },
    ),
    fc.nat(),
    json,
  )
  .map(([given, known, change, n, value]) => {
    const fields = known ? withoutUnknown(given) : given;
    return { fields, change, entry: changed(onDisk(fields), change, n, value) };
  });

/**
 * Reads `entry` both ways; "refused" if the one pass leaves it to the general path. `expected`:
 * whether the one pass must take it.
 */
function bothWays(entry: Record<string, unknown>, expected: boolean): "accepted" | "refused" {
  const mine = structuredClone(entry);
  numbersSeen.inexact = false;
  const fast = decodeStoredEntry(mine, new AtRestReader());
  const noted = numbersSeen.inexact;
  if (expected) expect(fast).toBeDefined();
  if (fast === undefined) {
    expect(mine).toStrictEqual(entry);
    return "refused";
  }
  numbersSeen.inexact = false;
  const general = readStoredEntry(structuredClone(entry), 0, new AtRestReader());
  expect(typeof general).toBe("object");
  if (typeof general === "string") return "accepted";
  expect(fast).toStrictEqual(general.event);
  expect(general.keep).toBe(false);
  // Saved again, it is written exactly as it was read, keys in the same order.
  expect(JSON.stringify(toDisk(encodeEvent(fast)))).toBe(JSON.stringify(entry));
  // Numbers JSON.parse may have rounded send the loader to the file's text either way.
  expect(noted).toBe(numbersSeen.inexact || general.inexact);
  expect(noted).toBe(holdsInexactNumber(entry));
  return "accepted";
}

// One field of an event as this package writes it (or of its question) given another value:
// null, a value of another kind, or the JSON a field of no known place could hold.
const oneFieldReplaced = fc
  .tuple(event.map(withoutUnknown), fc.nat(), fc.oneof(json, fc.constant(null), str))
  .map(([fields, n, value]) => {
    const entry = onDisk(fields);
    const question = entry.question as Record<string, unknown> | undefined;
    const keys = Object.keys(entry).filter((k) => k !== "type");
    const target = question !== undefined && n % 2 === 0 ? question : entry;
    const names =
      target === entry
        ? keys
        : ["text", "answer_type", "default", "context", "exclusive", "persistence"];
    target[names[(n >> 1) % names.length] as string] = value;
    return entry;
  });

describe("reading an entry of events.json in one pass", () => {
  it("reads only what the general path reads the same, and leaves the rest untouched", () => {
    let accepted = 0;
    let refused = 0;
    fc.assert(
      fc.property(entries, ({ fields, change, entry }) => {
        // Unknown fields (`x_…`, at the top or in a question) are the general path's to read.
        const known = [fields, fields.question ?? {}].every((o) =>
          Object.keys(o).every((k) => !k.startsWith("x_")),
        );
        // Everything this package writes is read in one pass.
        if (bothWays(entry, change === "none" && known) === "accepted") accepted++;
        else refused++;
      }),
      { numRuns: 3000 },
    );
    // Both ways must be taken often enough for the property to mean something.
    expect(accepted).toBeGreaterThan(500);
    expect(refused).toBeGreaterThan(500);
  });

  it("reads a field of another value only as the general path reads it", () => {
    let accepted = 0;
    fc.assert(
      fc.property(oneFieldReplaced, (entry) => {
        if (bothWays(entry, false) === "accepted") accepted++;
      }),
      { numRuns: 2000 },
    );
    expect(accepted).toBeGreaterThan(200);
  });

  it("leaves an option with a field of no known place to the general path", () => {
    const entry = onDisk({
      timestamp: "t",
      type: "inquiry_request",
      id: "c.q",
      source: { source: "assistant" },
      question: { text: "Which?", answer_type: { type: "select", options: [{ value: 1 }] } },
    });
    expect(bothWays(entry, true)).toBe("accepted");
    const options = (entry.question as { answer_type: { options: Record<string, unknown>[] } })
      .answer_type.options;
    (options[0] as Record<string, unknown>).note = JSON.parse("12345678901234567890");
    expect(bothWays(entry, false)).toBe("refused");
  });

  it("decodes a key named __proto__ as data, and gives it back when the entry is left", () => {
    const text = (args: string) =>
      `{"timestamp":"t","type":"tool_call_request","id":"c","name":"n","arguments":${args}}`;
    const entry = JSON.parse(text(`{"__proto__":"aGk=","list":["aGk=",{"__proto__":"aGk="}]}`));
    const event = decodeStoredEntry(entry, new AtRestReader()) as unknown as Fields;
    const args = event.arguments as Record<string, unknown>;
    expect(Object.getPrototypeOf(args)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(args, "__proto__")?.value).toBe("hi");
    expect(JSON.stringify(args)).toBe(`{"__proto__":"hi","list":["hi",{"__proto__":"hi"}]}`);
    // The last string is not base64: everything decoded before it is put back.
    const left = JSON.parse(text(`{"__proto__":"aGk=","list":["aGk=",{"__proto__":"aGk="},"?"]}`));
    expect(decodeStoredEntry(left, new AtRestReader())).toBeUndefined();
    expect(JSON.stringify(left.arguments)).toBe(
      `{"__proto__":"aGk=","list":["aGk=",{"__proto__":"aGk="},"?"]}`,
    );
    expect(Object.getPrototypeOf(left.arguments)).toBe(Object.prototype);
    // What was put back is that entry's alone: the one read before it stays decoded.
    expect(JSON.stringify(args)).toBe(`{"__proto__":"hi","list":["hi",{"__proto__":"hi"}]}`);
  });

  it("leaves values nested past the call stack's depth to the general path", () => {
    let deep: unknown = "aGk=";
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const entry = {
      timestamp: "t",
      type: "tool_call_request",
      id: "c",
      name: "n",
      arguments: { deep },
    };
    expect(decodeStoredEntry(entry, new AtRestReader())).toBeUndefined();
    expect(readStoredEntry(entry, 4, new AtRestReader())).toBe("[4]: too deeply nested");
  });

  it("decodes strings at rest in arguments, results and metadata", () => {
    const entry = onDisk({
      timestamp: "2026-03-05 22:00:00.0",
      type: "tool_call_request",
      id: "call_1",
      name: "fs_modify_file",
      arguments: { path: "src/é.rs", patterns: [{ old: "a".repeat(300), new: "b" }], n: 2 },
      metadata: { tool: { note: "ok" } },
    });
    expect(entry.arguments).toStrictEqual({
      path: "c3JjL8OpLnJz",
      patterns: [{ old: Buffer.from("a".repeat(300)).toString("base64"), new: "Yg==" }],
      n: 2,
    });
    const event = decodeStoredEntry(entry, new AtRestReader()) as unknown as Fields;
    expect(event.arguments).toStrictEqual({
      path: "src/é.rs",
      patterns: [{ old: "a".repeat(300), new: "b" }],
      n: 2,
    });
    expect(event.metadata).toStrictEqual({ tool: { note: "ok" } });
    const result = onDisk({
      timestamp: "2026-03-05 22:00:00.0",
      type: "tool_call_response",
      id: "call_1",
      content: "done ✓",
      is_error: false,
    });
    expect((decodeStoredEntry(result, new AtRestReader()) as unknown as Fields).content).toBe(
      "done ✓",
    );
  });
});
