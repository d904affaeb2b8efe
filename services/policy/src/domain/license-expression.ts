// SPDX license expressions, parsed by spdx-expression-parse (AND, OR, WITH, parentheses, `+`, LicenseRef-,
// DocumentRef-) under the spec's evaluation limits: at most 4096 characters, 64 levels of parentheses and 1024
// tokens. The limits are checked on the text before the parser (which recurses) sees it; beyond them, or when the
// text is no SPDX expression, the answer says why and the caller applies the policy's unknown_license_category.
import parseSpdxExpression from "spdx-expression-parse";

export const LICENSE_EXPRESSION_MAX_CHARS = 4096;
export const LICENSE_EXPRESSION_MAX_NESTING = 64;
export const LICENSE_EXPRESSION_MAX_TOKENS = 1024;

/** One operand: a license id or reference, maybe `+` (or later), maybe `WITH` an exception. */
export interface LicenseLeaf {
  license: string;
  plus: boolean;
  exception: string | null;
}

export type LicenseTree = LicenseLeaf | { operator: "AND" | "OR"; left: LicenseTree; right: LicenseTree };

export type Unevaluable = "no_license" | "too_long" | "too_deep" | "too_many_tokens" | "unparseable";

export type ParsedExpression = { ok: true; tree: LicenseTree } | { ok: false; reason: Unevaluable };

// A token as the SPDX grammar counts them: a parenthesis, `+`, `:` or a run of idstring characters (ids, refs and
// the operators AND, OR, WITH).
const TOKEN = /[()+:]|[A-Za-z0-9.-]+/g;

function deepestNesting(text: string): number {
  let depth = 0;
  let deepest = 0;
  for (const ch of text) {
    if (ch === "(") deepest = Math.max(deepest, ++depth);
    else if (ch === ")") depth--;
  }
  return deepest;
}

type Parsed = parseSpdxExpression.Info;

function treeOf(node: Parsed): LicenseTree {
  if ("conjunction" in node) {
    return {
      operator: node.conjunction === "and" ? "AND" : "OR",
      left: treeOf(node.left),
      right: treeOf(node.right),
    };
  }
  return { license: node.license, plus: node.plus === true, exception: node.exception ?? null };
}

export function parseLicenseExpression(text: string | null | undefined): ParsedExpression {
  const trimmed = (text ?? "").trim();
  if (!trimmed || /^(NOASSERTION|NONE)$/i.test(trimmed)) return { ok: false, reason: "no_license" };
  if (trimmed.length > LICENSE_EXPRESSION_MAX_CHARS) return { ok: false, reason: "too_long" };
  if (deepestNesting(trimmed) > LICENSE_EXPRESSION_MAX_NESTING) return { ok: false, reason: "too_deep" };
  if ((trimmed.match(TOKEN)?.length ?? 0) > LICENSE_EXPRESSION_MAX_TOKENS)
    return { ok: false, reason: "too_many_tokens" };
  try {
    return { ok: true, tree: treeOf(parseSpdxExpression(trimmed)) };
  } catch {
    return { ok: false, reason: "unparseable" };
  }
}
