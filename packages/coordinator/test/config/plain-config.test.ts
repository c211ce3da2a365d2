import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { enableTable, plainToolsConfig } from "../../src/config/plain-config.js";
import { configSchemas } from "../../src/config/schema.js";
import { parseToolsConfig } from "../../src/index.js";

// The reading of usual configurations without the schemas is held to them: whatever it reads,
// the schemas read the same, key order included.

const json = fc.jsonValue({ maxDepth: 2 });
const text = fc.oneof(fc.string(), fc.constant(1));
const mode = (...modes: string[]) => fc.constantFrom(...modes, "bogus");
const enable = fc.oneof(
  fc.boolean(),
  fc.constantFrom("on", "off", "always", "explicit", "true", "maybe"),
  fc.record(
    {
      state: fc.oneof(fc.boolean(), fc.constant("yes")),
      allow_toggle: mode("any", "never"),
      x: json,
    },
    { requiredKeys: [] },
  ),
);
const question = fc.record(
  {
    target: fc.oneof(mode("user", "assistant"), fc.dictionary(fc.string(), json)),
    answer: json,
    prompt_label: text,
    exclusive: fc.oneof(fc.boolean(), fc.constant(0)),
    extra: json,
  },
  { requiredKeys: [] },
);
const layer = fc.record(
  {
    source: text,
    enable,
    command: fc.oneof(fc.string(), fc.record({ program: fc.string() })),
    summary: text,
    description: text,
    examples: text,
    parameters: fc.dictionary(fc.string(), json),
    run: mode("ask", "unattended", "edit", "skip"),
    result: mode("unattended", "ask", "edit", "skip"),
    cancellation_response: text,
    style: fc.record(
      { hidden: fc.oneof(fc.boolean(), fc.constant(1)), color: json },
      { requiredKeys: [] },
    ),
    questions: fc.dictionary(fc.oneof(fc.string(), fc.constant("*")), question),
    options: fc.dictionary(fc.string(), json),
    detached: fc.oneof(
      mode("auto", "defaults", "deny"),
      fc.record(
        {
          run: mode("auto", "deny"),
          deliver: mode("defaults"),
          tool: mode("auto"),
          result: mode("auto"),
        },
        { requiredKeys: [] },
      ),
    ),
    mine: json,
  },
  { requiredKeys: [] },
);
const tools = fc.dictionary(fc.oneof(fc.string(), fc.constantFrom("*", "__proto__")), layer, {
  maxKeys: 3,
});

describe("plainToolsConfig", () => {
  it("reads configurations exactly as the schemas do", () => {
    let read = 0;
    fc.assert(
      fc.property(tools, (generated) => {
        // Through JSON, as a configuration file is read: `__proto__` becomes an own key.
        const input: unknown = JSON.parse(JSON.stringify(generated));
        const fast = plainToolsConfig(input);
        if (fast === undefined) return;
        read++;
        const slow = configSchemas().tools.safeParse(input);
        expect(slow.success).toBe(true);
        expect(fast).toStrictEqual(slow.data);
        expect(JSON.stringify(fast)).toBe(JSON.stringify(slow.data));
      }),
      { numRuns: 3000 },
    );
    // The comparison is only worth something if the fast reading is taken often.
    expect(read).toBeGreaterThan(100);
    // 3,000 schema parses take seconds on a busy machine.
  }, 120_000);

  it("reads the usual configurations, the built-ins' included", () => {
    const usual = {
      "*": { run: "ask", detached: { tool: "defaults" } },
      ask_user: {
        source: "builtin",
        enable: { state: true, allow_toggle: "if_named" },
        parameters: { type: "object", properties: { question: { type: "string" } } },
        run: "unattended",
        style: { hidden: true },
        questions: { "*": { prompt_label: "Assistant" } },
      },
      fs: { enable: "explicit", run: "edit" },
    };
    expect(plainToolsConfig(usual)).toStrictEqual(parseToolsConfigWithSchemas(usual));
  });

  it.each([
    ["a command table", { x: { command: { program: "ls" } } }],
    ["a key the strict detached table does not know", { x: { detached: { result: "auto" } } }],
    ["an undefined setting", { x: { run: undefined } }],
    ["an invalid mode", { x: { run: "sometimes" } }],
    ["a non-finite number", { x: { options: { n: Number.POSITIVE_INFINITY } } }],
    ["a class instance", { x: { options: { when: new Date(0) } } }],
  ])("leaves %s to the schemas", (_name, input) => {
    expect(plainToolsConfig(input)).toBeUndefined();
  });

  it("gives parseToolsConfig's errors unchanged", () => {
    expect(parseToolsConfig({ x: { run: "sometimes" } })._unsafeUnwrapErr().message).toBe(
      'conversation.tools.x.run: expected "ask", "unattended", "edit" or "skip", got "sometimes"',
    );
  });
});

describe("enableTable", () => {
  it("reads every written form of enable as the schema does", () => {
    fc.assert(
      fc.property(fc.oneof(enable, json), (value) => {
        const fast = enableTable(value);
        if (fast === undefined) return;
        const slow = configSchemas().enable.safeParse(value);
        expect(slow.success).toBe(true);
        expect(JSON.stringify(fast)).toBe(JSON.stringify(slow.data));
      }),
      { numRuns: 1000 },
    );
  });
});

function parseToolsConfigWithSchemas(json: unknown) {
  const parsed = configSchemas().tools.safeParse(json);
  if (!parsed.success) throw new Error(parsed.error.message);
  return parsed.data;
}
