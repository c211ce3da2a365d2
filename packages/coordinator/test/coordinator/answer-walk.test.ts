import { inspect } from "node:util";
import type { JsonValue } from "@jp/conversation";
import { describe, expect, it } from "vitest";
import { AnswerWalk } from "../../src/coordinator/answer-walk.js";
import { answersAddedSince } from "../../src/index.js";

const human = { prompted: true, secret: false };
const configured = { prompted: false, secret: false };

// A snapshot of a few answers is a plain copy, one of many a view of the log: both must read alike.
// Each case runs with its answers alone, and again behind 20 answers configured before them.
describe.each([
  ["a few answers (a plain copy)", 0],
  ["many answers (a view of the log)", 20],
])("with %s", (_kind, before) => {
  const filler: Record<string, number> = {};
  for (let i = 0; i < before; i++) filler[`f${i}`] = i;

  function walkOf(...ids: string[]): AnswerWalk {
    const walk = new AnswerWalk();
    for (const [id, value] of Object.entries(filler)) walk.set(id, value, configured);
    for (const id of ids) walk.set(id, `${id}!`, human);
    return walk;
  }
  const plus = (answers: Record<string, JsonValue>): Record<string, JsonValue> => ({
    ...filler,
    ...answers,
  });
  const keys = (...ids: string[]): string[] => [...Object.keys(filler), ...ids];

  describe("AnswerWalk.snapshot", () => {
    it("reads like a plain object of the answers, in the order given", () => {
      const answers = walkOf("b", "a", "c").snapshot();
      expect(answers).toStrictEqual(plus({ b: "b!", a: "a!", c: "c!" }));
      expect(Object.keys(answers)).toEqual(keys("b", "a", "c"));
      expect(Reflect.ownKeys(answers)).toEqual(keys("b", "a", "c"));
      expect(JSON.stringify(answers)).toBe(JSON.stringify(plus({ b: "b!", a: "a!", c: "c!" })));
      expect({ ...answers }).toStrictEqual(plus({ b: "b!", a: "a!", c: "c!" }));
      expect(Object.hasOwn(answers, "a")).toBe(true);
      expect(Object.hasOwn(answers, "toString")).toBe(false);
      expect("a" in answers && "toString" in answers && !("d" in answers)).toBe(true);
      expect(answers.d).toBeUndefined();
      expect(Object.getPrototypeOf(answers)).toBe(Object.prototype);
      expect(String(answers)).toBe("[object Object]");
      expect(Object.getOwnPropertyDescriptor(answers, "a")).toEqual(
        Object.getOwnPropertyDescriptor({ a: "a!" }, "a"),
      );
    });

    it("lists array-index ids first, as an object does", () => {
      const answers = walkOf("b", "10", "a", "2").snapshot();
      expect(Object.keys(answers)).toEqual(Object.keys(plus({ b: 1, 10: 1, a: 1, 2: 1 })));
    });

    it("lists only true array indices first: not 01, -1, 1.5 or 2 ** 32 - 1 and above", () => {
      const ids = ["b", "01", "-1", "1.5", "4294967296", "4294967295", "4294967294", "7"];
      const plain: Record<string, number> = { ...filler };
      for (const id of ids) plain[id] = 1;
      expect(Object.keys(walkOf(...ids).snapshot())).toEqual(Object.keys(plain));
    });

    it("keeps ids such as __proto__ and constructor as its own answers", () => {
      const answers = walkOf("__proto__", "constructor").snapshot();
      expect(Object.hasOwn(answers, "__proto__")).toBe(true);
      expect(Object.getPrototypeOf(answers)).toBe(Object.prototype);
      expect(answers.constructor).toBe("constructor!");
      expect(JSON.parse(JSON.stringify(answers))).toEqual({
        ...filler,
        ...JSON.parse('{"__proto__":"__proto__!","constructor":"constructor!"}'),
      });
    });

    it("takes a new prototype like an ordinary object, keeping its answers", () => {
      const answers = walkOf("a").snapshot();
      expect(Object.setPrototypeOf(answers, null)).toBe(answers);
      expect(Object.getPrototypeOf(answers)).toBeNull();
      expect(answers.a).toBe("a!");
      expect({ ...answers }).toStrictEqual(plus({ a: "a!" }));
    });

    it("prints its answers", () => {
      expect(inspect(walkOf("a", "b").snapshot(), { breakLength: Number.POSITIVE_INFINITY })).toBe(
        inspect(plus({ a: "a!", b: "b!" }), { breakLength: Number.POSITIVE_INFINITY }),
      );
    });

    it("is not changed by later answers, by going back or by an answer replaced", () => {
      const walk = walkOf("a", "b");
      const first = walk.snapshot();
      walk.set("c", 3, human);
      const second = walk.snapshot();
      walk.back();
      const third = walk.snapshot();
      walk.set("a", "again", human);
      expect(first).toStrictEqual(plus({ a: "a!", b: "b!" }));
      expect(second).toStrictEqual(plus({ a: "a!", b: "b!", c: 3 }));
      expect(third).toStrictEqual(plus({ a: "a!", b: "b!" }));
      expect(walk.snapshot()).toStrictEqual(plus({ b: "b!", a: "again" }));
      expect(Object.keys(walk.snapshot())).toEqual(keys("b", "a"));
      expect(Reflect.ownKeys(first)).toEqual(keys("a", "b"));
      expect(Reflect.ownKeys(third)).toEqual(keys("a", "b"));
    });

    it("becomes an ordinary copy when a tool writes to it, leaving the walk alone", () => {
      const walk = walkOf("a", "b");
      const answers = walk.snapshot() as Record<string, unknown>;
      answers.z = 1;
      delete answers.a;
      expect(answers).toStrictEqual(plus({ b: "b!", z: 1 }));
      expect(walk.snapshot()).toStrictEqual(plus({ a: "a!", b: "b!" }));
      expect(["b" in answers, "z" in answers, "a" in answers]).toEqual([true, true, false]);
      const frozen = Object.freeze(walkOf("x").snapshot());
      expect(Object.isFrozen(frozen)).toBe(true);
      expect(frozen).toStrictEqual(plus({ x: "x!" }));
    });
  });

  describe("answersAddedSince", () => {
    it("names the answers given between two passes", () => {
      const walk = walkOf("a");
      const earlier = walk.snapshot();
      walk.set("b", 2, human);
      walk.set("c", 3, configured);
      expect(answersAddedSince(walk.snapshot(), earlier)).toEqual(["b", "c"]);
      expect(answersAddedSince(earlier, earlier)).toEqual([]);
    });

    it.each([
      ["an answer was taken back", (walk: AnswerWalk) => walk.back()],
      ["an answer was replaced", (walk: AnswerWalk) => walk.set("a", "new", human)],
    ])("is undefined when %s", (_name, change) => {
      const walk = walkOf("a", "b");
      const earlier = walk.snapshot();
      change(walk);
      walk.set("z", 1, human);
      expect(answersAddedSince(walk.snapshot(), earlier)).toBeUndefined();
    });

    it("is undefined for answers that did not come from the coordinator, or out of order", () => {
      const walk = walkOf("a");
      const earlier = walk.snapshot();
      walk.set("b", 2, human);
      expect(answersAddedSince(plus({ a: "a!", b: 2 }), earlier)).toBeUndefined();
      expect(answersAddedSince(walk.snapshot(), plus({ a: "a!" }))).toBeUndefined();
      expect(answersAddedSince(earlier, walk.snapshot())).toBeUndefined();
      expect(answersAddedSince(walkOf("a", "b").snapshot(), earlier)).toBeUndefined();
    });

    it("is undefined when a tool wrote to both passes' answers", () => {
      const walk = walkOf("a");
      const earlier = walk.snapshot();
      walk.set("b", 2, human);
      const later = walk.snapshot();
      (earlier as Record<string, unknown>).x = 1;
      (later as Record<string, unknown>).y = 2;
      expect(answersAddedSince(later, earlier)).toBeUndefined();
    });

    it.each([
      ["changed an answer", (answers: Record<string, unknown>) => (answers.a = "changed")],
      ["added a key", (answers: Record<string, unknown>) => (answers.extra = 1)],
      ["deleted an answer", (answers: Record<string, unknown>) => delete answers.a],
    ])("is undefined once a tool %s in either pass's answers", (_name, write) => {
      const walk = walkOf("a");
      const earlier = walk.snapshot();
      walk.set("b", 2, human);
      const later = walk.snapshot();
      write(earlier as Record<string, unknown>);
      expect(answersAddedSince(later, earlier)).toBeUndefined();
      const fresh = walk.snapshot();
      walk.set("c", 3, human);
      const newer = walk.snapshot();
      write(newer as Record<string, unknown>);
      expect(answersAddedSince(newer, fresh)).toBeUndefined();
    });
  });
});

