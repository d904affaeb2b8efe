// License ids and expressions as SPDX writes them. spdx-expression-parse validates against the SPDX license and
// exception lists; what it refuses is repaired token by token (case, spdx-correct for near-misses) and, failing
// that, kept as a LicenseRef named after the text, never dropped.
import { createRequire } from "node:module";
import parseSpdxExpression from "spdx-expression-parse";
import correctSpdxLicense from "spdx-correct";
import { LICENSE_EXPRESSION_MAX_CHARS } from "./limits.ts";

type ParsedExpression = parseSpdxExpression.Info;

const requireJson = createRequire(import.meta.url);
const LICENSE_IDS = requireJson("spdx-license-ids") as string[];
const DEPRECATED_LICENSE_IDS = requireJson("spdx-license-ids/deprecated.json") as string[];
const EXCEPTION_IDS = requireJson("spdx-exceptions") as string[];
const DEPRECATED_EXCEPTION_IDS = requireJson("spdx-exceptions/deprecated.json") as string[];

function byLowerCase(ids: string[][]): Map<string, string> {
  const map = new Map<string, string>();
  for (const list of ids) for (const id of list) map.set(id.toLowerCase(), id);
  return map;
}
const LICENSE_BY_LOWER = byLowerCase([LICENSE_IDS, DEPRECATED_LICENSE_IDS]);
const EXCEPTION_BY_LOWER = byLowerCase([EXCEPTION_IDS, DEPRECATED_EXCEPTION_IDS]);

export interface NormalisedLicense {
  /** A valid SPDX expression, or null when the text said nothing (empty, NOASSERTION, NONE). */
  expression: string | null;
  /** License ids and LicenseRefs the expression names. */
  ids: string[];
  /** Text that was not an SPDX id and became a LicenseRef (for a warning). */
  unknownNames: string[];
}

const NOTHING: NormalisedLicense = { expression: null, ids: [], unknownNames: [] };

/** `LicenseRef-` followed by the text with every run of characters SPDX does not allow in an idstring as `-`. */
export function licenseRefFor(text: string): string {
  const idstring = text
    .replace(/^LicenseRef-/i, "")
    .replace(/[^A-Za-z0-9.-]+/g, "-")
    .replace(/^-+|-+$/g, "");
  return `LicenseRef-${(idstring || "unnamed").slice(0, 200)}`;
}

function render(node: ParsedExpression, ids: Set<string>, parent: "and" | "or" | null): string {
  if ("conjunction" in node) {
    const text = `${render(node.left, ids, node.conjunction)} ${node.conjunction.toUpperCase()} ${render(node.right, ids, node.conjunction)}`;
    // AND binds tighter than OR: an OR under an AND needs its parentheses back.
    return parent === "and" && node.conjunction === "or" ? `(${text})` : text;
  }
  ids.add(node.license);
  return `${node.license}${node.plus ? "+" : ""}${node.exception ? ` WITH ${node.exception}` : ""}`;
}

function tryParse(text: string): ParsedExpression | null {
  try {
    return parseSpdxExpression(text);
  } catch {
    return null;
  }
}

// A license name as packages write it ("MIT License", "Apache 2.0"). spdx-correct guesses well for one license,
// badly for compound prose ("CDDL + GPLv2 with classpath exception" is not GPL-2.0-only): those stay LicenseRefs.
const COMPOUND_NAME = /\b(and|or|with)\b|[+/&|;]/i;

function fromName(name: string): NormalisedLicense {
  const trimmed = name.trim();
  if (!trimmed || /^(NOASSERTION|NONE)$/i.test(trimmed)) return NOTHING;
  const known = LICENSE_BY_LOWER.get(trimmed.toLowerCase());
  if (known) return { expression: known, ids: [known], unknownNames: [] };
  const corrected = COMPOUND_NAME.test(trimmed) ? null : correctSpdxLicense(trimmed, { upgrade: false });
  if (corrected) return { expression: corrected, ids: [corrected], unknownNames: [] };
  const ref = licenseRefFor(trimmed);
  return { expression: ref, ids: [ref], unknownNames: [trimmed] };
}

function repairToken(token: string, afterWith: boolean, unknown: string[]): string {
  const upper = token.toUpperCase();
  if (upper === "AND" || upper === "OR" || upper === "WITH") return upper;
  if (/^(LicenseRef-|DocumentRef-)/i.test(token)) {
    if (/^DocumentRef-/i.test(token)) return token;
    return licenseRefFor(token);
  }
  const plus = token.endsWith("+") ? "+" : "";
  const bare = plus ? token.slice(0, -1) : token;
  if (afterWith) return EXCEPTION_BY_LOWER.get(bare.toLowerCase()) ?? token;
  const known = LICENSE_BY_LOWER.get(bare.toLowerCase());
  if (known) return known + plus;
  const corrected = correctSpdxLicense(token, { upgrade: false });
  if (corrected) return corrected;
  unknown.push(token);
  return licenseRefFor(token);
}

function normaliseUncached(text: string): NormalisedLicense {
  const trimmed = text.trim();
  if (!trimmed || /^(NOASSERTION|NONE)$/i.test(trimmed)) return NOTHING;
  if (trimmed.length > LICENSE_EXPRESSION_MAX_CHARS) {
    const ref = licenseRefFor(`unparsed-expression-${trimmed.length}-chars`);
    return { expression: ref, ids: [ref], unknownNames: [trimmed.slice(0, 80)] };
  }
  const ids = new Set<string>();
  const parsed = tryParse(trimmed);
  if (parsed) return { expression: render(parsed, ids, null), ids: [...ids], unknownNames: [] };
  // Token by token: fix the case of ids and operators, correct near-misses, turn the rest into LicenseRefs.
  const unknown: string[] = [];
  const tokens = trimmed.split(/(\s+|\(|\))/).filter((t) => t.trim() !== "");
  const repaired: string[] = [];
  for (const token of tokens) {
    if (token === "(" || token === ")") repaired.push(token);
    else repaired.push(repairToken(token, repaired[repaired.length - 1] === "WITH", unknown));
  }
  const reparsed = tryParse(repaired.join(" ").replace(/\( /g, "(").replace(/ \)/g, ")"));
  if (reparsed) return { expression: render(reparsed, ids, null), ids: [...ids], unknownNames: unknown };
  return fromName(trimmed);
}

/**
 * A normaliser with its own cache: real SBOMs repeat the same few license strings thousands of times.
 * One per document read keeps memory bounded by that document.
 */
export function createLicenseNormaliser(): {
  expression(text: string): NormalisedLicense;
  name(text: string): NormalisedLicense;
} {
  const expressions = new Map<string, NormalisedLicense>();
  const names = new Map<string, NormalisedLicense>();
  return {
    expression(text) {
      let hit = expressions.get(text);
      if (!hit) expressions.set(text, (hit = normaliseUncached(text)));
      return hit;
    },
    name(text) {
      let hit = names.get(text);
      if (!hit) names.set(text, (hit = fromName(text)));
      return hit;
    },
  };
}

/** Several declared licenses together: each operand keeps its parentheses when it is compound. */
export function allOf(expressions: string[]): string | null {
  const distinct = [...new Set(expressions)];
  if (distinct.length === 0) return null;
  if (distinct.length === 1) return distinct[0]!;
  return distinct.map((e) => (/\s(AND|OR)\s/.test(e) ? `(${e})` : e)).join(" AND ");
}
