// The category of a component's license expression under the rules in force (the spec's resolution order): each
// operand is an exception of the policy (not expired, and for the component when the exception names a package)
// which forces `allowed`, else the policy's override, else the catalog judged for the project's use, else the
// policy's unknown_license_category. Operands combine per compound_operator_strategy: AND and WITH both apply, OR
// is a choice. An expression that cannot be evaluated (none, over the limits, not SPDX) takes the unknown category.
import {
  catalogJudgement,
  leastRestrictive,
  mostRestrictive,
  type LicenseCategory,
  type Obligation,
  type UseContext,
} from "./license-catalog.ts";
import { parseLicenseExpression, type LicenseLeaf, type LicenseTree, type Unevaluable } from "./license-expression.ts";
import type { CombinationStrategy, LicenseException, LicenseRules } from "./license-policy.ts";

export type OperandSource = "exception" | "override" | "catalog" | "unknown";

export interface OperandVerdict {
  /** The id as the expression names it (`GPL-2.0+`, `Classpath-exception-2.0`, `LicenseRef-x`). */
  id: string;
  category: LicenseCategory;
  source: OperandSource;
}

export interface LicenseVerdict {
  category: LicenseCategory;
  /** The obligations of the operands the verdict rests on (both sides of AND and WITH, the chosen side of OR). */
  obligations: Obligation[];
  operands: OperandVerdict[];
  /** The same obligations by the operand whose terms carry them (docs/obligations.md). */
  attributed: AttributedObligations[];
  /** Why the expression could not be evaluated; absent when it was. */
  unevaluable?: Unevaluable;
}

export interface AttributedObligations {
  /** The id as the expression names it. */
  id: string;
  category: LicenseCategory;
  obligations: Obligation[];
}

/** What the verdict needs of the component and its project. */
export interface VerdictContext extends UseContext {
  /** The component's package URL, for exceptions limited to one package. */
  componentPurl: string | null;
  now: Date;
}

function withoutQualifiers(purl: string): string {
  return purl.replace(/[?#].*$/, "");
}

/**
 * An exception naming a package URL covers that package: exactly the version it names, or every version when it
 * names none (`pkg:npm/left-pad` covers `pkg:npm/left-pad@1.3.0`). Qualifiers and subpath are not compared.
 */
export function exceptionCoversPackage(exceptionPurl: string, componentPurl: string | null): boolean {
  if (!componentPurl) return false;
  const wanted = withoutQualifiers(exceptionPurl);
  const actual = withoutQualifiers(componentPurl);
  if (wanted === actual) return true;
  const versionAt = actual.lastIndexOf("@");
  return !wanted.slice(wanted.lastIndexOf("/")).includes("@") && versionAt > 0 && actual.slice(0, versionAt) === wanted;
}

function exceptionApplies(e: LicenseException, ids: string[], ctx: VerdictContext): boolean {
  if (!ids.includes(e.spdxId)) return false;
  if (e.expiresAt && e.expiresAt.getTime() <= ctx.now.getTime()) return false;
  return e.componentPurl === null || exceptionCoversPackage(e.componentPurl, ctx.componentPurl);
}

interface Partial {
  category: LicenseCategory;
  obligations: Set<Obligation>;
  operands: OperandVerdict[];
  attributed: AttributedObligations[];
}

/** One id: exception, override, catalog, unknown. `ids` are the names it goes by (`GPL-2.0+` also `GPL-2.0`). */
function resolveId(ids: string[], rules: LicenseRules, ctx: VerdictContext): Partial {
  const id = ids[0]!;
  const single = (category: LicenseCategory, source: OperandSource, obligations: Obligation[] = []): Partial => ({
    category,
    obligations: new Set(obligations),
    operands: [{ id, category, source }],
    attributed: [{ id, category, obligations }],
  });
  if (rules.licenseExceptions.some((e) => exceptionApplies(e, ids, ctx))) return single("allowed", "exception");
  for (const name of ids) {
    const override = rules.categoryOverrides[name];
    if (override) return single(override, "override", catalogJudgement(id, ctx)?.obligations);
  }
  const judged = catalogJudgement(id, ctx);
  if (judged) return single(judged.category, "catalog", judged.obligations);
  return single(rules.unknownLicenseCategory, "unknown", ["review-license-terms"]);
}

function pick(strategy: CombinationStrategy, a: LicenseCategory, b: LicenseCategory): LicenseCategory {
  return strategy === "most_restrictive" ? mostRestrictive(a, b) : leastRestrictive(a, b);
}

/** Both apply (AND, WITH): the strategy picks the category, the obligations of both hold. */
function both(strategy: CombinationStrategy, a: Partial, b: Partial): Partial {
  return {
    category: pick(strategy, a.category, b.category),
    obligations: new Set([...a.obligations, ...b.obligations]),
    operands: [...a.operands, ...b.operands],
    attributed: [...a.attributed, ...b.attributed],
  };
}

/** A choice (OR): the strategy picks a side (the left on a tie), whose obligations hold. */
function either(strategy: CombinationStrategy, a: Partial, b: Partial): Partial {
  const category = pick(strategy, a.category, b.category);
  const chosen = a.category === category ? a : b;
  return {
    category,
    obligations: chosen.obligations,
    operands: [...a.operands, ...b.operands],
    attributed: chosen.attributed,
  };
}

function leaf(node: LicenseLeaf, rules: LicenseRules, ctx: VerdictContext): Partial {
  const ids = node.plus ? [`${node.license}+`, node.license] : [node.license];
  const license = resolveId(ids, rules, ctx);
  if (!node.exception) return license;
  return both(rules.compoundOperatorStrategy.WITH, license, resolveId([node.exception], rules, ctx));
}

function evaluate(tree: LicenseTree, rules: LicenseRules, ctx: VerdictContext): Partial {
  if (!("operator" in tree)) return leaf(tree, rules, ctx);
  const left = evaluate(tree.left, rules, ctx);
  const right = evaluate(tree.right, rules, ctx);
  return tree.operator === "AND"
    ? both(rules.compoundOperatorStrategy.AND, left, right)
    : either(rules.compoundOperatorStrategy.OR, left, right);
}

export function licenseExpressionVerdict(
  expression: string | null,
  rules: LicenseRules,
  ctx: VerdictContext,
): LicenseVerdict {
  const parsed = parseLicenseExpression(expression);
  if (!parsed.ok) {
    return {
      category: rules.unknownLicenseCategory,
      obligations: ["review-license-terms"],
      operands: [],
      attributed: [],
      unevaluable: parsed.reason,
    };
  }
  const result = evaluate(parsed.tree, rules, ctx);
  return {
    category: result.category,
    obligations: [...result.obligations],
    operands: result.operands,
    attributed: result.attributed,
  };
}
