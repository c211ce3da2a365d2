import type { JsonValue } from "@jp/conversation";
import { describe, expect, it } from "vitest";
import { planElicitation, QuestionIds, stepElicitation } from "../../src/host/elicitation.js";
import { SIMPLE_TEXT_REQUEST, STRUCTURED_REQUEST, URL_REQUEST } from "../fixtures/spec-examples.js";

const asker = { server: "github", tool: "login" };
const meta = (by: string, reason?: string) => ({
  "jp.inquiry/decision": reason === undefined ? { by } : { by, reason },
});

describe("planElicitation and stepElicitation: a form", () => {
  const plan = planElicitation(STRUCTURED_REQUEST, asker, new QuestionIds())._unsafeUnwrap();

  it("opens with accept or decline, naming the server and tool, human-only", () => {
    const step = stepElicitation(plan, {}, new Set());
    expect(step).toEqual({
      type: "ask",
      form: { index: 1, total: 4 },
      question: {
        id: "respond",
        text: "Please provide your contact information",
        context:
          'MCP server "github" asks this while running its tool "login". Accept to answer 3 questions, or decline.',
        answer_type: { type: "select", options: ["accept", "decline"] },
        exclusive: true,
        persistence: "none",
      },
    });
  });

  it("then asks each field in order with form progress", () => {
    const step = stepElicitation(plan, { respond: "accept", name: "Ada" }, new Set());
    expect(step.type === "ask" && [step.question.id, step.form]).toEqual([
      "email",
      { index: 3, total: 4 },
    ]);
  });

  it("accepts with the content once every field is answered; the person decided", () => {
    const answers = {
      respond: "accept",
      name: "Monalisa Octocat",
      email: "octocat@github.com",
      age: 30,
    };
    expect(stepElicitation(plan, answers, new Set(["respond"]))).toEqual({
      type: "respond",
      response: {
        action: "accept",
        content: { name: "Monalisa Octocat", email: "octocat@github.com", age: 30 },
        _meta: meta("person"),
      },
    });
  });

  it("a decline is the person's when they chose it at a prompt, the host's otherwise", () => {
    expect(stepElicitation(plan, { respond: "decline" }, new Set(["respond"]))).toEqual({
      type: "respond",
      response: { action: "decline", _meta: meta("person") },
    });
    expect(stepElicitation(plan, { respond: "decline" }, new Set())).toEqual({
      type: "respond",
      response: { action: "decline", _meta: meta("host") },
    });
  });

  it("an empty form is one accept-or-decline question", () => {
    const empty = { message: "Proceed?", requestedSchema: { type: "object", properties: {} } };
    const confirm = planElicitation(empty, asker, new QuestionIds())._unsafeUnwrap();
    const first = stepElicitation(confirm, {}, new Set());
    expect(first.type === "ask" && first.question.context).toBe(
      'MCP server "github" asks this while running its tool "login".',
    );
    expect(stepElicitation(confirm, { respond: "accept" }, new Set(["respond"]))).toMatchObject({
      response: { action: "accept", content: {} },
    });
  });
});

describe("stepElicitation: fields named like Object.prototype's members", () => {
  // Parsed, as it arrives from a server: a `__proto__` key in a literal would set the prototype.
  const params = JSON.parse(
    '{"message":"Names?","requestedSchema":{"type":"object","properties":{"constructor":{"type":"string"},"toString":{"type":"string"},"__proto__":{"type":"string"}}}}',
  );
  const plan = planElicitation(params, asker, new QuestionIds())._unsafeUnwrap();

  it("are asked, not taken as answered, and their answers are sent", () => {
    const asked: string[] = [];
    let answers: Record<string, JsonValue> = { respond: "accept" };
    let step = stepElicitation(plan, answers, new Set());
    while (step.type === "ask") {
      asked.push(step.question.id);
      // A computed key defines an own property, `__proto__` included.
      answers = { ...answers, [step.question.id]: `v-${step.question.id}` };
      step = stepElicitation(plan, answers, new Set());
    }
    expect(asked).toEqual(["constructor", "toString", "__proto__"]);
    expect(step.response.action).toBe("accept");
    expect(Object.entries(step.response.content ?? {})).toEqual(asked.map((id) => [id, `v-${id}`]));
  });
});