describe("answersAddedSince across the size where a snapshot stops being a plain copy", () => {
  it("names the answers added from a copy of 15 answers to a view of 18", () => {
    const walk = new AnswerWalk();
    for (let i = 0; i < 15; i++) walk.set(`q${i}`, i, human);
    const earlier = walk.snapshot();
    for (let i = 15; i < 18; i++) walk.set(`q${i}`, i, human);
    const later = walk.snapshot();
    expect(answersAddedSince(later, earlier)).toEqual(["q15", "q16", "q17"]);
    expect(Object.keys(later)).toHaveLength(18);
    expect(answersAddedSince(earlier, later)).toBeUndefined();
  });
});

describe("AnswerWalk.back", () => {
  it("drops the last human answer and what follows, keeping them to pre-fill", () => {
    const walk = new AnswerWalk();
    walk.set("a", 1, human);
    walk.set("b", 2, human);
    walk.set("c", 3, configured);
    walk.back();
    expect(walk.snapshot()).toStrictEqual({ a: 1 });
    expect([walk.prefillFor("b"), walk.prefillFor("c")]).toEqual([2, 3]);
  });

  it("has nothing to go back to when only configured answers were given", () => {
    const walk = new AnswerWalk();
    walk.set("a", 1, configured);
    expect(walk.canGoBack()).toBe(false);
    walk.back();
    expect(walk.snapshot()).toStrictEqual({ a: 1 });
    walk.set("b", 2, human);
    expect(walk.canGoBack()).toBe(true);
    walk.back();
    expect(walk.canGoBack()).toBe(false);
  });

  it("can go back again to an earlier human answer, after Back and after an answer given again", () => {
    const walk = new AnswerWalk();
    walk.set("a", 1, human);
    walk.set("b", 2, human);
    walk.back();
    expect(walk.canGoBack()).toBe(true);
    walk.set("b", 3, human);
    walk.set("a", 4, human);
    expect(walk.canGoBack()).toBe(true);
    walk.back();
    expect(walk.snapshot()).toStrictEqual({ b: 3 });
    expect(walk.canGoBack()).toBe(true);
    walk.back();
    expect(walk.snapshot()).toStrictEqual({});
    expect(walk.canGoBack()).toBe(false);
  });

  it("never keeps a secret to pre-fill", () => {
    const walk = new AnswerWalk();
    walk.set("s", "hunter2", { prompted: true, secret: true });
    walk.back();
    expect(walk.prefillFor("s")).toBeUndefined();
  });
});

