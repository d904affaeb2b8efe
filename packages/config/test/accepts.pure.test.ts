import { describe, expect, it } from "@jest/globals";
import { keys, parse as p } from "@sca/config";
import type { Accepts, Parser } from "../src/parse.ts";

// What a parser says it accepts (`accepts`, from which the chart's values.schema.json types its env values) agrees
// with what it does: a value inside the description is taken as written, one outside is refused, or clamped or
// replaced by the default where the description says so.

const outcome = (parser: Parser<unknown>, raw: string): { value: unknown } | "refused" => {
  try {
    return { value: parser(raw, {}) };
  } catch {
    return "refused";
  }
};

/** The integer bounds of a parser's description: each bound taken as written, one past it refused or substituted. */
function expectIntegerBounds(parser: Parser<unknown>, fallback: number) {
  const a = parser.accepts as Extract<Accepts, { type: "integer" }>;
  expect(a.type).toBe("integer");
  const beyond = (bound: number) =>
    a.outOfRange === "clamped" ? { value: bound } : a.outOfRange === "default" ? { value: fallback } : "refused";
  if (a.minimum !== undefined) {
    expect(outcome(parser, String(a.minimum))).toEqual({ value: a.minimum });
    expect(outcome(parser, String(a.minimum - 1))).toEqual(beyond(a.minimum));
  }
  if (a.maximum !== undefined) {
    expect(outcome(parser, String(a.maximum))).toEqual({ value: a.maximum });
    expect(outcome(parser, String(a.maximum + 1))).toEqual(beyond(a.maximum));
  }
  expect(outcome(parser, "12a")).toEqual(a.outOfRange === "default" ? { value: fallback } : "refused");
}

