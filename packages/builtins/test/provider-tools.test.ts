import type { JsonObject } from "@jp/conversation";
import {
  applyToggleDirectives,
  layerToolsConfigs,
  resolveToolConfig,
  type ToolsConfig,
} from "@jp/coordinator";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, expectTypeOf, it } from "vitest";
import { ASK_USER_PARAMETERS, builtinToolConfigs } from "../src/index.js";
import {
  type AnthropicTool,
  type OpenAIChatTool,
  type OpenAIResponsesTool,
  type ProviderTool,
  type ProviderToolFormat,
  toolInputSchema,
  toProviderTools,
} from "../src/provider-tools.js";

const PROVIDERS: readonly ProviderToolFormat[] = ["openai-chat", "openai-responses", "anthropic"];

/** A user-defined local tool, as a user's config would add it next to the built-ins. */
const userTools: ToolsConfig = {
  "*": { run: "ask" },
  fs_grep_files: {
    source: "local",
    command: { program: "rg", args: ["--json"] },
    description: "Search files for a pattern.",
    parameters: {
      pattern: { type: "string", description: "The regex to search for.", required: true },
      paths: { type: "array", items: { type: "string" }, description: "Where to search." },
      context: { type: "integer", minimum: 0, required: false },
      options: {
        type: "object",
        properties: { case: { type: "boolean" }, glob: { type: "string" } },
        required: ["case"],
      },
      limit: { type: "integer", required: true },
    },
  },
};

const layered = (): ToolsConfig => layerToolsConfigs(builtinToolConfigs(), userTools);

// --- The providers' documented constraints, hand-written -----------------------------------------

/** A tool name both OpenAI and Anthropic accept. */
const toolName = { type: "string", pattern: "^[a-zA-Z0-9_-]{1,64}$", minLength: 1, maxLength: 64 };

/** Every provider wants the input as one object schema. */
const objectSchema = {
  type: "object",
  required: ["type", "properties"],
  properties: {
    type: { const: "object" },
    properties: { type: "object", additionalProperties: { type: "object" } },
    required: { type: "array", items: { type: "string" }, uniqueItems: true, minItems: 1 },
  },
};

const providerSchemas: Readonly<Record<ProviderToolFormat, object>> = {
  // Chat Completions: {type: "function", function: {name, description?, parameters?, strict?}}.
  "openai-chat": {
    type: "object",
    required: ["type", "function"],
    additionalProperties: false,
    properties: {
      type: { const: "function" },
      function: {
        type: "object",
        required: ["name", "parameters"],
        additionalProperties: false,
        properties: {
          name: toolName,
          description: { type: "string" },
          parameters: objectSchema,
          strict: { type: "boolean" },
        },
      },
    },
  },
  // Responses: a flat function tool; `name`, `parameters`, `strict` and `type` are required.
  "openai-responses": {
    type: "object",
    required: ["type", "name", "parameters", "strict"],
    additionalProperties: false,
    properties: {
      type: { const: "function" },
      name: toolName,
      description: { type: "string" },
      parameters: objectSchema,
      strict: { const: false },
    },
  },
  // Messages: {name, description?, input_schema} with input_schema.type "object"; no wrapper.
  anthropic: {
    type: "object",
    required: ["name", "input_schema"],
    additionalProperties: false,
    properties: {
      name: toolName,
      description: { type: "string" },
      input_schema: objectSchema,
      cache_control: { type: "object" },
    },
  },
};

/** The input schema of an emitted tool, whichever format it is in. */
function inputSchemaOf(tool: ProviderTool): JsonObject {
  if ("function" in tool) return tool.function.parameters;
  if ("input_schema" in tool) return tool.input_schema;
  return tool.parameters;
}

function nameOf(tool: ProviderTool): string {
  return "function" in tool ? tool.function.name : tool.name;
}

/** Every path in `value` where `"type"` is `"any"` (alone or in a type list). */
function typeAnyPaths(value: unknown, path = "$"): string[] {
  if (Array.isArray(value)) return value.flatMap((item, i) => typeAnyPaths(item, `${path}[${i}]`));
  if (typeof value !== "object" || value === null) return [];
  return Object.entries(value).flatMap(([key, item]) => {
    const here =
      key === "type" && (item === "any" || (Array.isArray(item) && item.includes("any")))
        ? [`${path}.${key}`]
        : [];
    return [...here, ...typeAnyPaths(item, `${path}.${key}`)];
  });
}

function emitted(tools: ToolsConfig, provider: ProviderToolFormat): ProviderTool[] {
  return toProviderTools(tools, provider)._unsafeUnwrap();
}

// --- (a) + (b): the real built-ins with a user tool, for every provider --------------------------

