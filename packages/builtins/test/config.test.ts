import {
  applyToggleDirectives,
  enabledToolNames,
  layerToolsConfigs,
  parseToolsConfig,
  resolveToolConfig,
  type ToolsConfig,
} from "@jp/coordinator";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import {
  ASK_USER_ANSWER_TYPES,
  ASK_USER_DESCRIPTION,
  ASK_USER_PARAMETERS,
  builtinToolConfigs,
  toolInputSchema,
} from "../src/index.js";

const askUserConfig = () => {
  const config = builtinToolConfigs().ask_user;
  if (config === undefined) throw new Error("ask_user is not registered");
  return config;
};

describe("builtinToolConfigs(): the registered ask_user", () => {
  it("registers ask_user only, as a valid conversation.tools layer", () => {
    expect(Object.keys(builtinToolConfigs())).toEqual(["ask_user"]);
    expect(parseToolsConfig(builtinToolConfigs()).isOk()).toBe(true);
  });

  it("is a built-in, enabled by default, toggled only by name", () => {
    const config = askUserConfig();
    expect(config.source).toBe("builtin");
    expect(config.enable).toEqual({ state: true, allow_toggle: "if_named" });
  });

  it("needs no permission or delivery prompt and is hidden", () => {
    const config = askUserConfig();
    expect(config.run).toBe("unattended");
    expect(config.result).toBe("unattended");
    expect(config.style).toEqual({ hidden: true });
  });

  it('labels its question "Assistant"', () => {
    expect(askUserConfig().questions?.answer).toEqual({ prompt_label: "Assistant" });
    const resolved = resolveToolConfig(builtinToolConfigs(), "ask_user");
    expect(resolved.questions.answer?.prompt_label).toBe("Assistant");
  });

  it("sends RFD 083's long usage guard as the description, with no summary", () => {
    const config = askUserConfig();
    expect(config.description).toBe(ASK_USER_DESCRIPTION);
    expect(config).not.toHaveProperty("summary");
    const text = ASK_USER_DESCRIPTION;
    expect(text).toMatch(/^Ask the user a typed question/);
    expect(text).toContain(
      "Use only when the conversation does not provide the information you need and the user can reasonably be expected to answer.",
    );
    expect(text).toContain("When in doubt, answer the user's original question directly");
    expect(text).toContain(
      "do not call ask_user for clarification you can derive from context or for confirmation of obvious next steps",
    );
    expect(text).toContain(
      "Do not use ask_user to collect secrets (passwords, API keys, SSH passphrases)",
    );
    expect(text).toContain("persisted in the conversation");
    // A question whose answers kept failing validation also ends with `cancelled: true`.
    expect(text).toContain(
      "If the result also has an `error`, the user did not decline: an answer could not be taken, and `error` says why.",
    );
  });

  it("the resolved description and parameters are what a provider is sent", () => {
    const resolved = resolveToolConfig(builtinToolConfigs(), "ask_user");
    expect(resolved.description).toBe(ASK_USER_DESCRIPTION);
    expect(resolved.parameters).toEqual(ASK_USER_PARAMETERS);
  });
});

// Every JSON Schema node below the parameters, with its path.
function* nodes(value: unknown, path = "parameters"): Generator<[string, Record<string, unknown>]> {
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) yield* nodes(item, `${path}[${i}]`);
    return;
  }
  if (typeof value !== "object" || value === null) return;
  const node = value as Record<string, unknown>;
  yield [path, node];
  for (const [key, child] of Object.entries(node)) yield* nodes(child, `${path}.${key}`);
}

/** JP's parameters map as the JSON Schema object a provider receives. */
function objectSchema(parameters: Readonly<Record<string, unknown>>) {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const [name, schema] of Object.entries(parameters)) {
    const { required: isRequired, ...rest } = schema as Record<string, unknown>;
    properties[name] = rest;
    if (isRequired === true) required.push(name);
  }
  return { type: "object", properties, required, additionalProperties: false };
}