describe("what a parser accepts", () => {
  it("gives an int parser's bounds, and what it does past them", () => {
    expect(p.int(5, { min: 1, max: 10 }).accepts).toEqual({ type: "integer", minimum: 1, maximum: 10 });
    expectIntegerBounds(p.int(5, { min: 1, max: 10 }), 5);
    expect(p.int(5, { min: 1, max: 10, clamp: true }).accepts).toMatchObject({ outOfRange: "clamped" });
    expectIntegerBounds(p.int(5, { min: 1, max: 10, clamp: true }), 5);
    expect(p.int(5, { min: 1, max: 10, fallbackOnInvalid: true }).accepts).toMatchObject({ outOfRange: "default" });
    expectIntegerBounds(p.int(5, { min: 1, max: 10, fallbackOnInvalid: true }), 5);
    expect(p.int(5).accepts).toEqual({ type: "integer" });
    expect(outcome(p.int(5), "-123456789")).toEqual({ value: -123456789 });
  });

  it("holds at the bounds of every shared integer key", () => {
    const integers = Object.entries(keys).filter(([, spec]) => spec.parse.accepts?.type === "integer");
    expect(integers.length).toBeGreaterThan(15);
    for (const [, spec] of integers) expectIntegerBounds(spec.parse, spec.parse(undefined, {}) as number);
  });

  it("gives a num parser's bounds", () => {
    const parser = p.num(1, { min: 0.1, max: 60 });
    expect(parser.accepts).toEqual({ type: "number", minimum: 0.1, maximum: 60 });
    expect(outcome(parser, "0.1")).toEqual({ value: 0.1 });
    expect(outcome(parser, "0.09")).toBe("refused");
    expect(outcome(parser, "60")).toEqual({ value: 60 });
    expect(outcome(parser, "60.01")).toBe("refused");
  });

  it("lists a boolean parser's spellings, in any case, and what it makes of others", () => {
    for (const parser of [p.bool(false), p.optIn(), p.optOut()]) {
      const a = parser.accepts as Extract<Accepts, { type: "boolean" }>;
      expect(a.type).toBe("boolean");
      for (const spelling of a.true) {
        expect(outcome(parser, spelling)).toEqual({ value: true });
        expect(outcome(parser, spelling.toUpperCase())).toEqual({ value: true });
      }
      for (const spelling of a.false) {
        expect(outcome(parser, spelling)).toEqual({ value: false });
        expect(outcome(parser, spelling.toUpperCase())).toEqual({ value: false });
      }
      expect(outcome(parser, "maybe")).toEqual(a.otherwise === undefined ? "refused" : { value: a.otherwise });
    }
    expect(p.bool(true).accepts).toMatchObject({
      true: ["true", "1", "yes", "on"],
      false: ["false", "0", "no", "off"],
    });
  });

  it("lists an enum's values, and whether their case matters", () => {
    const strict = p.oneOf(["dev", "prod"] as const, "dev");
    expect(strict.accepts).toEqual({ type: "enum", values: ["dev", "prod"], caseInsensitive: false });
    expect(outcome(strict, "prod")).toEqual({ value: "prod" });
    expect(outcome(strict, "PROD")).toBe("refused");
    expect(outcome(strict, "production")).toBe("refused");
    const anyCase = p.oneOf(["DEBUG", "INFO"] as const, "INFO", { caseInsensitive: true });
    expect(anyCase.accepts).toEqual({ type: "enum", values: ["DEBUG", "INFO"], caseInsensitive: true });
    expect(outcome(anyCase, "debug")).toEqual({ value: "DEBUG" });
    expect(outcome(anyCase, "verbose")).toBe("refused");
  });

  it("describes lists, and an integer list's smallest item", () => {
    expect(p.list(["a"]).accepts).toEqual({ type: "list" });
    const parser = p.intList([1], { min: 1 });
    expect(parser.accepts).toEqual({ type: "list", items: { type: "integer", minimum: 1 } });
    expect(outcome(parser, "1, 30")).toEqual({ value: [1, 30] });
    expect(outcome(parser, "0")).toBe("refused");
  });

  it("describes text, required or not", () => {
    expect(p.text("x").accepts).toEqual({ type: "text" });
    expect(p.optionalText().accepts).toEqual({ type: "text" });
    expect(p.required().accepts).toEqual({ type: "text", required: true });
  });

  // A pattern matches a value the parser takes; a value it does not match, the parser refuses.
  const patternCases: [string, Parser<unknown>, string[], string[]][] = [
    [
      "httpUrl",
      p.httpUrl(""),
      ["http://a", "HTTPS://api.github.com/v3?x=1#y", "https://[::1]:8443/", "http://host:80"],
      ["ftp://a", "http//a", "https://", "mailto:a@b", "/relative"],
    ],
    [
      "rate",
      p.rate("1/minute"),
      ["1/second", "5/minute", "120 / Hours", "010/DAY"],
      ["0/minute", "00/day", "5/week", "5 per minute", "-1/hour"],
    ],
    [
      "KAFKA_TOPIC_PREFIX",
      keys.KAFKA_TOPIC_PREFIX.parse,
      ["acme-prod.", "a_b", "x".repeat(100)],
      ["acme/prod", "x".repeat(101)],
    ],
    ["ARTEFACT_S3_BUCKET", keys.ARTEFACT_S3_BUCKET.parse, ["sca", "sca-artefacts.eu"], ["ab", "SCA", "-sca", "sca_x"]],
    ["ARTEFACT_DIR", keys.ARTEFACT_DIR.parse, ["/var/lib/sca"], ["var/lib/sca", "./sca"]],
  ];
  it.each(patternCases)("gives %s's pattern", (_, parser, matching, refused) => {
    const a = parser.accepts as Extract<Accepts, { type: "text" }>;
    const pattern = new RegExp(a.pattern!);
    for (const raw of matching) {
      expect([raw, pattern.test(raw)]).toEqual([raw, true]);
      expect([raw, outcome(parser, raw)]).not.toEqual([raw, "refused"]);
    }
    for (const raw of refused) {
      expect([raw, pattern.test(raw)]).toEqual([raw, false]);
      expect([raw, outcome(parser, raw)]).toEqual([raw, "refused"]);
    }
  });

  it("writes any case as a pattern without flags", () => {
    expect(p.anyCase("on")).toBe("[Oo][Nn]");
    expect(new RegExp(`^${p.anyCase("a.b-1")}$`).test("A.b-1")).toBe(true);
    expect(new RegExp(`^${p.anyCase("a.b-1")}$`).test("AxB-1")).toBe(false);
  });
});