describe.each(PROVIDERS)("toProviderTools for %s", (provider) => {
  const tools = emitted(layered(), provider);

  it("emits ask_user and the user's tool, in name order", () => {
    expect(tools.map(nameOf)).toEqual(["ask_user", "fs_grep_files"]);
  });

  it("emits input schemas that compile as JSON Schema in ajv's strict mode", () => {
    for (const tool of tools) {
      const ajv = new Ajv2020({ strict: true, allErrors: true });
      expect(() => ajv.compile(inputSchemaOf(tool)), nameOf(tool)).not.toThrow();
    }
  });

  it("emits tools matching the provider's documented constraints", () => {
    const validate = new Ajv2020({ strict: true, allErrors: true }).compile(
      providerSchemas[provider],
    );
    for (const tool of tools) {
      const valid = validate(tool);
      expect(validate.errors ?? [], nameOf(tool)).toEqual([]);
      expect(valid).toBe(true);
      expect(typeAnyPaths(tool), nameOf(tool)).toEqual([]);
      // Every required name is a declared property.
      const schema = inputSchemaOf(tool);
      const declared = Object.keys(schema.properties as JsonObject);
      for (const name of (schema.required as string[] | undefined) ?? []) {
        expect(declared).toContain(name);
      }
    }
  });

  it("takes descriptions from the config", () => {
    const config = resolveToolConfig(layered(), "ask_user");
    const [askUser] = tools;
    const description = askUser && ("function" in askUser ? askUser.function : askUser).description;
    expect(description).toBe(config.description);
  });

  it("emits schemas that accept ask_user's calls and reject a call missing a required argument", () => {
    const ajv = new Ajv2020({ strict: true });
    const [askUser, grep] = tools.map((tool) => ajv.compile(inputSchemaOf(tool)));
    expect(askUser?.({ question: "Apply?", answer_type: "boolean" })).toBe(true);
    expect(
      askUser?.({
        questions: [{ id: "a", text: "Apply?", answer_type: "select", options: ["x"] }],
      }),
    ).toBe(true);
    expect(askUser?.({ questions: [] })).toBe(false);
    expect(grep?.({ pattern: "TODO", limit: 10 })).toBe(true);
    expect(grep?.({ pattern: "TODO" })).toBe(false);
    expect(grep?.({ pattern: "TODO", limit: 1, options: { glob: "*.ts" } })).toBe(false);
  });
});

describe("provider shapes", () => {
  const tools: ToolsConfig = {
    lookup: {
      description: "Look a word up.",
      parameters: { word: { type: "string", required: true } },
    },
    bare: {},
  };
  const schema = { type: "object", properties: { word: { type: "string" } }, required: ["word"] };
  const empty = { type: "object", properties: {} };

  it("wraps OpenAI Chat Completions tools in {type, function}", () => {
    expect(emitted(tools, "openai-chat")).toEqual([
      { type: "function", function: { name: "bare", parameters: empty } },
      {
        type: "function",
        function: { name: "lookup", description: "Look a word up.", parameters: schema },
      },
    ]);
  });

  it("emits flat OpenAI Responses tools with strict: false", () => {
    expect(emitted(tools, "openai-responses")).toEqual([
      { type: "function", name: "bare", parameters: empty, strict: false },
      {
        type: "function",
        name: "lookup",
        description: "Look a word up.",
        parameters: schema,
        strict: false,
      },
    ]);
  });

  it("emits Anthropic tools with input_schema", () => {
    expect(emitted(tools, "anthropic")).toEqual([
      { name: "bare", input_schema: empty },
      { name: "lookup", description: "Look a word up.", input_schema: schema },
    ]);
  });

  it("leaves description out entirely when it is not configured", () => {
    for (const provider of PROVIDERS) {
      const [bare] = emitted(tools, provider);
      expect(bare && Object.keys("function" in bare ? bare.function : bare)).not.toContain(
        "description",
      );
    }
  });

  it("types the result by provider", () => {
    expectTypeOf(toProviderTools(tools, "openai-chat")._unsafeUnwrap()).toEqualTypeOf<
      OpenAIChatTool[]
    >();
    expectTypeOf(toProviderTools(tools, "openai-responses")._unsafeUnwrap()).toEqualTypeOf<
      OpenAIResponsesTool[]
    >();
    expectTypeOf(toProviderTools(tools, "anthropic")._unsafeUnwrap()).toEqualTypeOf<
      AnthropicTool[]
    >();
  });

  it("orders by name whatever the config order, and never emits the '*' defaults", () => {
    const shuffled: ToolsConfig = { zeta: {}, "*": { run: "ask" }, Beta: {}, alpha: {}, "10": {} };
    expect(emitted(shuffled, "anthropic").map(nameOf)).toEqual(["10", "Beta", "alpha", "zeta"]);
  });

  it("offers only the tools `include` accepts, and does not check the others", () => {
    const withBad: ToolsConfig = { ...tools, "bad name": {} };
    const offered = toProviderTools(withBad, "anthropic", { include: (name) => name === "lookup" });
    expect(offered._unsafeUnwrap().map(nameOf)).toEqual(["lookup"]);
  });

  it("shares nothing with the configuration", () => {
    const config = layered();
    const [askUser] = toProviderTools(config, "anthropic")._unsafeUnwrap();
    const properties = askUser?.input_schema.properties as Record<string, JsonObject>;
    (properties.question as JsonObject).type = "number";
    (askUser?.input_schema as JsonObject).additionalProperties = false;
    expect(ASK_USER_PARAMETERS.question).toMatchObject({ type: "string" });
    expect(emitted(config, "anthropic")[0]).toEqual(emitted(layered(), "anthropic")[0]);
  });
});