describe("the parameters are provider-valid JSON Schema", () => {
  it("offer every argument of RFD 083 and D30", () => {
    expect(Object.keys(ASK_USER_PARAMETERS).sort()).toEqual(
      ["answer_type", "context", "default", "options", "question", "questions", "schema"].sort(),
    );
    expect(ASK_USER_PARAMETERS.question).toMatchObject({ type: "string" });
    expect(ASK_USER_PARAMETERS.context).toMatchObject({ type: "string" });
    expect(ASK_USER_PARAMETERS.options).toMatchObject({ type: "array", items: { type: "string" } });
    expect(ASK_USER_PARAMETERS.answer_type).toMatchObject({
      type: "string",
      enum: ["boolean", "select", "multi_select", "text", "schema"],
    });
    expect(ASK_USER_ANSWER_TYPES).toEqual(["boolean", "select", "multi_select", "text", "schema"]);
    expect(ASK_USER_PARAMETERS.questions).toMatchObject({
      type: "array",
      minItems: 1,
      items: { type: "object", required: ["id", "text", "answer_type"] },
    });
  });

  it('use no "type": "any" and no conditional requiredness anywhere', () => {
    const conditional = [
      "if",
      "then",
      "else",
      "dependentRequired",
      "dependentSchemas",
      "dependencies",
    ];
    const problems: string[] = [];
    for (const [path, node] of nodes(ASK_USER_PARAMETERS)) {
      const types = Array.isArray(node.type) ? node.type : [node.type];
      if (types.includes("any")) problems.push(`${path}: "type": "any"`);
      for (const key of conditional) if (key in node) problems.push(`${path}: ${key}`);
    }
    expect(problems).toEqual([]);
  });

  it("describe every argument for the model", () => {
    for (const [name, schema] of Object.entries(ASK_USER_PARAMETERS)) {
      expect(schema, name).toHaveProperty("description", expect.any(String));
    }
  });

  it("compile as a JSON Schema object in ajv's strict mode", () => {
    const ajv = new Ajv2020({ strict: true, allErrors: true });
    const validate = ajv.compile(objectSchema(ASK_USER_PARAMETERS));
    // RFD 083's example call and D30's example form are accepted.
    const rfd083 = {
      question:
        "The current approach modifies production config in place. Apply with backup, apply without backup, or abort?",
      answer_type: "select",
      options: ["backup", "overwrite", "abort"],
    };
    const d30 = {
      questions: [
        { id: "apply", text: "Apply the proposed migration?", answer_type: "boolean" },
        {
          id: "env",
          text: "Which environment?",
          answer_type: "select",
          options: ["staging", "production"],
          when: { question_id: "apply", equals: true },
        },
        {
          id: "note",
          text: "Optional note for the migration log",
          answer_type: "text",
          when: { question_id: "apply", equals: true },
        },
      ],
    };
    for (const args of [
      rfd083,
      d30,
      { question: "Apply?", answer_type: "boolean", default: true },
      { question: "Where?", default: "/tmp/output" },
    ]) {
      expect(validate(args), JSON.stringify(validate.errors)).toBe(true);
    }
    // The schema still rejects what it can describe.
    expect(validate({ question: 1 })).toBe(false);
    expect(validate({ question: "Apply?", answer_type: "number" })).toBe(false);
    expect(validate({ questions: [] })).toBe(false);
    expect(validate({ questions: [{ id: "a", text: "A?" }] })).toBe(false);
  });

  it("the input schema sent to providers compiles in ajv's strict mode too", () => {
    const schema = toolInputSchema(askUserConfig());
    expect(schema).toMatchObject({ type: "object", properties: ASK_USER_PARAMETERS });
    expect(() => new Ajv2020({ strict: true }).compile(schema)).not.toThrow();
  });
});

describe("enable directives (RFD 081)", () => {
  const user: ToolsConfig = { fs_read_file: { source: "local", command: "cat" } };
  const tools = () => layerToolsConfigs(builtinToolConfigs(), user);

  it("a bare disable-all leaves ask_user enabled while disabling a normal tool", () => {
    expect(enabledToolNames(tools()).sort()).toEqual(["ask_user", "fs_read_file"]);
    const toggled = applyToggleDirectives(tools(), [{ action: "disable", scope: "all" }]);
    expect(toggled.isOk()).toBe(true);
    expect(enabledToolNames(toggled._unsafeUnwrap())).toEqual(["ask_user"]);
  });

  it("disabling ask_user by name turns it off", () => {
    const toggled = applyToggleDirectives(tools(), [
      { action: "disable", scope: "named", name: "ask_user" },
    ])._unsafeUnwrap();
    expect(enabledToolNames(toggled)).toEqual(["fs_read_file"]);
    // The toggle policy is kept: a later bare enable-all does not bring it back.
    const again = applyToggleDirectives(toggled, [{ action: "enable", scope: "all" }]);
    expect(enabledToolNames(again._unsafeUnwrap())).toEqual(["fs_read_file"]);
    expect(resolveToolConfig(toggled, "ask_user").enable).toEqual({
      state: false,
      allow_toggle: "if_named",
    });
  });

  it("disable-all, then ask_user by name (-T -T ask_user) disables everything", () => {
    const toggled = applyToggleDirectives(tools(), [
      { action: "disable", scope: "all" },
      { action: "disable", scope: "named", name: "ask_user" },
    ])._unsafeUnwrap();
    expect(enabledToolNames(toggled)).toEqual([]);
  });

  it("enable = { state = false } in user config disables it and keeps if_named", () => {
    const layered = layerToolsConfigs(builtinToolConfigs(), {
      ask_user: { enable: { state: false } },
    });
    expect(resolveToolConfig(layered, "ask_user").enable).toEqual({
      state: false,
      allow_toggle: "if_named",
    });
    const named = applyToggleDirectives(layered, [
      { action: "enable", scope: "named", name: "ask_user" },
    ])._unsafeUnwrap();
    expect(enabledToolNames(named)).toContain("ask_user");
  });
});