describe("planElicitation: a URL", () => {
  it("asks consent to open, showing host and full URL; open accepts and opens", () => {
    const plan = planElicitation(URL_REQUEST, asker, new QuestionIds())._unsafeUnwrap();
    const first = stepElicitation(plan, {}, new Set());
    expect(first).toMatchObject({
      type: "ask",
      form: { index: 1, total: 1 },
      question: {
        id: "open_url",
        text: "Please provide your API key to continue.",
        answer_type: { type: "select", options: ["open", "decline"] },
        exclusive: true,
      },
    });
    expect(first.type === "ask" && first.question.context).toBe(
      [
        'MCP server "github" (tool "login") asks you to open a page on mcp.example.com',
        "URL: https://mcp.example.com/ui/set_api_key",
        "Nothing is opened unless you choose open.",
      ].join("\n"),
    );
    expect(stepElicitation(plan, { open_url: "open" }, new Set(["open_url"]))).toEqual({
      type: "respond",
      response: { action: "accept", _meta: meta("person") },
      open: "https://mcp.example.com/ui/set_api_key",
    });
  });

  it("warns about a punycode host in the prompt", () => {
    const plan = planElicitation(
      { ...URL_REQUEST, url: "https://аpple.com/" },
      asker,
      new QuestionIds(),
    )._unsafeUnwrap();
    const first = stepElicitation(plan, {}, new Set());
    expect(first.type === "ask" && first.question.context).toContain(
      "Warning: the host uses punycode",
    );
  });

  it("refuses a deceptive URL before anyone is asked", () => {
    const plan = planElicitation(
      { ...URL_REQUEST, url: "https://bank.example@evil.example/" },
      asker,
      new QuestionIds(),
    );
    expect(plan._unsafeUnwrapErr().kind).toBe("unsafe-url");
  });
});

describe("question ids within one call", () => {
  it("keep field names, number repeats, and clean characters an id cannot hold", () => {
    const ids = new QuestionIds();
    expect([
      ids.take("name"),
      ids.take("name"),
      ids.take("a.b c"),
      ids.take(""),
      ids.take("respond"),
    ]).toEqual(["name", "name_2", "a_b_c", "field", "respond"]);
  });

  it("hands out the first free id for each base and terms, asked many times over", () => {
    // The rule, spelled out: the base, then `_2`, `_3`, … skipping ids taken and ids an
    // opening question took for other terms.
    const used = new Set<string>(["q_3"]);
    const gates = new Map<string, string>([["q_5", "form A"]]);
    const firstFree = (base: string, terms: string) => {
      let id = base;
      for (let n = 2; used.has(id) || (gates.has(id) && gates.get(id) !== terms); n++) {
        id = `${base}_${n}`;
      }
      used.add(id);
      gates.set(id, terms);
      return id;
    };
    const ids = new QuestionIds(["q_3"], { q_5: "form A" });
    const asked: [string, string][] = [];
    for (let i = 0; i < 300; i++) {
      const terms = ["field", "form A", "form B"][(i * 7) % 3] as string;
      asked.push([["q", "r"][i % 2] as string, terms]);
    }
    const given = asked.map(([base, terms]) =>
      terms === "field" ? ids.take(base) : ids.takeGate(base, terms),
    );
    expect(given).toEqual(asked.map(([base, terms]) => firstFree(base, terms)));
    expect(new Set(given).size).toBe(given.length);
  });

  it("a second elicitation in the same call gets its own ids", () => {
    const ids = new QuestionIds();
    const first = planElicitation(SIMPLE_TEXT_REQUEST, asker, ids)._unsafeUnwrap();
    const second = planElicitation(SIMPLE_TEXT_REQUEST, asker, ids)._unsafeUnwrap();
    const idsOf = (p: typeof first) =>
      p.mode === "form" ? [p.gate.id, ...p.fields.map((f) => f.id)] : [];
    expect(idsOf(first)).toEqual(["respond", "name"]);
    expect(idsOf(second)).toEqual(["respond_2", "name_2"]);
  });

  it("an opening question never takes an id whose recorded consent was to something else", () => {
    const page = (url: string) => ({ mode: "url", message: "Read", url, elicitationId: "e" });
    const gateOf = (params: unknown, ids: QuestionIds) =>
      planElicitation(params, asker, ids)._unsafeUnwrap().gate.id;
    const first = new QuestionIds();
    expect(gateOf(page("https://docs.example.com/a"), first)).toBe("open_url");
    expect(gateOf(SIMPLE_TEXT_REQUEST, first)).toBe("respond");
    const recorded = first.gates();
    expect(recorded).toEqual({
      open_url: "url https://docs.example.com",
      respond: 'form ["name"]',
      name: "field",
    });

    // The tool runs again after a restart: the same host and the same fields keep their ids
    // (and their recorded answers); another host or other fields take the next free id.
    const again = new QuestionIds([], recorded);
    expect(gateOf(page("https://docs.example.com/b?nonce=2"), again)).toBe("open_url");
    expect(gateOf({ ...SIMPLE_TEXT_REQUEST, message: "Changed" }, again)).toBe("respond");
    const other = new QuestionIds([], recorded);
    expect(gateOf(page("https://evil.example.net/a"), other)).toBe("open_url_2");
    expect(gateOf(page("https://docs.example.com:8443/a"), other)).toBe("open_url_3");
    const fields = { type: "object", properties: { password: { type: "string" } } };
    expect(gateOf({ message: "Log in", requestedSchema: fields }, other)).toBe("respond_2");
    // A field named like an opening question asked otherwise takes the next free id too.
    expect(other.take("respond")).toBe("respond_3");
  });

  it("an unknown mode is refused", () => {
    expect(
      planElicitation({ mode: "carrier-pigeon", message: "x" }, asker, new QuestionIds()).isErr(),
    ).toBe(true);
  });
});