// --- (c): enablement ------------------------------------------------------------------------------

describe("enablement", () => {
  it("does not emit a disabled tool", () => {
    const tools = layerToolsConfigs(layered(), { fs_grep_files: { enable: { state: false } } });
    for (const provider of PROVIDERS) {
      expect(emitted(tools, provider).map(nameOf)).toEqual(["ask_user"]);
    }
  });

  it("keeps ask_user through a bulk disable, which drops the user's tool", () => {
    const tools = applyToggleDirectives(layered(), [
      { action: "disable", scope: "all" },
    ])._unsafeUnwrap();
    for (const provider of PROVIDERS) {
      expect(emitted(tools, provider).map(nameOf)).toEqual(["ask_user"]);
    }
  });

  it("keeps ask_user when the '*' defaults disable every tool", () => {
    const tools = layerToolsConfigs(layered(), { "*": { enable: { state: false } } });
    expect(emitted(tools, "openai-chat").map(nameOf)).toEqual(["ask_user"]);
  });

  it("drops ask_user when it is disabled by name", () => {
    const tools = applyToggleDirectives(layered(), [
      { action: "disable", scope: "named", name: "ask_user" },
    ])._unsafeUnwrap();
    expect(emitted(tools, "anthropic").map(nameOf)).toEqual(["fs_grep_files"]);
  });

  it("refuses an empty configuration instead of offering no tool, and names the fix", () => {
    const error = toProviderTools({}, "openai-responses")._unsafeUnwrapErr();
    expect(error.kind).toBe("no-tools");
    expect(error.message).toContain("layerToolsConfigs(builtinToolConfigs(), tools)");
    expect(error.message).toContain("createCoordinator");
  });

  it("refuses when options.include accepts none of the enabled tools", () => {
    const error = toProviderTools(layered(), "anthropic", {
      include: () => false,
    })._unsafeUnwrapErr();
    expect(error).toEqual({
      kind: "no-tools",
      message: "no tool to offer: options.include accepted none of the enabled tools",
    });
  });

  it("refuses when every tool, ask_user included, is disabled by name", () => {
    const tools = layerToolsConfigs(layered(), {
      ask_user: { enable: { state: false } },
      fs_grep_files: { enable: { state: false } },
    });
    const error = toProviderTools(tools, "openai-chat")._unsafeUnwrapErr();
    expect(error.kind).toBe("no-tools");
    expect(error.message).toContain("every configured tool is disabled");
  });
});

// --- (d): errors ----------------------------------------------------------------------------------

