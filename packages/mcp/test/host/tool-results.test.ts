// What a server's tool result puts in front of the model and into the record is bounded: a
// result over the limit is cut at a whole character and says how long it was, on either era.
import type { JsonObject } from "@jp/conversation";
import { InMemoryTransport } from "@modelcontextprotocol/client";
import { fromJsonSchema, McpServer } from "@modelcontextprotocol/server";
import { afterEach, describe, expect, it } from "vitest";
import { connectMcpServer } from "../../src/index.js";
import { scriptedServer } from "../scripted-server.js";
import { responseOf, run, unpaired } from "../support.js";

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

/** The recorded response of one call whose result is `result` (2026-07-28). */
async function resultOf(result: JsonObject, options: Parameters<typeof scriptedServer>[1] = {}) {
  const server = await scriptedServer(
    () => ({ result: { resultType: "complete", ...result } }),
    options,
  );
  open.push(server);
  const { stream } = await run(server.connection, [{ id: "c1", name: "t" }]);
  expect(unpaired(stream)).toEqual([]);
  return responseOf(stream, "c1");
}

const text = (t: string) => ({ type: "text" as const, text: t });

describe("a tool's result", () => {
  it("of 100 000 characters reaches the model whole", async () => {
    const whole = `${"a".repeat(49_999)}\n\n${"b".repeat(49_999)}`;
    const response = await resultOf({
      content: [text("a".repeat(49_999)), text("b".repeat(49_999))],
    });
    expect(response).toEqual({ content: whole, is_error: false });
  });

  it("longer is cut to its first 100 000 characters, saying how long it was", async () => {
    const response = await resultOf({
      content: [text("a".repeat(60_000)), text("b".repeat(60_000))],
      isError: true,
    });
    expect(response).toEqual({
      is_error: true,
      content: `${"a".repeat(60_000)}\n\n${"b".repeat(39_998)}… (cut: 120002 characters in all)`,
    });
  });

  it("of a hundred thousand small blocks is cut the same way", async () => {
    const response = await resultOf({
      content: Array.from({ length: 100_000 }, () => ({
        type: "image",
        data: "",
        mimeType: "image/png",
      })),
    });
    expect(response.content.length).toBeLessThan(100_100);
    expect(response.content).toMatch(
      /^\[image image\/png\]\n\n\[image image\/png\][\s\S]*… \(cut: 1899998 characters in all\)$/,
    );
  });

  it("never loses half of a character where it is cut", async () => {
    const response = await resultOf({ content: [text(`${"a".repeat(99_999)}😀tail`)] });
    expect(response.content).toBe(`${"a".repeat(99_999)}… (cut: 100005 characters in all)`);
  });

  it("given as structured content only is bounded the same way", async () => {
    const response = await resultOf({ content: [], structuredContent: { x: "y".repeat(200_000) } });
    expect(response.content).toBe(`{"x":"${"y".repeat(99_994)}… (cut: 200008 characters in all)`);
  });

  it("names each block of another kind in at most a few hundred characters", async () => {
    const response = await resultOf({
      content: [
        { type: "image", data: "", mimeType: `image/${"x".repeat(50_000)}` },
        { type: "resource_link", name: "r", uri: `https://example.com/${"p".repeat(50_000)}` },
      ],
    });
    expect(response.content.length).toBeLessThan(2_500);
    expect(response.content).toMatch(
      /^\[image image\/x+…\]\n\n\[resource link: https:\/\/example\.com\/p+…\]$/,
    );
  });

  it("maxResultLength sets the limit", async () => {
    const at = await resultOf({ content: [text("0123456789")] }, { maxResultLength: 10 });
    expect(at.content).toBe("0123456789");
    const over = await resultOf({ content: [text("0123456789x")] }, { maxResultLength: 10 });
    expect(over.content).toBe("0123456789… (cut: 11 characters in all)");
  });

  it("on 2025-11-25 is bounded the same way", async () => {
    const server = new McpServer({ name: "p", version: "1" });
    server.registerTool(
      "t",
      { description: "big", inputSchema: fromJsonSchema({ type: "object" }) },
      async () => ({ content: [text("z".repeat(150_000))] }),
    );
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const connection = (
      await connectMcpServer({ name: "p", transport: clientSide })
    )._unsafeUnwrap();
    open.push(connection, server);
    const { stream } = await run(connection, [{ id: "c1", name: "t" }]);
    expect(responseOf(stream, "c1")).toEqual({
      is_error: false,
      content: `${"z".repeat(100_000)}… (cut: 150000 characters in all)`,
    });
  });
});