describe("AnswerWalk as JSON", () => {
  it("keeps a secret's place without its value, and resumes without it", () => {
    const walk = new AnswerWalk();
    walk.set("a", 1, human);
    walk.set("s", "hunter2", { prompted: true, secret: true });
    walk.set("b", 2, configured);
    const json = walk.toJSON();
    expect(json.answers).toEqual([
      { id: "a", value: 1, prompted: true, secret: false },
      { id: "s", prompted: true, secret: true },
      { id: "b", value: 2, prompted: false, secret: false },
    ]);
    expect(AnswerWalk.fromJSON(json).snapshot()).toStrictEqual({ a: 1, b: 2 });
    expect(walk.disclosable()).toStrictEqual({ a: 1, b: 2 });
  });
});

describe("AnswerWalk as JSON, pre-fill and what a resumed call holds", () => {
  it("keeps the answers Back kept to pre-fill, for the resumed call", () => {
    const walk = new AnswerWalk();
    walk.set("a", 1, human);
    walk.set("b", 2, human);
    walk.back();
    const json = JSON.parse(JSON.stringify(walk.toJSON()));
    expect(json.prefill).toEqual([["b", 2]]);
    const resumed = AnswerWalk.fromJSON(json);
    expect(resumed.prefillFor("b")).toBe(2);
    expect(resumed.snapshot()).toStrictEqual({ a: 1 });
    expect(resumed.toJSON()).toEqual(walk.toJSON());
  });

  it("keeps no pre-fill when nothing was gone back over", () => {
    const walk = new AnswerWalk();
    walk.set("a", 1, human);
    expect(walk.toJSON().prefill).toEqual([]);
    const resumed = AnswerWalk.fromJSON(JSON.parse(JSON.stringify(walk.toJSON())));
    expect(resumed.toJSON()).toEqual({
      answers: [{ id: "a", value: 1, prompted: true, secret: false }],
      prefill: [],
    });
  });

  it("never resumes a secret's value, nor an answer without a value", () => {
    const resumed = AnswerWalk.fromJSON({
      answers: [
        { id: "a", value: 1, prompted: true, secret: false },
        { id: "s", value: "hunter2", prompted: true, secret: true },
        { id: "n", prompted: false, secret: false },
      ],
      prefill: [],
    });
    expect(resumed.snapshot()).toStrictEqual({ a: 1 });
    expect(resumed.disclosable()).toStrictEqual({ a: 1 });
    expect(resumed.size).toBe(1);
  });

  it("discloses the answers as an ordinary object the model's text can be made from", () => {
    const walk = new AnswerWalk();
    walk.set("a", 1, human);
    walk.set("__proto__", 2, configured);
    const out = walk.disclosable();
    expect(JSON.stringify(out)).toBe('{"a":1,"__proto__":2}');
    expect(Object.getOwnPropertyDescriptor(out, "a")).toEqual(
      Object.getOwnPropertyDescriptor({ a: 1 }, "a"),
    );
    out.a = 3;
    expect(out.a).toBe(3);
  });
});