describe("errors", () => {
  it.each([
    ["fs.read_file"],
    ["read file"],
    ["ünïcode"],
    [""],
    ["a".repeat(65)],
    ["trailing_newline\n"],
  ])("rejects the tool name %j instead of dropping it", (name) => {
    const tools = layerToolsConfigs(layered(), { [name]: { description: "x" } });
    for (const provider of PROVIDERS) {
      const error = toProviderTools(tools, provider)._unsafeUnwrapErr();
      expect(error).toEqual({ kind: "invalid-tool-name", tool: name, message: expect.any(String) });
      expect(error.message).toContain(JSON.stringify(name));
      expect(error.message).toContain("1 to 64");
    }
  });

  it("accepts a 64-character name and names with dashes and digits", () => {
    const long = "a".repeat(64);
    const tools: ToolsConfig = { [long]: {}, "git-stage_2": {} };
    expect(emitted(tools, "anthropic").map(nameOf)).toEqual([long, "git-stage_2"]);
  });

  it("does not check a disabled tool's name", () => {
    const tools: ToolsConfig = { "bad.name": { enable: { state: false } }, ok: {} };
    expect(emitted(tools, "openai-chat").map(nameOf)).toEqual(["ok"]);
  });

  it.each([
    [
      { path: "a string" },
      'parameters.path must be a JSON Schema object such as {"type": "string"}, got "a string"',
    ],
    [{ path: ["string"] }, "parameters.path must be a JSON Schema object"],
    [{ path: null }, "parameters.path must be a JSON Schema object"],
    [{ path: true }, "parameters.path must be a JSON Schema object"],
    [{ path: { type: "any" } }, 'parameters.path.type: "any" is not a JSON Schema type'],
    [
      { path: { type: "array", items: { type: ["string", "any"] } } },
      'parameters.path.items.type: "any" is not a JSON Schema type',
    ],
    [
      { path: { type: "object", properties: { deep: { anyOf: [{ type: "any" }] } } } },
      'parameters.path.properties.deep.anyOf[0].type: "any" is not a JSON Schema type',
    ],
    [
      { path: { type: "string", required: "yes" } },
      "parameters.path.required must be true or false",
    ],
    [
      { path: { type: "object", properties: { x: { type: "string", required: true } } } },
      "parameters.path.properties.x.required must be a list of property names",
    ],
    [{ path: { type: "string", items: 3 } }, "parameters.path.items must be a JSON Schema"],
    [{ path: { type: "number", maximum: Number.POSITIVE_INFINITY } }, "must be a finite number"],
  ] as const)("rejects parameters %j", (parameters, message) => {
    const tools: ToolsConfig = { read: { parameters: parameters as never } };
    for (const provider of PROVIDERS) {
      const error = toProviderTools(tools, provider)._unsafeUnwrapErr();
      expect(error).toMatchObject({ kind: "invalid-parameters", tool: "read" });
      expect(error.message).toContain(message);
    }
  });

  it("does not mistake a property named 'type' or data that says 'any' for a schema keyword", () => {
    const tools: ToolsConfig = {
      tag: {
        parameters: {
          item: {
            type: "object",
            properties: { type: { type: "string", enum: ["any", "some"] } },
            default: { type: "any" },
          },
        },
      },
    };
    expect(emitted(tools, "anthropic")).toHaveLength(1);
  });

  it("reports the first bad tool in emission order", () => {
    const tools: ToolsConfig = { b: { parameters: { x: "nope" } }, a: {}, "c.d": {} };
    expect(toProviderTools(tools, "openai-chat")._unsafeUnwrapErr()).toMatchObject({ tool: "b" });
  });
});

// --- (e): JP's required flags -----------------------------------------------------------------------

describe("toolInputSchema", () => {
  it("turns required flags into the required array and strips them from the properties", () => {
    const schema = toolInputSchema(resolveToolConfig(layered(), "fs_grep_files"));
    expect(schema).toEqual({
      type: "object",
      properties: {
        pattern: { type: "string", description: "The regex to search for." },
        paths: { type: "array", items: { type: "string" }, description: "Where to search." },
        context: { type: "integer", minimum: 0 },
        options: {
          type: "object",
          properties: { case: { type: "boolean" }, glob: { type: "string" } },
          required: ["case"],
        },
        limit: { type: "integer" },
      },
      required: ["pattern", "limit"],
    });
    expect(Object.keys(schema.properties as JsonObject)).toEqual([
      "pattern",
      "paths",
      "context",
      "options",
      "limit",
    ]);
    expect(typeAnyPaths(schema)).toEqual([]);
    for (const property of Object.values(schema.properties as Record<string, JsonObject>)) {
      expect(typeof property.required === "boolean").toBe(false);
    }
  });

  it("omits required when no argument is flagged (ask_user's case)", () => {
    const schema = toolInputSchema(builtinToolConfigs().ask_user ?? {});
    expect(schema).not.toHaveProperty("required");
    expect(Object.keys(schema.properties as JsonObject)).toEqual(Object.keys(ASK_USER_PARAMETERS));
    expect(schema.properties).toEqual(ASK_USER_PARAMETERS);
  });

  it("gives an empty object schema for a tool without parameters", () => {
    expect(toolInputSchema({})).toEqual({ type: "object", properties: {} });
    expect(toolInputSchema({ parameters: {} })).toEqual({ type: "object", properties: {} });
  });

  it("keeps an argument named __proto__ as a plain property", () => {
    const parameters = JSON.parse('{"__proto__": {"type": "string", "required": true}}');
    const schema = toolInputSchema({ parameters });
    expect(Object.keys(schema.properties as JsonObject)).toEqual(["__proto__"]);
    expect(schema.required).toEqual(["__proto__"]);
    expect(Object.getPrototypeOf(schema.properties)).toBe(Object.prototype);
  });
});
