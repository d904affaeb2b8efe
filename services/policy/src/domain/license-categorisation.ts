// The categories of many components at once (a whole project after a policy change): licenseExpressionVerdict for
// each, computed once per distinct expression. Only a component whose package an unexpired per-package exception
// covers is judged on its own, since only there can its purl change the answer.
import type { LicenseCategory } from "./license-catalog.ts";
import type { LicenseRules } from "./license-policy.ts";
import { exceptionCoversPackage, licenseExpressionVerdict, type VerdictContext } from "./license-verdict.ts";

export interface LicensedComponent {
  license: string | null;
  purl: string | null;
}

export function categoriseComponents(
  components: readonly LicensedComponent[],
  rules: LicenseRules,
  ctx: Omit<VerdictContext, "componentPurl">,
): LicenseCategory[] {
  const perPackage = rules.licenseExceptions
    .filter((e) => e.componentPurl !== null && (!e.expiresAt || e.expiresAt.getTime() > ctx.now.getTime()))
    .map((e) => e.componentPurl!);
  const byExpression = new Map<string, LicenseCategory>();
  return components.map(({ license, purl }) => {
    if (purl && perPackage.some((p) => exceptionCoversPackage(p, purl)))
      return licenseExpressionVerdict(license, rules, { ...ctx, componentPurl: purl }).category;
    const key = license ?? "";
    let category = byExpression.get(key);
    if (!category) {
      category = licenseExpressionVerdict(license, rules, { ...ctx, componentPurl: null }).category;
      byExpression.set(key, category);
    }
    return category;
  });
}
