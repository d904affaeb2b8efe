// The closed set of problem codes, per raiser: the type lets a ProblemError take any code of the set; this reads the
// sources to hold each service (and library) to its own group, and each group to codes still raised.
import { describe, expect, it } from "@jest/globals";
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { PROBLEM_CODES, RAISED_PROBLEM_CODES, STATUS_PROBLEM_CODES } from "@sca/problem";

const root = resolve(fileURLToPath(import.meta.url), "../../../..");
const statusCodes: readonly string[] = Object.values(STATUS_PROBLEM_CODES);
const groups: Record<string, readonly string[]> = RAISED_PROBLEM_CODES;

/** The arguments of every `new ProblemError(...)` in a source text. */
function problemArguments(text: string): string[] {
  const found: string[] = [];
  for (let at = text.indexOf("new ProblemError("); at >= 0; at = text.indexOf("new ProblemError(", at + 1)) {
    const start = at + "new ProblemError(".length;
    let depth = 1;
    let end = start;
    while (depth > 0 && end < text.length) {
      const c = text[end++];
      if (c === "(") depth++;
      else if (c === ")") depth--;
    }
    found.push(text.slice(start, end - 1));
  }
  return found;
}

/** The codes each raiser's sources name when they raise a problem, and the codes they name by no literal. */
function raisedCodes(): Map<string, { literal: Set<string>; other: string[] }> {
  const raisers = new Map<string, { literal: Set<string>; other: string[] }>();
  for (const top of ["services", "packages"]) {
    for (const name of readdirSync(join(root, top))) {
      const src = join(root, top, name, "src");
      let files: string[];
      try {
        files = readdirSync(src, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts"));
      } catch {
        continue;
      }
      const raised = { literal: new Set<string>(), other: [] as string[] };
      for (const file of files) {
        for (const args of problemArguments(readFileSync(join(src, file), "utf8"))) {
          for (const m of args.matchAll(/\bcode: *([^,\n}]+)/g)) {
            const literal = /^"([^"]+)"$/.exec(m[1]!.trim());
            if (literal) raised.literal.add(literal[1]!);
            else raised.other.push(`${top}/${name}/src/${file}: code: ${m[1]!.trim()}`);
          }
        }
      }
      raisers.set(name, raised);
    }
  }
  return raisers;
}

describe("problem codes", () => {
  const raisers = raisedCodes();

  it("finds the raisers it reads", () => {
    expect([...raisers.get("identity")!.literal]).toContain("last-super-admin");
    expect(raisers.get("scan-orchestrator")!.literal).toContain("disk-pressure");
  });

  it("each raiser names only its own group's codes or a status's, by a literal", () => {
    for (const [name, raised] of raisers) {
      const own = new Set([...(groups[name] ?? []), ...statusCodes]);
      expect([name, [...raised.literal].filter((c) => !own.has(c))]).toEqual([name, []]);
      // Codes arrive by no literal only where problems cross a service boundary (fromConnectError).
      if (name !== "problem") expect(raised.other).toEqual([]);
    }
  });

  it("each group's codes are all still raised by its raiser", () => {
    for (const [name, codes] of Object.entries(groups)) {
      const raised = raisers.get(name)?.literal ?? new Set<string>();
      expect([name, codes.filter((c) => !raised.has(c))]).toEqual([name, []]);
    }
  });

  it("lists every code once, the spec's fixed codes among them", () => {
    expect(new Set(PROBLEM_CODES).size).toBe(PROBLEM_CODES.length);
    expect([...PROBLEM_CODES].sort()).toEqual([...new Set([...statusCodes, ...Object.values(groups).flat()])].sort());
    expect(PROBLEM_CODES).toEqual(
      expect.arrayContaining([
        "forbidden",
        "last-super-admin",
        "disk-pressure",
        "last_oauth_link",
        "demo_read_only",
        "oauth_provider_disabled",
      ]),
    );
  });
});
